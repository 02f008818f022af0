"""A knowledge base takes only the regular files inside its folder: a link out of it
(``README.md -> ~/.ssh/id_rsa``) is not followed, a pipe or a link to ``/dev/zero``
does not hang the indexing, and the good files are indexed. An embedding service that
cannot be used leaves nothing made; one that fails half-way says how to go on."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from desktop.core.waits import WAIT_SCALE_VARIABLE
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.trust.support import assista, no_traceback

EMBEDDINGS = "/v1/embeddings"


def vectors(count: int) -> ScriptedResponse:
    return ScriptedResponse.json_body(
        {"data": [{"index": i, "embedding": [0.1, 0.2, 0.3]} for i in range(count)]})


def test_links_out_of_the_folder_and_special_files_are_skipped(tmp_path: Path) -> None:
    secret = tmp_path / "home" / ".ssh" / "id_rsa"
    secret.parent.mkdir(parents=True)
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- zebrasecret\n")
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "notes.md").write_text("alpaca notes\n")
    (docs / "README.md").symlink_to(secret)
    (docs / "alias.md").symlink_to(docs / "notes.md")  # inside the folder: followed
    (docs / "linked").symlink_to(secret.parent)  # a folder out of it: not entered
    (docs / "zero.txt").symlink_to("/dev/zero")
    os.mkfifo(docs / "sub" / "pipe.md")
    data = tmp_path / "data"
    added = assista("knowledge", "add", "kb", str(docs), data_dir=data, timeout=60)
    assert added.returncode == 0 and no_traceback(added), added.stderr
    assert "README.md is a link out of the folder" in added.stderr
    assert "zero.txt is a link out of the folder" in added.stderr
    assert "pipe.md is not a regular file" in added.stderr
    found = assista("knowledge", "search", "kb", "zebrasecret", data_dir=data)
    assert found.returncode == 1 and found.stdout == "", found.stdout
    good = assista("knowledge", "search", "kb", "alpaca", data_dir=data)
    assert good.returncode == 0
    assert sorted(line.split("\t")[0] for line in good.stdout.splitlines()) == [
        str(docs / "alias.md"), str(docs / "notes.md")]
    assert assista("knowledge", "list", data_dir=data).stdout.startswith("kb\t2\t")


def test_a_file_later_replaced_by_a_link_out_is_dropped(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("zebrasecret\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "README.md").write_text("zebra readme\n")
    data = tmp_path / "data"
    assert assista("knowledge", "add", "kb", str(docs), data_dir=data).returncode == 0
    (docs / "README.md").unlink()
    (docs / "README.md").symlink_to(secret)
    assert assista("knowledge", "index", "kb", data_dir=data).returncode == 0
    assert assista("knowledge", "search", "kb", "zebrasecret", data_dir=data).stdout == ""
    assert assista("knowledge", "search", "kb", "readme", data_dir=data).stdout == ""


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_embedding_service_that_cannot_be_used_leaves_nothing(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("alpaca notes\n")
    data = tmp_path / "data"
    # (every retry of the refused connection, with the backoff a hundredth as long)
    done = assista("knowledge", "add", "kb", str(docs), "--embedding-model", "emb",
                   "--embedding-url", f"http://127.0.0.1:{closed_port()}/v1", data_dir=data,
                   env={WAIT_SCALE_VARIABLE: "0.01"})
    assert done.returncode == 1 and no_traceback(done)
    assert done.stderr.count("\n") == 1 and "nothing was changed" in done.stderr, done.stderr
    assert assista("knowledge", "list", data_dir=data).stdout == ""


def test_an_embedding_service_failing_half_way_can_be_resumed(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text("alpaca notes\n")
    data = tmp_path / "data"
    with FakeOpenAIServer() as server:
        server.enqueue(vectors(1), ScriptedResponse.error(500, "overloaded"), path=EMBEDDINGS)
        done = assista("knowledge", "add", "kb", str(docs), "--embedding-model", "emb",
                       "--embedding-url", server.base_url, data_dir=data)
        assert done.returncode == 1 and no_traceback(done), done.stderr
        assert done.stderr.strip().splitlines()[-1].endswith(
            "'assista knowledge index kb' embeds the rest"), done.stderr
        server.enqueue(vectors(1), path=EMBEDDINGS)
        again = assista("knowledge", "index", "kb", data_dir=data)
    assert again.returncode == 0, again.stderr
    assert "1 chunks embedded" in again.stderr
