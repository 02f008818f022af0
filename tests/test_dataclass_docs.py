"""Every dataclass under desktop/ has a docstring.

The docstring says what the object is. It also saves start-up time: on Python 3.11,
``dataclasses`` gives a class without one the docstring ``Name(field: type, ...)``,
made with ``inspect.signature`` as the class is created (0.1-0.2 ms each, and dozens of
them are created on the way to the window's first answer).
"""

from __future__ import annotations

import ast
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[1] / "desktop"


def _is_dataclass(decorator: ast.expr) -> bool:
    """``@dataclass``, ``@dataclass(...)``, ``@dataclasses.dataclass`` or a call of it."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Name):
        return target.id == "dataclass"
    return isinstance(target, ast.Attribute) and target.attr == "dataclass" and isinstance(
        target.value, ast.Name) and target.value.id == "dataclasses"


def undocumented(root: Path) -> list[str]:
    """``path:line Name`` of each dataclass under ``root`` without a docstring."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "dataclass" not in source:
            continue  # (parsing every module took ~1.4 s of the suite)
        tree = ast.parse(source, filename=str(path))
        for node in ast.walk(tree):
            if (isinstance(node, ast.ClassDef)
                    and any(_is_dataclass(d) for d in node.decorator_list)
                    and ast.get_docstring(node) is None):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name}")
    return found


def test_every_dataclass_has_a_docstring() -> None:
    missing = undocumented(DESKTOP)
    assert not missing, f"{len(missing)} dataclasses without a docstring:\n" + "\n".join(missing)


def test_the_scan_sees_every_way_of_writing_the_decorator(tmp_path: Path) -> None:
    package = tmp_path / "desktop"
    package.mkdir()
    (package / "a.py").write_text(
        "import dataclasses\n"
        "from dataclasses import dataclass\n\n"
        "@dataclass\nclass Bare:\n    x: int\n\n"
        "@dataclass(frozen=True)\nclass Called:\n    x: int\n\n"
        "@dataclasses.dataclass\nclass Dotted:\n    x: int\n\n"
        "@dataclasses.dataclass(slots=True)\nclass DottedCalled:\n    x: int\n\n"
        "@dataclass\nclass Documented:\n    \"\"\"A documented one.\"\"\"\n\n    x: int\n\n"
        "class Plain:\n    x: int\n",
        encoding="utf-8")
    assert undocumented(package) == [
        "desktop/a.py:5 Bare", "desktop/a.py:9 Called", "desktop/a.py:13 Dotted",
        "desktop/a.py:17 DottedCalled"]
