"""Frozen entry point: the bundle's executables run ``desktop.__main__.main``."""

from __future__ import annotations

import multiprocessing
import sys

from desktop.__main__ import main

if __name__ == "__main__":
    # A child process started by multiprocessing (spawn: Windows, macOS) re-runs this
    # executable; freeze_support() turns it into the worker instead of a second app.
    multiprocessing.freeze_support()
    sys.exit(main())
