"""Pytest fixtures for provider-level tests. Wire them up in a conftest with::

    from tests.support.fixtures import fast_retry, openai_server, recorded_sleep  # noqa: F401

* ``openai_server``: a started :class:`FakeOpenAIServer` (stopped after the test).
* ``recorded_sleep``: a :class:`RecordingSleep`; ``.delays`` lists requested waits.
* ``fast_retry``: a ``RetryPolicy`` that retries (4 times) without really sleeping,
  recording delays in ``recorded_sleep``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from desktop.providers.retry import RetryPolicy
from tests.support.openai_server import FakeOpenAIServer


class RecordingSleep:
    """An ``asyncio.sleep`` stand-in that records each delay and only yields once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)
        await asyncio.sleep(0)

    @property
    def total(self) -> float:
        return sum(self.delays)


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def recorded_sleep() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def fast_retry(recorded_sleep: RecordingSleep) -> RetryPolicy:
    return RetryPolicy(sleep=recorded_sleep)
