"""Embeddings go the providers' way: each embedding API's request is made by its
adapter (checked against a loopback server speaking all three), through the proxy of
Preferences (a real loopback proxy; the environment's proxy variables are not read),
retried like a chat request, with the key never in an error message."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.app import DATABASE_MIGRATIONS
from desktop.core.proxy import Proxy
from desktop.knowledge.embeddings import EmbeddingError, embed, embedding_kinds
from desktop.knowledge.indexer import Indexer
from desktop.knowledge.search import embed_missing, search_base
from desktop.knowledge.store import EmbeddingConfig, KnowledgeStore
from desktop.knowledge.tool import search_knowledge_tool
from desktop.providers.retry import RetryPolicy
from desktop.storage.database import Database
from desktop.tools.registry import ToolContext
from tests.knowledge.embedding_server import EmbeddingServer, bag_of_words
from tests.support.fixtures import RecordingSleep
from tests.support.openai_server import unused_port
from tests.support.proxy_server import LoopbackProxy

KEY = "sk-embed-secret-0123456789"
ENV_NAMES = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
             "all_proxy", "NO_PROXY", "no_proxy")


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


@pytest.fixture
def dead_env_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Proxy variables that would fail every request that read them."""
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)
    dead = f"http://127.0.0.1:{unused_port()}"
    monkeypatch.setenv("HTTP_PROXY", dead)
    monkeypatch.setenv("ALL_PROXY", dead)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(tmp_path / "k.db", migrations=DATABASE_MIGRATIONS)
    yield database
    database.close()


def test_the_embedding_apis_are_those_of_the_adapters() -> None:
    assert embedding_kinds() == ["gemini", "ollama", "openai"]


@pytest.mark.parametrize(("kind", "root", "path", "auth"), [
    ("openai", "/v1", "/v1/embeddings", ("authorization", f"Bearer {KEY}")),
    ("ollama", "", "/api/embed", ("authorization", f"Bearer {KEY}")),
    ("gemini", "/v1beta", "/v1beta/models/text-embedding-004:batchEmbedContents",
     ("x-goog-api-key", KEY)),
])
def test_each_api_is_asked_by_its_adapter(server: EmbeddingServer, kind: str, root: str,
                                          path: str, auth: tuple[str, str]) -> None:
    model = "text-embedding-004" if kind == "gemini" else "embed-test"
    config = EmbeddingConfig(kind=kind, base_url=server.root + root, model=model)
    texts = [f"passage number {n}" for n in range(70)]  # two batches (64 + 6)
    vectors = embed(config, texts, KEY)
    assert vectors == [bag_of_words(t) for t in texts]
    assert server.paths == [path, path]
    assert all(h[auth[0]] == auth[1] for h in server.headers)
    assert server.headers[0]["user-agent"].startswith("AssistaDesktop/")
    first = server.requests[0]
    if kind == "gemini":
        assert first["requests"][0] == {"model": "models/text-embedding-004",
                                        "content": {"parts": [{"text": "passage number 0"}]}}
        assert len(first["requests"]) == 64
    else:
        assert first == {"model": "embed-test", "input": texts[:64]}


def test_indexing_searching_and_the_tool_go_through_the_proxy_of_preferences(
    server: EmbeddingServer, db: Database, tmp_path: Path, dead_env_proxy: None,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "cats.md").write_text("Cats purr and sleep in the sun.")
    (docs / "dogs.md").write_text("Dogs bark at the mail carrier.")
    with LoopbackProxy() as proxy:
        store = KnowledgeStore(db, proxy=Proxy(proxy.url))
        config = EmbeddingConfig(kind="openai", base_url=server.base_url, model="embed-test")
        base = store.add("Pets", [docs], config)
        Indexer(store, base).run()
        assert embed_missing(store, store.get("Pets")) == 2
        assert search_base(store, store.get("Pets"), "why do dogs bark")[0].path.endswith(
            "dogs.md")
        tool = search_knowledge_tool(db, ["Pets"], proxy=Proxy(proxy.url))
        result = asyncio.run(tool.handler({"query": "cats purr"}, ToolContext()))
        assert result["results"][0]["path"].endswith("cats.md")
    url = f"POST {server.base_url}/embeddings"
    assert proxy.seen == [url, url, url]  # the passages, the query, the tool's query
    assert len(server.requests) == 3


def test_without_a_proxy_setting_the_requests_go_direct(
    server: EmbeddingServer, dead_env_proxy: None,
) -> None:
    """Proxy() (Preferences: none, and none in the app's start environment) is direct,
    whatever the process environment says now."""
    config = EmbeddingConfig(kind="ollama", base_url=server.root, model="m")
    assert embed(config, ["one"], proxy=Proxy()) == [bag_of_words("one")]


def test_a_busy_service_is_asked_again_like_a_chat(server: EmbeddingServer) -> None:
    server.failures = [(503, '{"error": "overloaded"}'), (429, '{"error": "slow down"}')]
    sleep = RecordingSleep()
    config = EmbeddingConfig(kind="openai", base_url=server.base_url, model="embed-test")
    vectors = embed(config, ["hello world"], KEY, retry=RetryPolicy(sleep=sleep))
    assert vectors == [bag_of_words("hello world")]
    assert len(server.requests) == 3 and len(sleep.delays) == 2


def test_the_key_never_reaches_an_error_message(server: EmbeddingServer) -> None:
    server.failures = [(401, f'{{"error": {{"message": "Incorrect API key {KEY}"}}}}')]
    config = EmbeddingConfig(kind="openai", base_url=server.base_url, model="embed-test")
    with pytest.raises(EmbeddingError) as caught:
        embed(config, ["hello"], KEY, retry=RetryPolicy.disabled())
    assert "401" in str(caught.value) and KEY not in str(caught.value)


def test_a_reply_without_vectors_is_a_clear_error(server: EmbeddingServer) -> None:
    server.failures = [(200, '{"data": [{"index": 0}]}')]
    config = EmbeddingConfig(kind="openai", base_url=server.base_url, model="embed-test")
    with pytest.raises(EmbeddingError, match="unexpected embedding response"):
        embed(config, ["hello"], retry=RetryPolicy.disabled())


def test_an_api_that_does_not_embed_is_refused() -> None:
    config = EmbeddingConfig(kind="anthropic", base_url="http://127.0.0.1:9", model="m")
    with pytest.raises(EmbeddingError, match="no embedding API 'anthropic'"):
        embed(config, ["hello"])


async def test_embedding_from_inside_a_running_loop(server: EmbeddingServer) -> None:
    """``assista ask --knowledge`` indexes (and embeds) from its coroutine: embed() is
    synchronous and must work there too, as the blocking client it replaced did."""
    config = EmbeddingConfig(kind="openai", base_url=server.base_url, model="embed-test")
    assert embed(config, ["from a coroutine"]) == [bag_of_words("from a coroutine")]
