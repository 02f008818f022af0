"""PySide6 looks at every module imported after it for ``from __feature__ import``;
the window's launcher makes that a byte search instead of PySide6's read of the
module's source through ``inspect``/``linecache`` (~9% of the main thread's start-up,
tests/bench/bench_shipped_startup.py). The answers stay PySide6's own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

IMPORT_AFTER = """
import json, linecache, sys
sys.path.insert(0, sys.argv[2])
if sys.argv[1] == "launcher":
    import desktop.gui  # what ``assista`` imports to open the window
else:
    import PySide6.QtWidgets  # PySide6 alone
feature = sys.modules["shibokensupport.feature"]
exec("import bench_uses_qt, bench_plain")
print(json.dumps({
    "read_through_linecache": sorted(k for k in linecache.cache if "bench_" in k),
    "uses_qt": feature.pyside_feature_dict.get("bench_uses_qt"),
    "plain": feature.pyside_feature_dict.get("bench_plain"),
}))
"""


def imported_after(first: str, folder: Path) -> dict[str, object]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", IMPORT_AFTER, first, str(folder)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_modules_imported_after_the_launcher_are_not_read_as_source(tmp_path: Path) -> None:
    (tmp_path / "bench_uses_qt.py").write_text("import os  # shown with PySide6\n")
    (tmp_path / "bench_plain.py").write_text("import os\n")
    plain_pyside = imported_after("pyside", tmp_path)
    assert plain_pyside["read_through_linecache"]  # what PySide6 does by itself
    launched = imported_after("launcher", tmp_path)
    assert launched["read_through_linecache"] == []
    # the same answers as PySide6's: 0 = may switch features, -1 = not a PySide6 module
    assert (launched["uses_qt"], launched["plain"]) == (0, -1)
    assert (plain_pyside["uses_qt"], plain_pyside["plain"]) == (0, -1)


def test_answers_are_kept_while_a_file_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.ui import pyside_import_hook as hook

    uses, plain = tmp_path / "uses.py", tmp_path / "plain.py"
    uses.write_text("from PySide6.QtCore import QObject\n")
    plain.write_text("import os\n")
    first = hook.ScanCache(tmp_path / "scan.json")
    assert (first.says_pyside(str(uses)), first.says_pyside(str(plain))) == (True, False)
    first.save()
    opened: list[str] = []
    real_open = os.open

    def counting_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(hook.os, "open", counting_open)
    again = hook.ScanCache(tmp_path / "scan.json")  # the next start
    assert (again.says_pyside(str(uses)), again.says_pyside(str(plain))) == (True, False)
    assert opened == []  # known, unchanged: not read
    plain.write_text("import PySide6  # now it does\n")  # (another size)
    assert again.says_pyside(str(plain)) is True and opened == [str(plain)]
    again.save()
    assert hook.ScanCache(tmp_path / "scan.json").answers[str(plain)][2] is True


def test_an_unreadable_cache_is_made_again(tmp_path: Path) -> None:
    from desktop.ui import pyside_import_hook as hook

    (tmp_path / "scan.json").write_text("{not json")
    cache = hook.ScanCache(tmp_path / "scan.json")
    module = tmp_path / "m.py"
    module.write_text("x = 1\n")
    assert cache.answers == {} and cache.says_pyside(str(module)) is False
    cache.save()
    assert json.loads((tmp_path / "scan.json").read_text())["files"][str(module)][2] is False
