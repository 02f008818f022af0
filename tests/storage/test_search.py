"""Full-text search: every branch, tool calls and results, titles, non-Latin text."""

from __future__ import annotations

import pytest

from desktop.core.messages import Message, ReasoningPart, TextPart, ToolCallPart, ToolResultPart
from desktop.storage.search import Term, make_snippet, parse_query, variants
from desktop.storage.sessions import SessionStore


def _say(store: SessionStore, session_id: str, text: str, role: str = "user") -> Message:
    message = Message(role=role, parts=[TextPart(text=text)])  # type: ignore[arg-type]
    store.save_message(session_id, message)
    return message


def _ids(store: SessionStore, query: str) -> list[str | None]:
    return [hit.message_id for hit in store.search(query)]


def _marked(snippet: str, spans: tuple[tuple[int, int], ...]) -> list[str]:
    return [snippet[a:b] for a, b in spans]


@pytest.mark.parametrize(
    ("text", "query", "found"),
    [
        ("Привет, мир! Как дела?", "привет", "Привет"),
        ("ПРИВЕТ МИР", "мир", "МИР"),
        ("Новогодняя ёлка горит", "елка", "ёлка"),
        ("Новогодняя ёлка горит", "ёлка", "ёлка"),
        ("Καλημέρα κόσμε", "καλημερα", "Καλημέρα"),
        ("ΚΑΛΗΜΕΡΑ ΚΟΣΜΕ", "καλημέρα", "ΚΑΛΗΜΕΡΑ"),
        ("Ich möchte einen Café au lait", "cafe", "Café"),
        ("naïve résumé façade", "resume", "résumé"),
        ("Tiếng Việt có dấu", "tieng viet", "Tiếng"),
        ("東京タワーに行きました", "東京", "東京"),
        ("東京タワーに行きました", "タワー", "タワー"),
        ("数据库搜索很快", "搜索", "搜索"),
        ("데이터베이스 검색", "검색", "검색"),
        ("ภาษาไทยไม่มีช่องว่าง", "ไทย", "ไทย"),
        ("configuration of the server", "conf", "conf"),
        ("mixed 東京タワー and Latin", "latin 東京タ", "東京タ"),
    ],
)
def test_non_latin_and_accents(store: SessionStore, text: str, query: str, found: str) -> None:
    s = store.create_session("chat")
    message = _say(store, s.id, text)
    _say(store, s.id, "something unrelated entirely")
    hits = store.search(query)
    assert [h.message_id for h in hits] == [message.id]
    assert found in _marked(hits[0].snippet, hits[0].highlights)
    assert hits[0].session_id == s.id and hits[0].role == "user"


def test_tool_arguments_results_titles_and_every_branch(store: SessionStore) -> None:
    s = store.create_session("Kubernetes upgrade plan")
    question = _say(store, s.id, "How do I upgrade?")
    call = Message(
        role="assistant",
        parts=[
            ToolCallPart(id="c1", name="read_file", arguments='{"path": "helmfile.yaml"}'),
            ReasoningPart(text="secretthought"),
        ],
    )
    store.save_message(s.id, call)
    result = Message(
        role="tool",
        parts=[
            ToolResultPart(tool_call_id="c1", name="read_file", content="replicas: 3 zebrafish")
        ],
    )
    store.save_message(s.id, result)
    first = _say(store, s.id, "Answer alpha", "assistant")
    store.start_branch(s.id, first.id)
    second = _say(store, s.id, "Answer omega", "assistant")

    assert _ids(store, "helmfile") == [call.id]
    assert _ids(store, "read_file") == [call.id, result.id][::-1]
    assert _ids(store, "zebrafish") == [result.id]
    assert _ids(store, "secretthought") == []  # reasoning is not indexed
    assert _ids(store, "alpha") == [first.id]  # an inactive branch is found too
    assert _ids(store, "omega") == [second.id]
    assert _ids(store, "answer") == [second.id, first.id]  # newest first
    title_hit = store.search("kubernetes")[0]
    assert (title_hit.message_id, title_hit.session_title) == (None, "Kubernetes upgrade plan")
    assert _marked(title_hit.snippet, title_hit.highlights) == ["Kubernetes"]
    store.rename_session(s.id, "Renamed")
    assert store.search("kubernetes") == []
    assert [h.message_id for h in store.search("renamed")] == [None]
    assert _ids(store, "upgrade") == [question.id]
    assert _ids(store, "How upgrade") == [question.id]  # every word must match
    assert _ids(store, "upgrade nowhere") == []


def test_index_follows_updates_status_and_deletes(store: SessionStore) -> None:
    s = store.create_session()
    streaming = Message(role="assistant", status="streaming", parts=[TextPart(text="partial")])
    store.save_message(s.id, streaming)
    assert _ids(store, "partial") == []  # not indexed while it streams
    streaming.parts = [TextPart(text="partial answer finished")]
    streaming.status = "complete"
    store.save_message(s.id, streaming)
    assert _ids(store, "finished") == [streaming.id]
    streaming.parts = [TextPart(text="rewritten")]
    store.save_message(s.id, streaming)
    assert _ids(store, "finished") == [] and _ids(store, "rewritten") == [streaming.id]
    other = Message(role="assistant", status="streaming", parts=[TextPart(text="crashword")])
    store.save_message(s.id, other)
    store.mark_interrupted()  # interrupted answers become searchable
    assert _ids(store, "crashword") == [other.id]
    store.delete_message(other.id)
    assert _ids(store, "crashword") == []


