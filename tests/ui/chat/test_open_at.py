"""Opening a file source at its page or line: the default application (as xdg-mime
names it) started with the place when its command line takes one; otherwise the
caller opens the file. Real processes: stand-in xdg-mime and viewer scripts."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.ui.chat.open_at import location_command, open_at


def test_commands_for_known_applications() -> None:
    assert location_command("org.gnome.Evince.desktop", "/d/a.pdf", 3, 7) == [
        "evince", "--page-index=3", "/d/a.pdf"]
    assert location_command("okularApplication_pdf.desktop", "/d/a.pdf", 2, None) == [
        "okular", "--page", "2", "/d/a.pdf"]
    assert location_command("code.desktop", "/d/n.md", None, 12) == [
        "code", "--goto", "/d/n.md:12"]
    assert location_command("org.kde.kate.desktop", "/d/n.md", None, 4) == [
        "kate", "--line", "4", "/d/n.md"]
    assert location_command("firefox.desktop", "/d/a.pdf", 3, 1) is None
    assert location_command("code.desktop", "/d/a.pdf", 3, 1) is None  # pages: viewers


def _script(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!{sys.executable}\n{body}\n")
    path.chmod(0o755)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xdg-mime is Linux's")
def test_the_default_viewer_opens_at_the_page(qtbot: Any, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "argv.txt"
    _script(bin_dir, "xdg-mime", "print('org.gnome.Evince.desktop')")
    # (written whole, then renamed: the test waits for the file, and a file created
    # empty and then written could be read between the two)
    _script(bin_dir, "evince",
            f"import sys, os, pathlib; pathlib.Path({str(record) + '.part'!r}).write_text("
            f"'\\n'.join(sys.argv[1:])); os.replace({str(record) + '.part'!r}, {str(record)!r})")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    assert open_at(str(tmp_path / "hand book.pdf"), 4, 1)
    qtbot.waitUntil(record.exists, timeout=10000)
    assert record.read_text().splitlines() == ["--page-index=4",
                                               str(tmp_path / "hand book.pdf")]
    assert not open_at(str(tmp_path / "notes.md"), None, None)  # no place: the caller opens
    _script(bin_dir, "xdg-mime", "print('firefox.desktop')")
    assert not open_at(str(tmp_path / "hand book.pdf"), 4, 1)  # no page option known
