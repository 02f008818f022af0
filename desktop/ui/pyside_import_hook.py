"""Imported first by the window's launcher: Qt, and PySide6's import hook made cheap.

Once PySide6 is loaded, it looks at every module imported after it to decide whether
that module may switch PySide6 features (``from __feature__ import snake_case``): it
calls ``inspect.getsource`` on the module (through ``linecache``: the file is read,
decoded and split into lines) and searches the text for "PySide6". For the ~900 modules
the window loads after Qt that was ~9% of the main thread's time until the app had
loaded (py-spy, tests/bench/bench_shipped_startup.py). The same question is answered
here by searching the file's bytes (what PySide6 asks is whether the ASCII word is in
the source); anything that is not a ``.py`` file on disk goes to PySide6's own check.

Even so, reading the ~540 files a turn needs (7.8 MB of source) took ~20 ms of every
start. The answers are kept in :class:`ScanCache` beside the app's compiled bytecode
(``desktop/__pycache__``, as Python keeps its own), each with the file's modification
time and size: a file that did not change is only looked at with ``stat``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (loads PySide6's feature support)

FEATURE_MODULES = ("shibokensupport.feature", "PySide6.support.feature")
CACHE_NAME = "pyside-scan.json"
CACHE_VERSION = 1


class ScanCache:
    """Whether a source file says "PySide6", by path, valid while the file's
    modification time and size are the same."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.answers: dict[str, tuple[int, int, bool]] = {}
        self.seen: set[str] = set()  # (what is written: the files this process looked at)
        self.changed = False
        if path is None:
            return
        try:
            data = json.loads(path.read_bytes())
            if data.get("version") == CACHE_VERSION:
                self.answers = {key: (int(m), int(s), bool(a))
                                for key, (m, s, a) in data["files"].items()}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            self.answers = {}  # (none yet, or unreadable: made again)

    def says_pyside(self, path: str) -> bool:
        """Raises OSError when ``path`` cannot be read."""
        stat = os.stat(path)
        self.seen.add(path)
        known = self.answers.get(path)
        if known is not None and known[0] == stat.st_mtime_ns and known[1] == stat.st_size:
            return known[2]
        fd = os.open(path, os.O_RDONLY)
        try:
            answer = b"PySide6" in os.read(fd, stat.st_size + 1)
        finally:
            os.close(fd)
        self.answers[path] = (stat.st_mtime_ns, stat.st_size, answer)
        self.changed = True
        return answer

    def save(self) -> None:
        """Write the answers if any is new (nothing happens when it cannot be written)."""
        if self.path is None or not self.changed:
            return
        data = {"version": CACHE_VERSION,
                "files": {key: list(value) for key, value in self.answers.items()
                          if key in self.seen}}
        partial = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            partial.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
            os.replace(partial, self.path)
            self.changed = False
        except OSError:
            partial.unlink(missing_ok=True)


def default_cache_path() -> Path | None:
    """Beside the app's compiled bytecode; None where Python writes none."""
    if sys.dont_write_bytecode:
        return None
    folder = Path(__file__).resolve().parents[1] / "__pycache__"
    return folder / CACHE_NAME if folder.is_dir() else None


CACHE = ScanCache(default_cache_path())


def quicken_import_hook(cache: ScanCache = CACHE) -> bool:
    """Replace PySide6's source scan by a byte search; False when this PySide6 has no
    such scan (then nothing is changed)."""
    done = False
    for name in FEATURE_MODULES:
        feature = sys.modules.get(name)
        scan: Callable[[ModuleType], bool] | None = getattr(feature, "_mod_uses_pyside",
                                                            None)
        if feature is None or scan is None or getattr(scan, "quick", False):
            continue
        feature._mod_uses_pyside = _byte_search(scan, cache)  # type: ignore[attr-defined]
        done = True
    return done


def _byte_search(scan: Callable[[ModuleType], bool],
                 cache: ScanCache) -> Callable[[ModuleType], bool]:
    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return scan(module)
        try:
            return cache.says_pyside(path)
        except OSError:
            return scan(module)

    uses_pyside.quick = True  # type: ignore[attr-defined]
    return uses_pyside


quicken_import_hook()
