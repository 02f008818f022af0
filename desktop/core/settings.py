"""One typed source of defaults for the app and for provider configurations."""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from desktop.core.messages import new_id
from desktop.core.provider_options import ProviderOptions, options_for

log = logging.getLogger(__name__)

LimitBehavior = Literal["stop", "confirm"]
ProviderSource = Literal["user", "environment", "detected"]


class ProviderConfig(BaseModel):
    """A configured provider. The API key is never stored here (see storage.secrets)."""

    id: str = Field(default_factory=lambda: new_id("prov_"))
    name: str
    kind: str = "openai"  # wire API: openai (Chat Completions), later anthropic, gemini, ...
    preset: str = "custom"
    base_url: str
    model: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    source: ProviderSource = "user"
    api_key_env: str | None = None  # for source="environment": the variable holding the key
    timeout_s: float = 120.0
    # The options model of ``kind`` (desktop.core.provider_options): request defaults,
    # the adapter's switches, capability overrides.
    options: ProviderOptions = Field(default_factory=lambda: options_for("openai", {}))

    @model_validator(mode="before")
    @classmethod
    def _options_of_its_kind(cls, data: Any) -> Any:
        """Options stored as a plain dict (older settings) or given for another kind
        become this kind's model, leniently: a bad key is dropped, never fatal."""
        if not isinstance(data, dict):
            return data
        kind = str(data.get("kind") or "openai")
        raw = data.get("options")
        if isinstance(raw, BaseModel):
            if getattr(raw, "kind", None) == kind:
                return data
            raw = raw.model_dump(exclude_defaults=True)
        owner = f"provider {data.get('name') or data.get('id') or '?'}"
        if raw is not None and not isinstance(raw, dict):
            log.warning("%s: ignoring options that are not a mapping", owner)
            raw = None
        return {**data, "options": options_for(kind, raw, owner=owner)}


class AgentSettings(BaseModel):
    max_iterations: int = Field(default=8, ge=1, le=100)
    tool_round_limit: int = Field(default=5, ge=1, le=100)
    limit_behavior: LimitBehavior = "confirm"
    tool_timeout_s: float = Field(default=60.0, gt=0)


