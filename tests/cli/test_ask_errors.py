"""``assista ask`` reports a provider's failure as one English line (the window words
the same error by its code in the interface language; the terminal does not)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_ask_export import KEY, assista
from tests.support.openai_server import FakeOpenAIServer


def test_a_refused_key_is_one_english_line_whatever_the_locale(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_error(401, "Incorrect API key provided", code="invalid_api_key")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test", "hi",
                       data_dir=tmp_path, env={**KEY, "LANG": "zh_CN.UTF-8",
                                               "LANGUAGE": "zh_CN", "LC_ALL": "zh_CN.UTF-8"})
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "(HTTP 401): Incorrect API key provided (check the API key)" in lines[0]
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in done.stderr)  # no Chinese
