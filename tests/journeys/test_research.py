"""Journey: a research run in the shipped app, at 1400x900 and 800x600. The person
switches Research on, asks, watches the card above the composer follow the run (its
plan, searches, the sources read, round 2 of 2 while a page is slow), and gets a report
citing the pages read, listed at its end, which ``assista export`` holds as the answer."""

from __future__ import annotations

from desktop.app import AppContext
from desktop.storage.paths import APP_DIR_NAME
from tests.journeys.desktop import Desktop, stored_texts
from tests.journeys.model_server import JourneyModel
from tests.journeys.steps import ask
from tests.support.openai_server import ScriptedResponse, text_stream
from tests.support.research_web import Page, research_web

PAGES = [
    Page("/moon", "How the Moon makes tides",
         "The Moon's gravity pulls the oceans into two bulges.", ("tides", "moon")),
    Page("/sun", "The Sun and the tides", "The Sun's pull is about half the Moon's.",
         ("tides", "sun")),
    Page("/gravity", "Tidal forces", "Tidal force falls with the cube of distance.",
         ("gravity",)),
    Page("/spring", "Spring and neap tides",
         "Spring tides come at new and full moon, neap tides at the quarters.",
         ("spring", "neap"), hold=True),
]
PLAN = ("STEP: Find what pulls the oceans\nSTEP: Compare the Moon and the Sun\n"
        "STEP: Explain spring and neap tides\nQUERY: ocean tides moon\nQUERY: gravity")
REPORT = ("Tides are the oceans pulled into two bulges by the Moon's gravity [1]; the Sun "
          "adds about half as much [2]. Spring tides come at new and full moon [4].")


def test_a_research_run_shows_its_progress_and_ends_in_a_cited_report(
        desktop: Desktop, model: JourneyModel) -> None:
    with research_web(PAGES) as web:
        ctx = AppContext.open(desktop.home / ".local" / "share" / APP_DIR_NAME, environ={},
                              log_to_stderr=False)
        ctx.settings.update(web_search_service="searxng", web_search_url=web.url,
                            fetch_allow_hosts=["127.0.0.1"], research_max_rounds=2)
        ctx.close()
        model.enqueue(ScriptedResponse(chunks=text_stream(PLAN, 6)),
                      ScriptedResponse(chunks=text_stream("QUERY: spring neap tides", 6)),
                      ScriptedResponse(chunks=text_stream(REPORT, 6)))
        desktop.start()
        desktop.click_on(name="Research")
        desktop.wait_for(name="Research", states=["checked"])
        ask(desktop, "What causes ocean tides?")
        # Round 2's page is slow: the card shows the run half-way.
        assert web.holding.wait(60)
        desktop.wait_for(name="Research status", any_contains="(round 2 of 2)")
        desktop.wait_for(any_contains="Sources read (3)", inside="Research progress")
        desktop.wait_for(any_contains="Explain spring and neap tides",
                         inside="Research progress")
        desktop.shot("research-in-progress")
        web.release()
        desktop.wait_for(text_contains="Spring tides come at new and full moon [4].")
        desktop.wait_for(name="Research status", any_contains="Research finished")
        desktop.wait_for(any_contains="Stopped at the limit of 2 search round",
                         inside="Research progress")
        desktop.shot("research-finished")
        desktop.wait_idle()
    answers = [text for role, text in stored_texts(desktop.export()) if role == "assistant"]
    assert answers and answers[-1].startswith(REPORT)
    assert (f"- [1] How the Moon makes tides: {web.url}/moon\n"
            f"- [2] The Sun and the tides: {web.url}/sun\n"
            f"- [4] Spring and neap tides: {web.url}/spring\n") in answers[-1]
    # round 1 read its three pages at once (in any order), round 2 the last one
    assert sorted(web.reads[:3]) == ["/gravity", "/moon", "/sun"]
    assert web.reads[3:] == ["/spring"]
    desktop.assert_clean_log()