def test_trash_archive_and_session_filters(store: SessionStore) -> None:
    a = store.create_session("a")
    b = store.create_session("b")
    in_a = _say(store, a.id, "shared needle")
    in_b = _say(store, b.id, "shared needle")
    assert set(_ids(store, "needle")) == {in_a.id, in_b.id}
    store.set_archived(b.id, True)
    assert set(_ids(store, "needle")) == {in_a.id, in_b.id}
    assert [h.archived for h in store.search("needle") if h.message_id == in_b.id] == [True]
    assert _ids(store, "needle") != [
        h.message_id for h in store.search("needle", include_archived=False)
    ]
    assert [h.message_id for h in store.search("needle", session_id=a.id)] == [in_a.id]
    store.delete_session(a.id)
    assert _ids(store, "needle") == [in_b.id]
    store.restore_session(a.id)
    assert len(_ids(store, "needle")) == 2
    store.delete_session(a.id)
    store.purge_deleted()
    assert store.db.query_one("SELECT COUNT(*) FROM search_fts WHERE rowid > 0")[0] == 1  # type: ignore[index]
    assert len(store.search("needle", limit=1)) == 1
    assert store.search("") == [] and store.search("   ") == []


def test_odd_queries_do_not_fail(store: SessionStore) -> None:
    s = store.create_session()
    hit = _say(store, s.id, 'He said "hello" AND left; NEAR(x) * ^ col:val')
    for query in ['"hello', "AND", "NEAR(x)", "*", "^", "col:val", '"', "'", "a OR b", "-"]:
        store.search(query)  # never raises
    assert _ids(store, '"hello said"') == []  # a phrase: the words must be in order
    assert _ids(store, '"he said"') == [hit.id]
    assert _ids(store, "col:val") == [hit.id]


def test_short_words_match_whole_words(store: SessionStore) -> None:
    s = store.create_session()
    ok = _say(store, s.id, "ok then")
    _say(store, s.id, "okra soup")
    assert _ids(store, "ok") == [ok.id]
    assert len(_ids(store, "okr")) == 1


def test_lone_surrogates_do_not_break_search(store: SessionStore) -> None:
    s = store.create_session()
    broken = _say(store, s.id, "broken \ud800 stream text")
    hits = store.search("stream")
    assert [h.message_id for h in hits] == [broken.id]
    assert "\ufffd" in hits[0].snippet or "stream" in hits[0].snippet


def test_query_parsing_and_variants() -> None:
    assert parse_query('  one "two three"  four "five') == [
        Term("one", False),
        Term("two three", True),
        Term("four", False),
        Term("five", True),
    ]
    assert parse_query('""') == []
    assert variants("hello") == ["hello"]
    assert set(variants("κοσμε")) >= {"κοσμε", "κόσμε", "κοσμέ"}
    assert "ёлка" in variants("елка") and "елка" in variants("ёлка")


def test_snippet_window_and_spans() -> None:
    text = "word " * 100 + "the TARGET is here " + "tail " * 100
    snippet, spans = make_snippet(text, [Term("target", False)])
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= 170
    assert _marked(snippet, spans) == ["TARGET"]
    short, spans = make_snippet("Ünïcode ÜNÏCODE", [Term("unicode", False)])
    assert _marked(short, spans) == ["Ünïcode", "ÜNÏCODE"]


def test_snippets_are_plain_text_around_the_match(store: SessionStore) -> None:
    session = store.create_session("Setup").id
    text = ("# Setup guide\n\n**Step one**: install the `assista` package.\n\n"
            + "Some filler text that goes on. " * 12
            + "\n\n## Where things are\n\nThe [settings file](https://example.com/docs) lives "
            "in `~/.config/assista/settings.json` and uses *JSON* syntax.\n\n"
            "```python\nprint('settings')\n```\n")
    _say(store, session, text, role="assistant")
    [hit] = [h for h in store.search("syntax") if h.message_id is not None]
    assert "#" not in hit.snippet and "**" not in hit.snippet and "](" not in hit.snippet
    assert "https://example.com" not in hit.snippet and "`" not in hit.snippet
    assert "uses JSON syntax." in hit.snippet  # the words around the match, not the start
    assert not hit.snippet.startswith("Setup guide")
    assert _marked(hit.snippet, hit.highlights) == ["syntax"]
    [hit] = [h for h in store.search('"settings file"') if h.message_id is not None]
    assert _marked(hit.snippet, hit.highlights) == ["settings file"]
    # a title keeps its own text
    [title] = [h for h in store.search("setup") if h.message_id is None]
    assert title.snippet == "Setup"


def test_markdown_plain_keeps_what_the_chat_shows() -> None:
    from desktop.core.markdown_text import markdown_plain

    text = ("## Title\n> a *quoted* note, snake_case_name and 2*3*4\n"
            "- item [link](http://x.y) and ![alt](a.png)\n1. ~~old~~ <b>bold</b> \\*lit\\*\n"
            "| a | b |\n|---|:-:|\n| 1 | 2 |\n```js\nlet x = **y**;\n```\n---\nend")
    assert markdown_plain(text).split("\n") == [
        "Title", "a quoted note, snake_case_name and 2*3*4", "item link and alt",
        "old bold *lit*", "a b", "1 2", "let x = **y**;", "end"]
