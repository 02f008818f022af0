"""The model the journeys talk to: an OpenAI-compatible server on loopback that answers
what the test scripted, in order, and the app's own side requests (a chat's title) on
their own, so a title request never takes an answer meant for the chat."""

from __future__ import annotations

from tests.support.openai_server import (
    CHAT_PATH,
    FakeOpenAIServer,
    RecordedRequest,
    ScriptedResponse,
    text_stream,
)

TITLE_MARK = "title for this conversation"


def is_title_request(request: RecordedRequest) -> bool:
    return TITLE_MARK in request.body.decode("utf-8", "replace")


def last_user_text(request: RecordedRequest) -> str:
    try:
        messages = request.json.get("messages", [])
    except ValueError:
        return ""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


class JourneyModel(FakeOpenAIServer):
    """Scripted answers in order; titles answered apart; with nothing scripted, an
    answer that quotes the question and names the model ("You asked: ... (model)")."""

    def __init__(self) -> None:
        super().__init__(models=("gpt-journey", "gpt-journey-mini", "gpt-other"))

    def wait_for_path(self, suffix: str, timeout: float = 60) -> None:
        """Until a request for a path ending in ``suffix`` arrived (the server's own
        condition, notified on every request)."""
        with self._request_seen:
            if not self._request_seen.wait_for(
                    lambda: any(r.path.split("?")[0].endswith(suffix) for r in self.requests),
                    timeout):
                raise AssertionError(f"no request for *{suffix} arrived")

    @property
    def answer_requests(self) -> list[RecordedRequest]:
        return [r for r in self.chat_requests if not is_title_request(r)]

    def _response_for(self, request: RecordedRequest) -> ScriptedResponse:
        path = request.path.split("?")[0]
        if path == CHAT_PATH and request.method == "POST":
            if is_title_request(request):
                return ScriptedResponse(chunks=text_stream("Journey chat", 4))
            if not self.pending(CHAT_PATH):
                question = last_user_text(request)[:60]
                model = str(request.json.get("model", ""))
                return ScriptedResponse(chunks=text_stream(
                    f"You asked: {question} ({model})", 4))
        return super()._response_for(request)
