"""``assista knowledge`` and ``assista ask --knowledge`` as real processes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_ask_export import KEY, assista
from tests.support.documents import write_pdf
from tests.support.openai_server import FakeOpenAIServer

FILES = 300  # the benchmark indexes 10,000; a few hundred keep the CLI test quick


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def _folder(root: Path) -> Path:
    docs = root / "notes"
    for n in range(FILES):
        folder = docs / f"team{n % 7}" / f"year{n % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{n}.md").write_text(f"# Note {n}\n\nMeeting minutes about topic {n}.\n")
    deep = docs / "archive" / "2019" / "q3" / "ops"
    deep.mkdir(parents=True)
    (deep / "vault.md").write_text("Filler.\n" * 10 + "The vault combination is 31-7-44.\n")
    write_pdf(docs / "handbook.pdf", ["Welcome", "Parking is on level minus two."])
    return docs


def test_knowledge_add_list_search(tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    data = ["--data-dir", str(tmp_path / "data")]
    added = assista("knowledge", "add", "Notes", str(docs), *data, data_dir=tmp_path)
    assert added.returncode == 0, added.stderr
    assert f"Notes: {FILES + 2} added" in added.stderr
    listed = assista("knowledge", "list", *data, data_dir=tmp_path)
    name, files, chunks, paths = listed.stdout.strip().split("\t")
    assert (name, int(files), paths) == ("Notes", FILES + 2, str(docs.resolve()))
    assert int(chunks) >= FILES + 2
    found = assista("knowledge", "search", "Notes", "vault combination", *data,
                    data_dir=tmp_path)
    assert found.returncode == 0, found.stderr
    first = found.stdout.splitlines()[0].split("\t")
    assert first[0] == str((docs / "archive/2019/q3/ops/vault.md").resolve())
    assert first[1] == "lines 1-11" and "31-7-44" in first[3]
    parking = assista("knowledge", "search", "Notes", "where is parking", *data,
                      data_dir=tmp_path)
    assert parking.stdout.splitlines()[0].split("\t")[:2] == [
        str((docs / "handbook.pdf").resolve()), "page 2, line 1"]
    missing = assista("knowledge", "search", "Nope", "x", *data, data_dir=tmp_path)
    assert missing.returncode == 1 and "no knowledge base named 'Nope'" in missing.stderr


def test_ask_with_knowledge_calls_search_knowledge(server: FakeOpenAIServer,
                                                   tmp_path: Path) -> None:
    docs = _folder(tmp_path)
    data = ["--data-dir", str(tmp_path / "data")]
    assert assista("knowledge", "add", "Notes", str(docs), *data,
                   data_dir=tmp_path).returncode == 0
    server.enqueue_tool_calls([("search_knowledge", json.dumps({"query": "vault combination"}))])
    server.enqueue_text("The combination is 31-7-44 (vault.md, line 11).")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--knowledge", "Notes", "What is the vault combination?",
                   data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The combination is 31-7-44 (vault.md, line 11)."
    first, second = server.chat_requests[0].json, server.chat_requests[1].json
    assert "search_knowledge" in [t["function"]["name"] for t in first["tools"]]
    result = json.loads(second["messages"][-1]["content"])["result"]
    assert result["results"][0]["path"].endswith("archive/2019/q3/ops/vault.md")
    assert "31-7-44" in result["results"][0]["text"]
    unknown = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                      "--knowledge", "Nope", "hi", data_dir=tmp_path / "data", env=KEY)
    assert unknown.returncode == 1 and "no knowledge base named 'Nope'" in unknown.stderr


def test_an_embedding_kind_no_adapter_has_is_refused_before_anything_is_made(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("text")
    data = ["--data-dir", str(tmp_path / "data")]
    done = assista("knowledge", "add", "K", str(docs), "--embedding-model", "m",
                   "--embedding-kind", "anthropic", *data, data_dir=tmp_path)
    assert done.returncode != 0
    assert "--embedding-kind: 'anthropic' is not one of gemini, ollama, openai" in done.stderr
    listed = assista("knowledge", "list", *data, data_dir=tmp_path)
    assert listed.returncode == 0 and listed.stdout == ""
