"""Research runs against a loopback web (a SearXNG and its pages) and a loopback
model: a cited report of the pages actually read; each limit (rounds, time, cost)
stops the run and the report says so; Stop keeps what was found."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.chat.events import ChatEvent, TurnFailed
from desktop.chat.profile import NewChat
from desktop.chat.research.progress import ResearchLimits, ResearchProgress
from desktop.chat.service import ChatService
from desktop.core.errors import ConfigError
from desktop.core.messages import Message, SourcesPart
from desktop.core.settings import ModelPrice
from desktop.knowledge.indexer import Indexer
from desktop.knowledge.store import KnowledgeStore
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.support.research_web import Page, ResearchWeb, research_web

PAGES = [
    Page("/solar", "Solar panel efficiency",
         "Typical silicon panels convert about 20 percent of sunlight into electricity.",
         ("solar", "panels")),
    Page("/perovskite", "Perovskite cells",
         "Perovskite tandem cells reached 33 percent in the lab.", ("perovskite",)),
    Page("/wind", "Wind turbines", "Turbines are tall.", ("wind",)),
]
PLAN = ("STEP: Find how efficient solar panels are\nSTEP: Look at new cell types\n"
        "QUERY: solar panels efficiency")
REPORT = "Silicon panels convert about 20 percent [1]. Perovskite tandems reached 33 percent [2]."


@pytest.fixture
def web(ctx: AppContext) -> Iterator[ResearchWeb]:
    with research_web([Page(p.path, p.title, p.body, p.topics) for p in PAGES]) as site:
        ctx.settings.update(web_search_service="searxng", web_search_url=site.url,
                            fetch_allow_hosts=["127.0.0.1"])
        yield site


def _script(server: FakeOpenAIServer, *answers: str) -> None:
    for answer in answers:
        server.enqueue(ScriptedResponse(chunks=text_stream(answer, 8)))


async def _research(service: ChatService, limits: ResearchLimits,
                    question: str = "How efficient are solar panels?"
                    ) -> tuple[str, list[ChatEvent]]:
    events: list[ChatEvent] = []
    turn = service.start(NewChat(), question, research=limits)
    service.observe(turn.session_id, events.append)
    await service.wait_idle()
    return turn.session_id, events


def _report(ctx: AppContext, sid: str) -> Message:
    messages = ctx.sessions.load_messages(sid)
    assert [m.role for m in messages] == ["user", "assistant"]
    return messages[1]


def _listed(text: str) -> dict[int, str]:
    """The report's source list: number -> address."""
    sources = text.split("## Sources", 1)[1]
    return {int(n): url for n, url in re.findall(r"^- \[(\d+)\] .*?: (\S+)$", sources, re.M)}


def _last_progress(events: list[ChatEvent]) -> ResearchProgress:
    return [e for e in events if isinstance(e, ResearchProgress)][-1]