class ModelPrice(BaseModel):
    """A user-entered price in US dollars per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)


class AppSettings(BaseModel):
    """User preferences stored as one JSON document in the settings table."""

    agent: AgentSettings = Field(default_factory=AgentSettings)
    active_provider_id: str | None = None
    workspace: str | None = None
    # Built-in tools offered to the model (each still obeys its approval policy).
    enabled_tools: list[str] = Field(
        default_factory=lambda: ["read_file", "list_directory", "search_files", "write_file",
                                 "create_file", "edit_file", "run_command", "fetch_url"]
    )
    system_prompt: str = (
        "You are Assista, a helpful assistant running in a desktop app. "
        "Use the available tools when they help answer the user's question. "
        "Format answers in Markdown."
    )
    custom_instructions: str = ""  # added to every chat's system prompt
    # Memory (desktop.storage.memories): off pauses it: no memory is read or written.
    memory_enabled: bool = True
    default_assistant_id: str | None = None
    # When a chat outgrows the model's context window: drop the oldest turns, or
    # replace them with a summary.
    context_overflow: Literal["drop", "summarize"] = "drop"
    trash_retention_days: int = Field(default=30, ge=0, le=3650)
    theme: Literal["system", "light", "dark", "high_contrast"] = "system"
    # With a tray icon: closing the window keeps the app running there (its Quit quits).
    keep_in_tray: bool = False
    # The system-wide key combination that opens the quick-ask window (Qt's portable
    # text, "" for none); the same as the File menu's, so one combination everywhere.
    quick_shortcut: str = Field(default="Ctrl+Shift+Space", max_length=64)
    # Look for a new version at most once a day (never in portable mode), in a release
    # feed in GitHub's Releases API format; empty URL: the project's own releases.
    check_updates: bool = True
    update_feed_url: str = ""
    # The interface's base font size in points, before the zoom (0: the platform's).
    base_font_pt: float = Field(default=0.0, ge=0, le=40)
    # The interface language: "" follows the system's, else a translation's code
    # ("de", "zh_CN": desktop/ui/i18n.py LANGUAGES). Read at start.
    language: str = Field(default="", pattern=r"^([a-z]{2,3}(_[A-Z]{2})?)?$")
    # Approval policy per tool name ("allow" | "ask" | "deny"), over each tool's default.
    tool_policies: dict[str, Literal["allow", "ask", "deny"]] = Field(default_factory=dict)
    # Hosts, addresses or networks (127.0.0.1, .corp.example, 10.0.0.0/8) fetch_url may
    # reach although they are local or private (refused by default: a page could make
    # the model fetch the router or a cloud metadata service).
    fetch_allow_hosts: list[str] = []
    # Environment variables run_command passes on besides its scrubbed base set (names;
    # keys and tokens stay out unless named here).
    command_env: list[str] = []
    # run_command in the operating system's sandbox (desktop.tools.sandbox) where there is
    # one: read-only system, the workspace writable, a private /tmp; and whether commands
    # may use the network there (off: not even this computer's servers).
    command_sandbox: bool = True
    command_network: bool = False
    # Agent Skills switched off for every chat (names; desktop.skills.catalog).
    disabled_skills: list[str] = []
    # MCP servers, as desktop.tools.mcp.config.McpServerConfig dictionaries.
    mcp_servers: list[dict[str, Any]] = []
    # One proxy for every request the app makes (providers, model lists, fetch_url,
    # MCP over HTTP): http://, https:// or socks5:// URL; empty = system settings.
    proxy_url: str = ""
    no_proxy: str = "localhost,127.0.0.1,::1"
    request_timeout_s: float = Field(default=120.0, ge=5, le=3600)
    # Requests one provider streams at once (chats answering together); more wait.
    max_concurrent_requests: int = Field(default=4, ge=1, le=32)
    # After a new chat's first answer, ask its model for a short title (off: the first
    # line of the first message stays the title).
    model_titles: bool = True
    # Who writes those titles: a provider (id) and model; "" : the chat's own model (no
    # model named: that provider's default model).
    title_provider_id: str = ""
    title_model: str = ""
    # Read aloud: a provider (id) and its speech model (/audio/speech); no model: the
    # system's voice. Dictation: a provider and its transcription model.
    speech_provider_id: str = ""
    speech_model: str = Field(default="", max_length=200)
    speech_voice: str = Field(default="alloy", max_length=100)
    transcription_provider_id: str = ""
    transcription_model: str = Field(default="", max_length=200)
    # Per-model prices (exact model id -> price) that win over the built-in table.
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    # The request inspector: every model request recorded (redacted) in inspector.sqlite,
    # kept this many days and at most this many megabytes (the oldest go first).
    inspector_enabled: bool = True
    inspector_retention_days: int = Field(default=14, ge=1, le=3650)
    inspector_retention_mb: int = Field(default=200, ge=1, le=100_000)
    # The search service behind the web_search tool, for chats that search the web on a
    # provider without a search of its own: "" (none), "searxng", "brave" or "tavily";
    # SearXNG's address (for Brave and Tavily: their API unless set). The API key is in
    # the key store (desktop.chat.web_search.SECRET_ID).
    web_search_service: Literal["", "searxng", "brave", "tavily"] = ""
    web_search_url: str = ""
    # Research (the composer's Research switch, assista ask --research): its search
    # rounds, minutes and cost ceiling in US dollars (0: none) at most.
    research_max_rounds: int = Field(default=3, ge=1, le=20)
    research_max_minutes: float = Field(default=5.0, gt=0, le=240)
    research_max_cost: float = Field(default=0.5, ge=0, le=1000)
