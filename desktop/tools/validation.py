"""Parse, repair and validate the raw JSON arguments of a tool call.

Models get tool arguments subtly wrong in a few recurring ways, so before
reporting an error we try the repairs from the design notes, in order:

a. the raw text is parsed; an empty (or all-blank) string means ``{}``;
b. a JSON *string* that itself holds a JSON object is unwrapped;
c. when validation fails, string values that hold JSON text (starting with
   ``{`` or ``[`` and decoding to an object or array) are decoded, and the
   repair is kept only when it makes validation pass. Strings the schema
   rejects are decoded first; if that is not enough, every such string is;
d. anything else raises :class:`InvalidArguments`, a structured error the
   model can act on (what was wrong, where, and what we received).
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from desktop.tools.errors import ToolFailure

if TYPE_CHECKING:  # jsonschema is slow to import: loaded when a validator is first built
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

MAX_DETAILS = 20
RECEIVED_LIMIT = 1_000
DETAIL_MESSAGE_LIMIT = 300
_MAX_REPAIR_ROUNDS = 8
_MAX_UNWRAP = 3


class InvalidArguments(ToolFailure):
    """The arguments could not be used; ``extra`` holds ``details`` and ``received``."""

    def __init__(
        self,
        message: str,
        *,
        details: list[dict[str, str]] | None = None,
        received: Any = None,
        note: str | None = None,
    ) -> None:
        extra: dict[str, Any] = {"details": details or [], "received": received}
        if note:
            extra["note"] = note
        super().__init__(message, code="invalid_arguments", extra=extra)
        self.details = details or []
        self.received = received


def build_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A Draft 2020-12 validator; raises ``jsonschema.SchemaError`` for a bad schema.

    Made once per distinct schema: checking a schema against the metaschema is ~1.5 ms,
    and the tools are made again each time the tool list is (an MCP server's 15 tools
    were ~50 ms of the window's thread each time, twice a tool). The validator is made
    from a copy of its own, so what a caller later does to ``schema`` cannot reach it."""
    try:
        key = json.dumps(schema, separators=(",", ":"))  # (in its order: errors are too)
    except (TypeError, ValueError):  # (not JSON: checked on its own, every time)
        return _checked_validator(schema)
    return _validator_for(key)


@functools.lru_cache(maxsize=1024)
def _validator_for(schema_json: str) -> Draft202012Validator:
    return _checked_validator(json.loads(schema_json))


def _checked_validator(schema: Mapping[str, Any]) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def parse_arguments(raw: str) -> dict[str, Any]:
    """Steps (a) and (b): the raw text as a JSON object, or :class:`InvalidArguments`."""
    if not raw.strip():
        return {}
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidArguments(
            f"The arguments are not valid JSON ({exc.msg} at line {exc.lineno} column "
            f"{exc.colno}). Send one JSON object that matches the tool's parameters.",
            received=_truncate_text(raw),
        ) from None
    for _ in range(_MAX_UNWRAP):  # a JSON string holding an object (possibly re-encoded)
        if not isinstance(value, str) or not value.strip().startswith(("{", '"')):
            break
        try:
            inner: Any = json.loads(value)
        except json.JSONDecodeError:
            break
        if not isinstance(inner, dict | str):
            break
        value = inner
    if not isinstance(value, dict):
        raise InvalidArguments(
            f"The arguments must be a JSON object, but {_kind(value)} was received. Send one "
            "JSON object that matches the tool's parameters.",
            received=_received(value, raw),
        )
    return value


def validate_arguments(
    raw: str, validator: Draft202012Validator, *, tool_name: str | None = None
) -> dict[str, Any]:
    """Parse ``raw``, repair if needed and validate; return the arguments to run with."""
    args = parse_arguments(raw)
    errors = _errors(validator, args)
    if not errors:
        return args
    repaired, decoded = _targeted_repair(validator, args)
    if repaired is not None and not _errors(validator, repaired):
        return repaired
    fully, fully_decoded = _deep_decode(args)
    if fully_decoded and isinstance(fully, dict) and not _errors(validator, fully):
        return fully
    note = None
    if decoded and repaired is not None:
        # Report the problems that remain once the JSON text was decoded: they are
        # what the model still has to fix.
        errors = _errors(validator, repaired)
        note = (
            "These fields held JSON text inside a string and were decoded before checking: "
            f"{', '.join(decoded)}. Send them as JSON values, not strings."
        )
    details = sorted((_detail(err) for err in errors[:MAX_DETAILS]), key=lambda d: d["path"])
    where = f" for {tool_name}" if tool_name else ""
    first = details[0]
    location = f" at {first['path']}" if first["path"] else ""
    more = f" (and {len(errors) - 1} more problem(s))" if len(errors) > 1 else ""
    raise InvalidArguments(
        f"Invalid arguments{where}: {first['message']}{location}{more}. Fix the arguments to "
        "match the tool's parameter schema and call the tool again.",
        details=details,
        received=_received(args, raw),
        note=note,
    )


