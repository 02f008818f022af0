"""A full disk, a file-size limit, a device or a pipe given as a file, an empty sync
path: one clear line each, never a traceback per log record, nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.openai_server import FakeOpenAIServer
from tests.trust.folders import fill, small_disk
from tests.trust.support import KEY, ROOT, assista, no_traceback

LOGGING = """
import logging, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
from desktop.storage.logs import setup_logging
from desktop.storage.paths import DataPaths
setup_logging(DataPaths.resolve(sys.argv[1]), stderr=False)
for i in range(140):
    logging.getLogger("assista.test").warning("record %d %s", i, "x" * 100)
print("still running")
"""


def test_a_log_file_that_cannot_grow_is_said_once(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", LOGGING, str(tmp_path / "data")],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout == "still running\n", done.stderr
    log_file = tmp_path / "data" / "logs" / "assista.log"
    assert done.stderr == (f"assista: warning: cannot write the log file {log_file} "
                           "(File too large); logging to it stops\n")


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert no_traceback(done), done.stderr
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("assista: error: "), done.stderr
    return lines[0]


def chats(export: str) -> object:
    return json.loads(export)["sessions"]


def test_a_full_disk_says_so_in_one_line_and_loses_nothing(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("alpaca notes\n" * 2000)
    with FakeOpenAIServer(models=["gpt-test"]) as server, \
            small_disk(tmp_path / "disk") as disk:
        data = disk / "data"
        server.enqueue_text("kept")
        ask = ["ask", "--base-url", server.base_url, "--model", "gpt-test"]
        assert assista(*ask, "hi", data_dir=data, env=KEY).returncode == 0
        before = assista("export", "--format", "json", data_dir=data)
        (tmp_path / "chats.json").write_text(before.stdout)
        filler = fill(disk)
        server.enqueue_text("lost " * 1000)
        said = [one_error_line(assista(*ask, "again", data_dir=data, env=KEY)),
                one_error_line(assista("knowledge", "add", "kb", str(docs), data_dir=data)),
                one_error_line(assista("export", "--format", "markdown", "-o",
                                       str(disk / "out.md"), data_dir=data))]
        assert all("the disk holding it is full" in line for line in said[:2]), said
        assert "No space left on device" in said[2], said
        readable = assista("export", "--format", "json", data_dir=data)  # reading works
        assert readable.returncode == 0, readable.stderr
        assert chats(readable.stdout) == chats(before.stdout)
        filler.unlink()
        after = assista("export", "--format", "json", data_dir=data)
    assert after.returncode == 0, after.stderr
    kept = json.loads(after.stdout)["sessions"]
    assert [m["parts"][0]["text"] for s in kept for m in s["messages"]][:2] == ["hi", "kept"]


def test_import_refuses_a_device_and_a_pipe(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    for source in ("/dev/zero", str(pipe), str(link), str(tmp_path)):
        done = assista("import", source, data_dir=tmp_path / "data", timeout=30)
        line = one_error_line(done)
        assert "is not a file" in line, line


def test_sync_to_a_file_url_without_a_path_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    for target in ("file://", "file:", "file:relative/folder"):
        done = subprocess.run(
            [sys.executable, "-m", "desktop", "sync", "--target", target, "--data-dir",
             str(tmp_path / "data")], capture_output=True, text=True, cwd=work, timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT), "ASSISTA_SYNC_PASSPHRASE": "pw",
                 "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}, check=False)
        line = one_error_line(done)
        assert "full path" in line, line
        assert list(work.iterdir()) == [], target
