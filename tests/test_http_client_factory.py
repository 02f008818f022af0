"""Every HTTP client the app makes comes from desktop.providers.http_clients, so the
proxy and TLS settings reach all of them: no other module builds an httpx (or httpx2)
client, nor sends through httpx's module-level functions (a client of their own)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[1] / "desktop"
FACTORY = DESKTOP / "providers" / "http_clients.py"
HTTP_MODULES = {"httpx", "httpx2"}
CLIENTS = {"Client", "AsyncClient"}
ONE_SHOT = {"get", "post", "put", "patch", "delete", "head", "options", "request", "stream"}


def _aliases(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Names bound to an httpx-like module, and to its client classes, in one file."""
    modules: set[str] = set()
    classes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {a.asname or a.name for a in node.names if a.name in HTTP_MODULES}
        elif isinstance(node, ast.ImportFrom) and node.module in HTTP_MODULES:
            classes |= {a.asname or a.name for a in node.names
                        if a.name in CLIENTS | ONE_SHOT}
    return modules, classes


def client_constructions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules, classes = _aliases(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id in modules and func.attr in CLIENTS | ONE_SHOT):
            found.append(f"{path.relative_to(DESKTOP.parent)}:{node.lineno} "
                         f"{func.value.id}.{func.attr}(...)")
        elif isinstance(func, ast.Name) and func.id in classes:
            found.append(f"{path.relative_to(DESKTOP.parent)}:{node.lineno} {func.id}(...)")
    return found


def test_no_module_but_the_factory_builds_an_http_client() -> None:
    offenders = [hit for path in sorted(DESKTOP.rglob("*.py")) if path != FACTORY
                 for hit in client_constructions(path)]
    assert offenders == []


def test_the_scan_sees_each_way_of_building_a_client(tmp_path: Path) -> None:
    sample = tmp_path / "desktop" / "sample.py"
    sample.parent.mkdir()
    sample.write_text(
        "import httpx\nimport httpx2 as h2\nfrom httpx import AsyncClient as AC\n"
        "httpx.Client()\nh2.AsyncClient()\nAC()\nhttpx.get('http://x')\n"
        "httpx.Timeout(3)\n", encoding="utf-8")
    global DESKTOP
    saved, DESKTOP = DESKTOP, sample.parent
    try:
        assert [hit.split(" ", 1)[1] for hit in client_constructions(sample)] == [
            "httpx.Client(...)", "h2.AsyncClient(...)", "AC(...)", "httpx.get(...)"]
    finally:
        DESKTOP = saved


def test_httpx_is_loaded_without_its_command_line() -> None:
    """httpx imports its command line (click, Pygments' lexers) when it can; the app
    never runs it, and that import cost ~13 ms of every start."""
    probe = ("import sys\n"
             "import desktop, httpx\n"
             "print(sorted(m for m in ('click', 'pygments.lexers', 'rich') if m in sys.modules))\n"
             "print(callable(httpx.main))\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60, cwd=Path(__file__).resolve().parents[1]).stdout
    assert out.split("\n")[:2] == ["[]", "True"]