async def test_a_research_run_writes_a_report_citing_the_pages_it_read(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    _script(server, PLAN, "QUERY: perovskite cells record", "DONE", REPORT)
    sid, events = await _research(service, ResearchLimits(max_rounds=3))
    assert web.searches == ["solar panels efficiency", "perovskite cells record"]
    assert sorted(web.reads) == sorted(["/solar", "/perovskite"])
    report = _report(ctx, sid)
    assert report.status == "complete"
    assert report.text.startswith(REPORT)
    listed = _listed(report.text)
    assert listed == {1: web.page_url("/solar"), 2: web.page_url("/perovskite")}
    body = report.text.split("## Sources")[0]
    for n in {int(n) for n in re.findall(r"\[(\d+)\]", body)}:
        assert listed[n] in [web.page_url(path) for path in web.reads]
    sources = next(p for p in report.parts if isinstance(p, SourcesPart)).sources
    assert [(s.title, s.url) for s in sources] == [
        ("Solar panel efficiency", web.page_url("/solar")),
        ("Perovskite cells", web.page_url("/perovskite"))]
    # The report was written from the pages' own text, numbered as cited.
    asked = server.chat_requests[3].json["messages"][-1]["content"]
    assert "[1] Solar panel efficiency" in asked and "about 20 percent of sunlight" in asked
    assert "33 percent in the lab" in asked
    last = _last_progress(events)
    assert (last.phase, last.stop, last.round) == ("done", "done", 2)
    assert last.plan == ("Find how efficient solar panels are", "Look at new cell types")
    assert last.queries == ("solar panels efficiency", "perovskite cells record")
    assert [url for _title, url in last.pages] == [web.page_url("/solar"),
                                                   web.page_url("/perovskite")]
    assert last.tokens == 4 * 15  # four requests of 10 + 5 tokens
    assert report.usage is not None and report.usage.total_tokens == 60
    phases = [e.phase for e in events if isinstance(e, ResearchProgress)]
    assert phases.index("searching") < phases.index("reading") < phases.index("writing")


async def test_the_round_limit_stops_the_research_and_the_report_says_so(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    _script(server, PLAN, "Silicon panels convert about 20 percent [1], or more [7].")
    sid, events = await _research(service, ResearchLimits(max_rounds=1))
    assert len(server.chat_requests) == 2  # the plan, then the report: no "what next?"
    assert web.reads == ["/solar"]
    assert _last_progress(events).stop == "rounds"
    report = _report(ctx, sid).text
    assert "stopped at its limit of 1 search rounds" in report
    assert _listed(report) == {1: web.page_url("/solar")}
    assert "*[7] cites no source that was read.*" in report  # (the model made it up)


async def test_the_time_limit_stops_the_research_and_the_report_says_so(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    ticks = iter(range(0, 100_000, 40))  # every look at the clock: 40 s later
    limits = ResearchLimits(max_rounds=5, max_seconds=120, clock=lambda: float(next(ticks)))
    _script(server, "QUERY: solar panels\nQUERY: perovskite cells",
            "Silicon panels convert about 20 percent [1].")
    sid, events = await _research(service, limits)
    last = _last_progress(events)
    assert last.stop == "time" and last.elapsed_s >= 120
    assert len(server.chat_requests) == 2  # the plan and the report
    assert len(web.searches) < 2 or len(web.reads) < 2  # it did not finish its round
    report = _report(ctx, sid).text
    assert "stopped at its time limit of 2 minutes" in report


async def test_the_cost_ceiling_stops_the_model_requests_and_the_report_says_so(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    # $1000 per million tokens: each request (10 + 5 tokens) costs $0.015.
    ctx.settings.update(prices={"gpt-test": ModelPrice(input=1000, output=1000)})
    _script(server, PLAN, "QUERY: perovskite cells")
    sid, events = await _research(service, ResearchLimits(max_rounds=5, max_cost=0.02))
    assert len(server.chat_requests) == 2  # at $0.03 no further request was made
    assert sorted(web.reads) == sorted(["/solar", "/perovskite"])
    last = _last_progress(events)
    assert last.stop == "cost" and last.cost == pytest.approx(0.03)
    report = _report(ctx, sid)
    assert "stopped at its cost ceiling of $0.02" in report.text
    assert "about 20 percent of sunlight" in report.text  # what was found is kept
    assert _listed(report.text) == {1: web.page_url("/solar"), 2: web.page_url("/perovskite")}


async def test_stop_keeps_a_partial_report_of_what_was_found(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    _script(server, PLAN)
    held = ScriptedResponse(chunks=text_stream("QUERY: perovskite cells", 8), hold_after=1)
    server.enqueue(held)  # "what next?" hangs: the user stops the research
    events: list[ChatEvent] = []
    turn = service.start(NewChat(), "How efficient are solar panels?",
                         research=ResearchLimits(max_rounds=5))
    service.observe(turn.session_id, events.append)
    assert await asyncio.to_thread(held.holding.wait, 10)
    service.stop(turn.session_id)
    await service.wait_idle()
    held.release()
    report = _report(ctx, turn.session_id)
    assert report.status == "stopped"
    assert "research was stopped before it finished" in report.text
    assert "about 20 percent of sunlight" in report.text
    assert _listed(report.text) == {1: web.page_url("/solar")}
    assert _last_progress(events).stop == "stopped"


async def test_stop_while_the_report_streams_keeps_it_with_its_sources(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    _script(server, PLAN)
    held = ScriptedResponse(chunks=text_stream(REPORT, 10), hold_after=4)
    server.enqueue(held)
    turn = service.start(NewChat(), "How efficient are solar panels?",
                         research=ResearchLimits(max_rounds=1))
    assert await asyncio.to_thread(held.holding.wait, 10)
    while "Silicon" not in turn.streamed_text():  # what was sent reached the chat
        await asyncio.sleep(0)
    shown = turn.streamed_text()
    service.stop(turn.session_id)
    await service.wait_idle()
    held.release()
    report = _report(ctx, turn.session_id)
    assert report.status == "stopped"
    assert report.text.startswith(shown) and shown.startswith("Silicon")
    assert "research was stopped before it finished" in report.text
    assert _listed(report.text) == {1: web.page_url("/solar")}


async def test_research_without_anything_to_search_says_what_to_do(
        service: ChatService, ctx: AppContext) -> None:
    with pytest.raises(ConfigError) as raised:
        service.start(NewChat(), "Anything?", research=ResearchLimits())
    assert raised.value.code == "research_no_search"
    assert ctx.sessions.list_sessions() == []


async def test_research_searches_the_chats_knowledge_bases(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        tmp_path: Path) -> None:
    notes = tmp_path / "garden.txt"
    notes.write_text("Our tomatoes ripen in August, after the beans.\n", encoding="utf-8")
    store = KnowledgeStore(ctx.db)
    Indexer(store, store.add("garden", [notes])).run()
    _script(server, "QUERY: tomatoes ripen", "The tomatoes ripen in August [1].")
    events: list[ChatEvent] = []
    turn = service.start(NewChat(knowledge=["garden"]), "When do the tomatoes ripen?",
                         research=ResearchLimits(max_rounds=1))
    service.observe(turn.session_id, events.append)
    await service.wait_idle()
    report = _report(ctx, turn.session_id).text
    assert report.startswith("The tomatoes ripen in August [1].")
    assert re.search(rf"^- \[1\] garden\.txt.*: {re.escape(str(notes))}$", report, re.M)
    asked = server.chat_requests[1].json["messages"][-1]["content"]
    assert "Our tomatoes ripen in August" in asked  # the passage found, for the report
    assert _last_progress(events).pages[0][1] == str(notes)


async def test_a_failing_model_keeps_what_was_found_and_says_why(
        service: ChatService, server: FakeOpenAIServer, ctx: AppContext,
        web: ResearchWeb) -> None:
    _script(server, PLAN)
    server.enqueue(ScriptedResponse.error(400, "context length exceeded"))
    events: list[ChatEvent] = []
    turn = service.start(NewChat(), "How efficient are solar panels?",
                         research=ResearchLimits(max_rounds=3))
    service.observe(turn.session_id, events.append)
    await service.wait_idle()
    report = _report(ctx, turn.session_id)
    assert report.status == "error"
    assert "The research failed:" in report.text and "context length" in report.text
    assert "about 20 percent of sunlight" in report.text  # the page read is kept
    assert _listed(report.text) == {1: web.page_url("/solar")}
    assert _last_progress(events).stop == "failed"
    failed = next(e for e in events if isinstance(e, TurnFailed))
    # Its code goes with it, for the window to word it in the user's language.
    assert failed.info is not None and failed.info.code == "context_too_long"
    assert service.state(turn.session_id) == "failed"
