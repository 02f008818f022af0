"""Imported first by the window's launcher: Qt, and PySide6's import hook made cheap.

Once PySide6 is loaded, it looks at every module imported after it to decide whether
that module may switch PySide6 features (``from __feature__ import snake_case``): it
calls ``inspect.getsource`` on the module (through ``linecache``: the file is read,
decoded and split into lines) and searches the text for "PySide6". For the ~900 modules
the window loads after Qt that was ~9% of the main thread's time until the app had
loaded (py-spy, tests/bench/bench_shipped_startup.py). The same question is answered
here by searching the file's bytes (what PySide6 asks is whether the ASCII word is in
the source); anything that is not a ``.py`` file on disk goes to PySide6's own check.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

import PySide6.QtCore  # noqa: F401  (loads PySide6's feature support)

FEATURE_MODULES = ("shibokensupport.feature", "PySide6.support.feature")


def quicken_import_hook() -> bool:
    """Replace PySide6's source scan by a byte search; False when this PySide6 has no
    such scan (then nothing is changed)."""
    done = False
    for name in FEATURE_MODULES:
        feature = sys.modules.get(name)
        scan: Callable[[ModuleType], bool] | None = getattr(feature, "_mod_uses_pyside",
                                                            None)
        if feature is None or scan is None or getattr(scan, "quick", False):
            continue
        feature._mod_uses_pyside = _byte_search(scan)  # type: ignore[attr-defined]
        done = True
    return done


def _byte_search(scan: Callable[[ModuleType], bool]) -> Callable[[ModuleType], bool]:
    def uses_pyside(module: ModuleType) -> bool:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not path.endswith(".py"):
            return scan(module)
        try:
            with open(path, "rb") as source:
                return b"PySide6" in source.read()
        except OSError:
            return scan(module)

    uses_pyside.quick = True  # type: ignore[attr-defined]
    return uses_pyside


quicken_import_hook()
