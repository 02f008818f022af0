"""The read limits hold in a real process whose address space is capped (``ulimit
-v``): the CLI against a server sending a line that never ends, an NDJSON line that
never ends and a gzip-bombed JSON answer, and imports of a 513 MB file and a zip
bomb, each end in the clear one-line error — not in MemoryError, a traceback or a
killed process — with the data folder unchanged."""

from __future__ import annotations

import resource
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.trust.support import KEY, assista, no_traceback, state
from tests.trust.test_reply_limits import serve  # noqa: F401  (the loopback server)

MB = 1024 * 1024
#: The child's address space: the interpreter, its libraries and threads take about
#: 300-500 MB of it; the caps (32 MB per event, 64 MB per JSON reply) fit in the rest,
#: reading without them would not (an endless line grows until MemoryError).
ADDRESS_SPACE = 1024 * MB


def capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def ask(base_url: str, data: Path, *extra: str) -> tuple[int, str]:
    done = assista("ask", "--base-url", base_url, "--model", "m", *extra, "hi",
                   data_dir=data, env=KEY, preexec=capped, timeout=120)
    assert no_traceback(done) and "MemoryError" not in done.stderr, done.stderr
    return done.returncode, done.stderr


@pytest.mark.parametrize(("kind", "extra"), [
    ("sse-line", ()),
    ("ndjson-line", ("--provider", "ollama")),
    ("gzip-json", ()),
])
def test_endless_and_bombed_replies_under_a_memory_limit(
        serve: Callable[[str], str], tmp_path: Path, kind: str,  # noqa: F811
        extra: tuple[str, ...]) -> None:
    data = tmp_path / "data"
    url = serve(kind)
    code, err = ask(url + ("" if extra else "/v1"), data, *extra)
    assert code == 1, err
    assert "stopped reading" in err and " MB" in err, err  # the limit, named


def test_huge_imports_under_a_memory_limit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()  # (export does not make a folder that is missing)
    done = assista("export", "--format", "json", data_dir=data)  # creates the database in it
    assert done.returncode == 0
    before = state(data)
    huge = tmp_path / "conversations.json"
    with huge.open("wb") as handle:
        handle.truncate(513 * MB)
    bomb = tmp_path / "export.zip"
    # (compressed fast: 2.3 MB that inflate to 513 MB, made in half the time)
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive, \
            archive.open("conversations.json", "w", force_zip64=True) as entry:
        block = b" " * MB
        for _ in range(513):
            entry.write(block)
    for path in (huge, bomb):
        done = assista("import", str(path), data_dir=data, preexec=capped, timeout=120)
        assert done.returncode == 1 and no_traceback(done), done.stderr
        assert "more than 512 MB of chats" in done.stderr and "MemoryError" not in done.stderr
    assert state(data) == before


def test_the_limit_is_real(tmp_path: Path) -> None:
    """The cap does bite: a child asking for more than it gets MemoryError."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", "b = bytearray(2 * 1024**3)"],
                          capture_output=True, text=True, preexec_fn=capped, timeout=60,
                          check=False)
    assert done.returncode != 0 and "MemoryError" in done.stderr
