"""What starting the app loads: slow libraries wait until they are first needed.

Each check runs a fresh interpreter (``sys.modules`` of the test process already holds
everything), so it sees exactly what an import of the app loads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.app import AppContext
from desktop.knowledge.tool import search_knowledge_tool
from desktop.storage.database import Database
from desktop.storage.secrets import SecretStore
from desktop.tools import builtin_registry
from desktop.tools.builtins.remember import Remember
from desktop.tools.builtins.web_search import WebSearchConfig, web_search_tool
from desktop.tools.registry import Tool, ToolContext

ROOT = Path(__file__).resolve().parents[2]

#: Loaded on first use, never by opening the data folder: jsonschema (first tool
#: call), keyring (first key), the agent loop, the tool executor, the MCP config
#: models and SDK, the provider adapters.
LAZY = ["jsonschema", "keyring", "mcp", "desktop.core.orchestrator", "desktop.tools.executor",
        "desktop.tools.mcp.config", "desktop.providers.openai_chat", "desktop.providers.retry",
        "desktop.storage.secrets"]


def loaded_after(code: str, names: list[str]) -> dict[str, bool]:
    """Run ``code`` in a new interpreter; which of ``names`` are then in sys.modules."""
    probe = (f"{code}\nimport json, sys\n"
             f"print(json.dumps({{n: n in sys.modules for n in {names!r}}}))")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    result: dict[str, bool] = json.loads(out.strip().splitlines()[-1])
    return result


def test_opening_the_data_folder_loads_no_slow_library(tmp_path: Path) -> None:
    code = ("from desktop.app import AppContext\n"
            f"ctx = AppContext.open({str(tmp_path / 'data')!r}, environ={{}}, "
            "log_to_stderr=False)\n"
            "ctx.providers.all(); ctx.registry.names(); ctx.close()")
    loaded = loaded_after(code, LAZY)
    assert not any(loaded.values()), [name for name, yes in loaded.items() if yes]


def test_the_window_module_loads_no_slow_library() -> None:
    # (The window's controller runs turns, so it does load the agent loop.)
    lazy = [name for name in LAZY if name != "desktop.core.orchestrator"]
    loaded = loaded_after("import desktop.gui", lazy)
    assert not any(loaded.values()), [name for name, yes in loaded.items() if yes]


def test_a_key_opens_the_secret_store_on_first_use(tmp_path: Path) -> None:
    ctx = AppContext.open(tmp_path / "data", environ={}, log_to_stderr=False)
    try:
        assert ctx._secrets is None
        store = ctx.secrets
        assert isinstance(store, SecretStore) and ctx.secrets is store
        replacement = SecretStore(tmp_path / "keys.json", force_file=True)
        ctx.secrets = replacement
        replacement.set("p1", "sk-test-123456")
        assert ctx.secrets.get("p1") == "sk-test-123456"
    finally:
        ctx.close()


def test_every_builtin_schema_is_valid_and_its_validator_built_on_first_use() -> None:
    registry = builtin_registry()
    assert len(registry) == 8
    for tool in registry:
        assert tool._validator is None  # not built when the registry is made
        validator = tool.validator  # checks the schema (raises ValueError if invalid)
        assert tool.validator is validator
        assert tool._validator is validator


async def _handler(args: dict[str, Any], ctx: ToolContext) -> Any:
    return args


def test_a_deferred_tool_reports_a_bad_schema_when_first_used() -> None:
    bad = {"type": "object", "properties": {"x": {"type": 5}}}
    tool = Tool("late", "checked later", bad, _handler, deferred_check=True)
    with pytest.raises(ValueError, match="invalid parameters schema"):
        _ = tool.validator
    # Other tools are checked when made.
    with pytest.raises(ValueError, match="invalid parameters schema"):
        Tool("early", "checked now", bad, _handler)


def test_deferred_validators_still_validate() -> None:
    fetch_url = builtin_registry().get("fetch_url")
    assert fetch_url is not None
    assert list(fetch_url.validator.iter_errors({"url": "https://example.org"})) == []
    assert list(fetch_url.validator.iter_errors({"url": 5}))


def test_the_tools_a_question_adds_check_their_schema_on_first_use(tmp_path: Path) -> None:
    """A chat's first question builds its turn's tools (remember, and web search or the
    knowledge search when on): building them loads no jsonschema (~45 ms when the first
    question was typed while the window loaded); each schema is checked on first use."""
    db = Database(tmp_path / "k.db")
    try:
        tools = [Remember.tool(lambda fact: ("m1", fact)),
                 web_search_tool(WebSearchConfig("searxng", "http://127.0.0.1:9")),
                 search_knowledge_tool(db, ["notes"])]
    finally:
        db.close()
    for tool in tools:
        assert tool._validator is None, tool.name  # not built when the turn starts
        assert tool.validator is tool._validator  # checks the schema (ValueError if bad)


def test_option_models_nobody_uses_are_built_on_first_use(tmp_path: Path) -> None:
    """The window's load steps and opening the data (one OpenAI provider) build no
    pydantic schema for the other kinds' options or MCP servers; they validate as
    before once used."""
    probe = (
        "import importlib, json\n"
        "from pydantic import ValidationError\n"
        "from desktop.app import AppContext\n"
        "from desktop.gui.load_steps import LOAD_STEPS\n"
        "for name in LOAD_STEPS: importlib.import_module(name)\n"
        f"ctx = AppContext.open({str(tmp_path / 'data')!r}, environ={{\n"
        "    'OPENAI_API_KEY': 'k', 'OPENAI_BASE_URL': 'http://127.0.0.1:9/v1'},\n"
        "    log_to_stderr=False)\n"
        "kinds = [config.kind for config in ctx.providers.all()]\n"
        "from desktop.core import provider_options as po\n"
        "from desktop.tools.mcp.config import McpServerConfig\n"
        "built = {c.__name__: c.__pydantic_complete__ for c in (\n"
        "    po.AnthropicOptions, po.GeminiOptions, po.OllamaOptions, po.ResponsesOptions,\n"
        "    McpServerConfig)}\n"
        "options = po.options_for('anthropic', {'temperature': 'hot', 'max_tokens': 50})\n"
        "try:\n"
        "    McpServerConfig(name='')\n"
        "    refused = False\n"
        "except ValidationError:\n"
        "    refused = True\n"
        "ctx.close()\n"
        "print(json.dumps([kinds, built, options.max_tokens,\n"
        "                  getattr(options, 'temperature', None), refused]))")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    kinds, built, max_tokens, temperature, refused = json.loads(out.strip().splitlines()[-1])
    assert kinds == ["openai"]
    assert not any(built.values()), built
    assert (max_tokens, temperature, refused) == (50, None, True)


#: Not needed to send a plain question (in the chat the user was in) and stream its
#: answer, so loaded when first used: compare, the model-written titles (once the answer
#: is complete), keeping files for undo around a tool call that changes them, reading a
#: fetched HTML page, the Images API of image-generation models.
NOT_FOR_A_PLAIN_QUESTION = [
    "desktop.chat.compare", "desktop.chat.compare_run", "desktop.chat.titling",
    "desktop.chat.title_request", "desktop.tools.checkpoint_guards",
    "desktop.tools.workspace_snapshot", "desktop.tools.builtins._html",
    "desktop.providers.images_api"]

ASK_ONE_QUESTION = """
import asyncio, json, sys
from desktop.app import AppContext
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.core.events import TextDelta
from desktop.core.settings import ProviderConfig
from desktop.storage.secrets import SecretStore
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream

