from __future__ import annotations

import email.utils
import time

import httpx
import pytest

from desktop.providers.http_clients import make_async_client
from desktop.providers.retry import (
    RetryPolicy,
    is_retryable_status,
    parse_retry_after,
    redact,
    send_with_retry,
)
from tests.support.fixtures import RecordingSleep


@pytest.mark.parametrize(
    ("status", "retryable"),
    [(400, False), (401, False), (403, False), (404, False), (422, False), (408, True),
     (409, True), (429, True), (500, True), (502, True), (503, True), (529, True)],
)  # fmt: skip
def test_retryable_statuses(status: int, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


class TestBackoff:
    def test_full_jitter_bounds(self) -> None:
        top = RetryPolicy(random=lambda: 1.0)
        assert [top.backoff(a) for a in range(8)] == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
        assert RetryPolicy(random=lambda: 0.0).backoff(3) == 0.0
        assert RetryPolicy(random=lambda: 0.5).backoff(1) == 0.5

    def test_huge_attempt_does_not_overflow(self) -> None:
        assert RetryPolicy(random=lambda: 1.0).backoff(10_000) == 30.0

    def test_retry_after_wins_and_is_capped(self) -> None:
        policy = RetryPolicy(random=lambda: 1.0)
        assert policy.delay(0, {"retry-after": "7"}) == 7.0
        assert policy.delay(0, {"retry-after": "3600"}) == 60.0
        assert policy.delay(2, {}) == 2.0


class TestParseRetryAfter:
    def test_seconds(self) -> None:
        assert parse_retry_after({"retry-after": "3"}) == 3.0
        assert parse_retry_after({"retry-after": " 1.5 "}) == 1.5
        assert parse_retry_after({"retry-after": "-4"}) == 0.0

    def test_milliseconds_take_precedence(self) -> None:
        headers = {"retry-after-ms": "250", "retry-after": "9"}
        assert parse_retry_after(headers) == 0.25

    def test_http_date(self) -> None:
        now = 1_700_000_000.0
        date = email.utils.formatdate(now + 12, usegmt=True)
        assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(12.0)
        past = email.utils.formatdate(now - 100, usegmt=True)
        assert parse_retry_after({"retry-after": past}, now=now) == 0.0

    def test_garbage_and_missing(self) -> None:
        assert parse_retry_after({}) is None
        assert parse_retry_after({"retry-after": "soon"}) is None
        assert parse_retry_after({"retry-after-ms": "nan"}) is None
        assert parse_retry_after({"retry-after-ms": "x", "retry-after": "2"}) == 2.0

    def test_httpx_headers_are_case_insensitive(self) -> None:
        assert parse_retry_after(httpx.Headers({"Retry-After": "4"})) == 4.0


class TestSendWithRetry:
    async def run(
        self, outcomes: list[int | Exception], policy: RetryPolicy
    ) -> tuple[httpx.Response | Exception, int]:
        calls = 0

        def handler(request: httpx.Request) -> httpx.Response:
            nonlocal calls
            outcome = outcomes[min(calls, len(outcomes) - 1)]
            calls += 1
            if isinstance(outcome, Exception):
                raise outcome
            return httpx.Response(outcome, headers={"retry-after-ms": "5"})

        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            request = client.build_request("POST", "http://test/v1/chat/completions")
            try:
                result: httpx.Response | Exception = await send_with_retry(client, request, policy)
            except Exception as exc:
                result = exc
        return result, calls

    async def test_retries_statuses_then_succeeds(self) -> None:
        sleep = RecordingSleep()
        result, calls = await self.run([503, 429, 200], RetryPolicy(sleep=sleep))
        assert isinstance(result, httpx.Response) and result.status_code == 200
        assert calls == 3
        assert sleep.delays == [0.005, 0.005]

    async def test_gives_back_last_response_when_exhausted(self) -> None:
        sleep = RecordingSleep()
        result, calls = await self.run([500], RetryPolicy(max_retries=2, sleep=sleep))
        assert isinstance(result, httpx.Response) and result.status_code == 500
        assert calls == 3

    async def test_transport_errors_retried_then_raised(self) -> None:
        sleep = RecordingSleep()
        refused = httpx.ConnectError("Connection refused")
        result, calls = await self.run([refused], RetryPolicy(max_retries=3, sleep=sleep))
        assert isinstance(result, httpx.ConnectError)
        assert calls == 4
        assert len(sleep.delays) == 3

    async def test_read_timeout_before_headers_is_not_retried(self) -> None:
        """A server that took the request and said nothing for the whole timeout is not
        asked four more times (~10 minutes at the default timeout)."""
        sleep = RecordingSleep()
        result, calls = await self.run([httpx.ReadTimeout("slow"), 200], RetryPolicy(sleep=sleep))
        assert isinstance(result, httpx.ReadTimeout)
        assert calls == 1 and sleep.delays == []

    async def test_non_retryable_status_and_errors(self) -> None:
        sleep = RecordingSleep()
        result, calls = await self.run([400, 200], RetryPolicy(sleep=sleep))
        assert isinstance(result, httpx.Response) and result.status_code == 400
        assert calls == 1
        bad_url = httpx.UnsupportedProtocol("no scheme")
        result, calls = await self.run([bad_url], RetryPolicy(sleep=sleep))
        assert isinstance(result, httpx.UnsupportedProtocol) and calls == 1
        assert sleep.delays == []

    async def test_disabled_policy(self) -> None:
        result, calls = await self.run([503, 200], RetryPolicy.disabled())
        assert isinstance(result, httpx.Response) and result.status_code == 503
        assert calls == 1


async def test_client_factory_timeouts_and_proxy_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
    client = make_async_client(timeout=45)
    try:
        assert client.timeout.connect == 10.0
        assert client.timeout.read == 45.0
        assert client.trust_env is True
        # The proxy from the environment is mounted for https, bypassed for NO_PROXY hosts.
        patterns = {p.pattern for p in client._mounts}
        assert "https://" in patterns
        assert any("127.0.0.1" in p for p in patterns)
    finally:
        await client.aclose()


class TestRedact:
    def test_known_secret_is_masked(self) -> None:
        key = "my-private-key-123"
        assert redact(f"bad key {key}!", [key]) == "bad key ***!"
        assert redact("short ab", ["ab"]) == "short ab"  # too short to mask safely

    @pytest.mark.parametrize(
        ("text", "leak"),
        [
            ("Authorization: Bearer abcDEF123456.xyz", "abcDEF123456"),
            ("Incorrect API key provided: sk-proj-AbCdEf1234567890", "AbCdEf1234567890"),
            ("sk-or-v1-0123456789abcdef0123456789abcdef", "0123456789abcdef"),
            ("gsk_ABCDEFGH12345678 rejected", "ABCDEFGH12345678"),
            ("GET https://x.test/v1/models?key=AIzaSyA1234567890abcdefghijk&alt=sse", "AIzaSy"),
            ("https://x.test/v1?api_key=topsecret&x=1", "topsecret"),
            ('{"x-api-key": "abcdefgh12345678"}', "abcdefgh12345678"),
        ],
    )
    def test_generic_shapes(self, text: str, leak: str) -> None:
        out = redact(text)
        assert leak not in out
        assert "***" in out

    def test_innocent_text_untouched(self) -> None:
        text = "could not connect to http://localhost:1234/v1 (task-runner failed)"
        assert redact(text) == text


def test_recording_sleep_fixture_is_fast(recorded_sleep: RecordingSleep) -> None:
    start = time.perf_counter()
    policy = RetryPolicy(sleep=recorded_sleep)
    assert policy.sleep is recorded_sleep
    assert time.perf_counter() - start < 1
