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
