"""A screen reader's view of the app, as a helper process of the journeys.

Run with the system Python that has ``pyatspi`` (Debian ``python3-pyatspi``, the library
Orca is built on). It reads one JSON request per line on standard input and answers one
JSON line on standard output:

* ``{"op": "find", "match": {...}}`` -- the nodes of the app's accessible tree that match
  now (``[]`` if none);
* ``{"op": "wait", "match": {...}, "timeout": S}`` -- waits in GLib's main loop (a timer
  that looks again, never a sleep) until a node matches, or ``timeout`` seconds pass;
* ``{"op": "wait_gone", "match": {...}, "timeout": S}`` -- until no node matches;
* ``{"op": "dump"}`` -- every node that is showing (for a failure's message).

A match may name ``role``, ``name`` (exact), ``name_contains``, ``text_contains``,
``inside`` / ``not_inside`` (the name of an ancestor, e.g. "Conversation"),
``states`` (all of them: ``focused``, ``checked``, ``enabled``, ...) and ``showing``
(default true: only what is on screen). A node is ``{"role", "name", "text", "states",
"x", "y", "w", "h", "description"}`` with screen coordinates.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pyatspi
from gi.repository import GLib

APP_NAME = sys.argv[1] if len(sys.argv) > 1 else "Assista"
TEXT_LIMIT = 4000
STATE_NAMES = {
    "focused": pyatspi.STATE_FOCUSED, "checked": pyatspi.STATE_CHECKED,
    "enabled": pyatspi.STATE_ENABLED, "showing": pyatspi.STATE_SHOWING,
    "selected": pyatspi.STATE_SELECTED, "editable": pyatspi.STATE_EDITABLE,
    "active": pyatspi.STATE_ACTIVE, "expanded": pyatspi.STATE_EXPANDED,
    "focusable": pyatspi.STATE_FOCUSABLE, "modal": pyatspi.STATE_MODAL,
}


def _node(obj: Any) -> dict[str, Any] | None:
    try:
        state = obj.getState()
        states = [name for name, value in STATE_NAMES.items() if state.contains(value)]
        node: dict[str, Any] = {"role": obj.getRoleName(), "name": obj.name or "",
                                "description": obj.description or "", "states": states,
                                "text": ""}
    except Exception:  # the object went away while it was read
        return None
    try:
        text = obj.queryText()
        node["text"] = text.getText(0, min(text.characterCount, TEXT_LIMIT))
    except Exception:
        pass
    try:
        box = obj.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
        node.update(x=box.x, y=box.y, w=box.width, h=box.height)
    except Exception:
        node.update(x=0, y=0, w=0, h=0)
    return node


def _walk(obj: Any, depth: int, out: list[dict[str, Any]], showing_only: bool,
          ancestors: tuple[str, ...] = ()) -> None:
    node = _node(obj)
    if node is None:
        return
    node["inside"] = list(ancestors)
    showing = "showing" in node["states"]
    if showing_only and not showing and depth > 1:
        return
    out.append(node)
    if depth > 60:
        return
    try:
        count = obj.childCount
    except Exception:
        return
    for index in range(min(count, 2000)):
        try:
            child = obj.getChildAtIndex(index)
        except Exception:
            continue
        if child is not None:
            named = (*ancestors, node["name"]) if node["name"] else ancestors
            _walk(child, depth + 1, out, showing_only, named)


def _apps() -> list[Any]:
    found = []
    for app in pyatspi.Registry.getDesktop(0):
        try:
            if app is not None and app.name == APP_NAME:
                found.append(app)
        except Exception:
            continue
    return found


def nodes(showing_only: bool = True) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for app in _apps():
        _walk(app, 0, out, showing_only)
    return out


def matches(node: dict[str, Any], match: dict[str, Any]) -> bool:
    if "role" in match and node["role"] != match["role"]:
        return False
    if "name" in match and node["name"] != match["name"]:
        return False
    if "name_contains" in match and match["name_contains"] not in node["name"]:
        return False
    if "text_contains" in match and match["text_contains"] not in node["text"]:
        return False
    if "any_contains" in match and not any(
            match["any_contains"] in node[key] for key in ("name", "text", "description")):
        return False
    if "inside" in match and not any(match["inside"] in name for name in node["inside"]):
        return False
    if "not_inside" in match and any(match["not_inside"] in name for name in node["inside"]):
        return False
    return all(state in node["states"] for state in match.get("states", ()))


def find(match: dict[str, Any]) -> list[dict[str, Any]]:
    showing_only = match.get("showing", True)
    return [node for node in nodes(showing_only) if matches(node, match)]


def wait(match: dict[str, Any], timeout: float, gone: bool = False) -> list[dict[str, Any]]:
    """Looks again on a GLib timer until the match holds (or is gone), or time is up."""
    loop = GLib.MainLoop()
    result: list[list[dict[str, Any]]] = []

    def look() -> bool:
        found = find(match)
        if bool(found) != gone:
            result.append(found)
            loop.quit()
            return False
        return True

    def give_up() -> bool:
        loop.quit()
        return False

    if look():
        look_timer = GLib.timeout_add(100, look)
        give_up_timer = GLib.timeout_add(int(timeout * 1000), give_up)
        loop.run()
        for timer in (look_timer, give_up_timer):
            GLib.source_remove(timer) if GLib.main_context_default().find_source_by_id(
                timer) else None
    if result:
        return result[0]
    return [] if not gone else find(match)


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        try:
            if op == "find":
                answer: Any = find(request["match"])
            elif op == "wait":
                answer = wait(request["match"], request.get("timeout", 30))
            elif op == "wait_gone":
                answer = wait(request["match"], request.get("timeout", 30), gone=True)
            elif op == "dump":
                answer = nodes(showing_only=True)
            else:
                answer = {"error": f"unknown op {op}"}
        except Exception as exc:  # reported to the test, which fails with it
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
