"""Project override of PyInstaller's PySide6.QtGui hook: same collection, fewer Qt plugins.

The plugin list is in packaging/bundle_policy.py; filtering here, before PyInstaller
scans binaries for their dependencies, keeps a dropped plugin's libraries out too.
"""

from bundle_policy import filter_qt_binaries
from PyInstaller.utils.hooks.qt import add_qt6_dependencies

hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries = filter_qt_binaries(binaries)
