"""A feature is loaded through one lazy entry point, its package (issue 26 item 8): the
package's ``_LAZY`` table names what it offers and the module each comes from; callers
import the package at their top and the module is loaded at the first use. Checked: every
name of every table is there, and importing the packages loads none of those modules."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The packages that are a feature's lazy entry point.
ENTRIES = ("desktop.chat", "desktop.knowledge", "desktop.projects", "desktop.skills",
           "desktop.sync", "desktop.updates", "desktop.tools", "desktop.tools.mcp",
           "desktop.ui.chat", "desktop.ui.conversations")


def _table(package: str) -> dict[str, str]:
    module = importlib.import_module(package)
    table = getattr(module, "_LAZY", None) or getattr(module, "_EXPORTS", None)
    assert isinstance(table, dict), f"{package} has no table of what it loads lazily"
    return table


def test_every_name_of_a_lazy_entry_is_there() -> None:
    for package in ENTRIES:
        module = importlib.import_module(package)
        for name, source in _table(package).items():
            value = getattr(module, name)
            loaded = importlib.import_module(source)
            assert value is (loaded if source == f"{package}.{name}" else getattr(loaded, name))
            assert name in module.__all__, (package, name)


def test_importing_the_entries_loads_none_of_their_features() -> None:
    probe = ("import importlib, json, sys\n"
             f"entries = {list(ENTRIES)!r}\n"
             "tables = {}\n"
             "for name in entries:\n"
             "    module = importlib.import_module(name)\n"
             "    tables[name] = dict(getattr(module, '_LAZY', None) or module._EXPORTS)\n"
             "sources = {s for table in tables.values() for s in table.values()}\n"
             "print(json.dumps(sorted(s for s in sources if s in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    # (the MCP package loads its config at once, and with it the approvals' types: light)
    assert loaded == ["desktop.tools.approval"], loaded
