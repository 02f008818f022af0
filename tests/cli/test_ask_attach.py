"""``assista ask --attach`` as a real process: the documents' text reaches the model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_ask_export import KEY, assista
from tests.support.documents import write_docx, write_pdf
from tests.support.openai_server import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(models=["gpt-test"]) as fake:
        yield fake


def test_ask_attach_pdf_and_docx_reach_the_model(server: FakeOpenAIServer,
                                                 tmp_path: Path) -> None:
    pdf = write_pdf(tmp_path / "a.pdf", ["The launch code is PELICAN-42."])
    docx = write_docx(tmp_path / "b.docx", "Minutes", ["Budget approved: 3 million."])
    server.enqueue_text("Noted.")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--attach", str(pdf), "--attach", str(docx), "Summarize both",
                   data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Noted."
    sent = server.last_chat_body["messages"][-1]["content"]
    assert "Summarize both" in sent
    assert "Attached file `a.pdf`" in sent and "The launch code is PELICAN-42." in sent
    assert "Attached file `b.docx`" in sent and "Budget approved: 3 million." in sent


def test_ask_attach_errors_are_one_clear_line(server: FakeOpenAIServer, tmp_path: Path) -> None:
    fake = tmp_path / "fake.pdf"
    fake.write_bytes(b"\x89PNG not really" * 10)
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--attach", str(fake), "Read it", data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 1
    assert done.stderr.strip() == ("assista: error: fake.pdf is not a PDF (its content does not "
                                   "start like one: a damaged download or another kind of file)")
    assert not server.chat_requests


def test_ask_attach_large_file_notes_the_cut(server: FakeOpenAIServer, tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_text("# Log\n" + "entry with some words\n" * 60_000)
    server.enqueue_text("ok")
    done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                   "--attach", str(big), "What is this?", data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    assert "assista: note: big.md was cut to fit the model's context" in done.stderr
    assert "big.md was cut to fit" in server.last_chat_body["messages"][-1]["content"]
