"""``assista`` and ``assista quick`` without a display (an ssh session, a shortcut run
before the desktop is up): one clear line and exit status 1, not Qt's plugin text
and an abort."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.trust.support import assista

NO_DISPLAY = {"DISPLAY": "", "WAYLAND_DISPLAY": "", "QT_QPA_PLATFORM": ""}


@pytest.mark.parametrize("args", [["quick"], ["quick", "--clipboard"], []])
def test_without_a_display_one_line_and_status_1(tmp_path: Path, args: list[str]) -> None:
    done = assista(*args, data_dir=tmp_path / "data", env=NO_DISPLAY)
    assert done.returncode == 1, done.stderr
    assert done.stderr == (
        "assista: error: no display to show a window on (DISPLAY and WAYLAND_DISPLAY are "
        "not set); start Assista from a desktop session, or use 'assista ask' in a "
        "terminal\n")


def test_a_display_that_does_not_answer_is_named(tmp_path: Path) -> None:
    done = assista("quick", data_dir=tmp_path / "data",
                   env={**NO_DISPLAY, "DISPLAY": ":97"})
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("assista: error: cannot show a window on display :97")
    assert done.stderr.count("\n") == 1 and "Reinstalling" not in done.stderr
