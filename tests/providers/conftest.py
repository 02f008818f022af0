"""Fixtures for the provider tests (shared ones live in tests.support.fixtures)."""

from tests.support.fixtures import fast_retry, openai_server, recorded_sleep

__all__ = ["fast_retry", "openai_server", "recorded_sleep"]
