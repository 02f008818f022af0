"""The tool panel shows what search_knowledge and web_search returned: the query, and
each passage with its file path and location (or each result with title and address),
as escaped plain text."""

from __future__ import annotations

import json
from typing import Any

from desktop.core.messages import ToolCallPart, ToolResultPart
from desktop.ui.tools.tool_call_text import result_html, summarize_result
from desktop.ui.tools.tool_card import ToolCallCard


def _result(name: str, value: dict[str, Any]) -> ToolResultPart:
    return ToolResultPart(tool_call_id="c1", name=name,
                          content=json.dumps({"status": "success", "result": value}))


def test_knowledge_passages_in_the_card(qtbot: Any) -> None:
    call = ToolCallPart(id="c1", name="search_knowledge", arguments='{"query": "vault"}')
    card = ToolCallCard(call, "m1")
    qtbot.addWidget(card)
    result = _result("search_knowledge", {"query": "vault <code>", "results": [
        {"n": 1, "path": "/docs/ops/vault.md", "location": "lines 3-9",
         "text": "The <b>combination</b> is 31-7-44."},
        {"n": 2, "path": "/docs/handbook.pdf", "location": "page 2, line 1", "text": "Safe."}]})
    card.finish(result)
    assert card.meta_label.text().endswith("2 passages for “vault <code>”")
    details = card.details_html()
    assert "1. /docs/ops/vault.md · lines 3-9" in details
    assert "2. /docs/handbook.pdf · page 2, line 1" in details
    assert "&lt;b&gt;combination&lt;/b&gt; is 31-7-44." in details
    assert "<b>combination" not in details and "vault &lt;code&gt;" in details


def test_web_results_and_nothing_found() -> None:
    web = _result("web_search", {"query": "assista", "service": "SearXNG", "results": [
        {"n": 1, "title": "Assista notes", "url": "https://example.org/notes",
         "snippet": "Version 2."},
        {"n": 2, "title": "Other", "url": "https://example.net/", "snippet": ""}]})
    assert summarize_result(web) == "2 results for “assista”"
    assert "1. Assista notes · https://example.org/notes" in result_html(web)
    empty = _result("search_knowledge", {"query": "heron", "results": []})
    assert summarize_result(empty) == "0 passages for “heron”"
    assert "Nothing found." in result_html(empty)
    failed = ToolResultPart(tool_call_id="c", name="web_search", is_error=True,
                            content=json.dumps({"status": "error", "error": {
                                "code": "tool_error", "message": "SearXNG answered HTTP 500."}}))
    assert summarize_result(failed) == "SearXNG answered HTTP 500."