def _errors(validator: Draft202012Validator, value: Any) -> list[ValidationError]:
    return sorted(validator.iter_errors(value), key=lambda e: _pointer(e.absolute_path))


def _targeted_repair(
    validator: Draft202012Validator, args: dict[str, Any]
) -> tuple[dict[str, Any] | None, list[str]]:
    """Decode only the strings the schema complains about, round after round."""
    current = copy.deepcopy(args)
    decoded: list[str] = []
    for _ in range(_MAX_REPAIR_ROUNDS):
        progressed = False
        for err in _walk_errors(validator.iter_errors(current)):
            path = list(err.absolute_path)
            if not path or not isinstance(err.instance, str):
                continue
            value = _decode_json_text(err.instance)
            if value is None or not _set_at(current, path, err.instance, value):
                continue
            decoded.append(_pointer(path))
            progressed = True
        if not progressed:
            break
    return (current, decoded) if decoded else (None, [])


def _walk_errors(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    for err in errors:
        yield err
        yield from _walk_errors(err.context or ())


def _set_at(root: Any, path: list[str | int], expected: str, value: Any) -> bool:
    """Replace the string at ``path`` with ``value`` if it is still ``expected``."""
    parent = root
    for key in path[:-1]:
        try:
            parent = parent[key]
        except (KeyError, IndexError, TypeError):
            return False
    last = path[-1]
    try:
        if parent[last] != expected:
            return False
        parent[last] = value
    except (KeyError, IndexError, TypeError):
        return False
    return True


def _deep_decode(value: Any, path: tuple[str | int, ...] = ()) -> tuple[Any, list[str]]:
    """Every string holding JSON text decoded, recursively; with the decoded paths."""
    if isinstance(value, str):
        decoded = _decode_json_text(value)
        if decoded is None:
            return value, []
        inner, paths = _deep_decode(decoded, path)
        return inner, [_pointer(path), *paths]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        found: list[str] = []
        for key, item in value.items():
            out[key], sub = _deep_decode(item, (*path, key))
            found += sub
        return out, found
    if isinstance(value, list):
        items: list[Any] = []
        found = []
        for index, item in enumerate(value):
            new, sub = _deep_decode(item, (*path, index))
            items.append(new)
            found += sub
        return items, found
    return value, []


def _decode_json_text(text: str) -> Any:
    """The object/array encoded in ``text``, or None if it holds no such JSON."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict | list) else None


def _detail(err: ValidationError) -> dict[str, str]:
    path = list(err.absolute_path)
    if err.validator == "required" and isinstance(err.instance, dict):
        required = err.validator_value if isinstance(err.validator_value, list) else []
        for name in required:
            if name not in err.instance and err.message.startswith(repr(name)):
                path.append(name)
                break
    message = err.message
    if len(message) > DETAIL_MESSAGE_LIMIT:
        message = message[:DETAIL_MESSAGE_LIMIT] + "…"
    return {"path": _pointer(path), "message": message}


def _pointer(path: Iterable[str | int]) -> str:
    """A JSON Pointer (RFC 6901); the root is the empty string."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _received(value: Any, raw: str) -> Any:
    """What the model sent: the parsed value if small, else the raw text truncated."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return _truncate_text(raw)
    return value if len(text) <= RECEIVED_LIMIT else _truncate_text(raw)


def _truncate_text(raw: str) -> str:
    if len(raw) <= RECEIVED_LIMIT:
        return raw
    return f"{raw[:RECEIVED_LIMIT]}… [truncated, {len(raw)} characters in total]"