async def ask(service, chat, question):
    # what was loaded when the answer's first words came, the answer, and the chat's
    # title once its title request (a new chat's) is over
    at_first_token = []
    def observe(event):
        if isinstance(event, TextDelta) and not at_first_token:
            at_first_token.extend(sorted(sys.modules))
    turn = service.start(chat, question)
    service.observe(turn.session_id, observe)
    await service.wait_idle()
    await service.titles.wait()
    answer = ctx.sessions.load_active_branch(turn.session_id).messages[-1]
    return at_first_token, answer.text, ctx.sessions.get_session(turn.session_id).title

with FakeOpenAIServer(models=["gpt-test"]) as server:
    ctx = AppContext.open(sys.argv[1], environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    config = ProviderConfig(name="Loopback", preset="custom", base_url=server.base_url,
                            model="gpt-test")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-loopback-key-123456")
    ctx.settings.update(active_provider_id=config.id)
    sid = ctx.sessions.create_session(title="Earlier", provider_id=config.id,
                                      model="gpt-test").id
    service = ChatService(ctx, write_titles=True)  # (as the window's)
    server.enqueue(ScriptedResponse(chunks=text_stream("Paris.")))
    in_a_chat = asyncio.run(ask(service, sid, "What is the capital of France?"))
    server.enqueue(ScriptedResponse(chunks=text_stream("Rome.")))
    server.enqueue(ScriptedResponse(chunks=text_stream("Capital of Italy")))  # (its title)
    in_a_new_chat = asyncio.run(ask(service, NewChat(), "And of Italy?"))
    ctx.close()
print(json.dumps({"in_a_chat": in_a_chat, "in_a_new_chat": in_a_new_chat}))
"""


def test_a_plain_question_is_sent_without_what_only_some_questions_use(
        tmp_path: Path) -> None:
    """The question typed while the window loads is sent as soon as a turn can run:
    what a plain question does not use is not loaded before it (each ~2-7 ms)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    proc = subprocess.run([sys.executable, "-c", ASK_ONE_QUESTION, str(tmp_path / "data")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    at_first_token, answer, title = report["in_a_chat"]
    assert (answer, title) == ("Paris.", "Earlier")
    loaded = set(at_first_token)
    assert "desktop.providers.openai_chat" in loaded  # (the answer was streaming)
    assert [name for name in NOT_FOR_A_PLAIN_QUESTION if name in loaded] == []
    # A new chat is told to the titler when it is made, before its question is sent;
    # the title request's module loads after the answer, and the title comes.
    at_first_token, answer, title = report["in_a_new_chat"]
    assert (answer, title) == ("Rome.", "Capital of Italy")
    assert "desktop.chat.titling" in at_first_token
    assert "desktop.chat.title_request" not in at_first_token
