"""Shared test helpers: a fake OpenAI-compatible server, SSE builders, fixtures."""
