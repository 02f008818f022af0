"""What the window loads, and in which order, once its first frame is on screen (see
:mod:`desktop.gui`): the steps, each one import with the window's events handled after
it, first what a turn needs, then the window's content."""

from __future__ import annotations

import gc
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from desktop.ui.window.startup_trace import StartupTrace

log = logging.getLogger(__name__)

#: The app's packages, loaded one after the other on this thread once the window is on
#: screen and lists the chats, with the window's events handled between them: it can be
#: moved, resized, repainted and typed into while the app loads. Each names a module of
#: the app or a dependency's public module (what it imports comes with it; never a
#: dependency's private module), in the order they are needed: first what a turn
#: needs (the data, the agent loop, the chat service: ``TURN_STEPS``, before the loop
#: runs), then the window's content (``WINDOW_STEPS``). (A step that grows long is a
#: stall of the window: ``python -X importtime`` shows what it imports.)
TURN_STEPS = (
    # pydantic in its public modules, each after what it imports: in one step it held
    # the window ~150 ms, in five 30-100 ms; now 15 steps of 1-20 ms on a quiet machine
    # (pydantic_core, one import that cannot be split, loads before the window shows:
    # see desktop.cli.commands._open_window)
    "pydantic",
    "uuid",
    "zoneinfo",
    "annotated_types",
    "secrets",
    "pydantic.errors",
    "pydantic.config",
    "pydantic.json_schema",
    "pydantic.types",
    "pydantic.fields",
    "pydantic.functional_validators",
    "pydantic.main",
    "email.message",
    "importlib.metadata",  # (pydantic's plugin module: no lookup, desktop.core.model_plugins)
    "desktop.core.messages",
    "desktop.core.settings",
    # httpx after its own dependencies (in one step ~90 ms): the built-in tools use it
    "ssl",
    "h11",
    "socksio",
    "certifi",
    "anyio",
    "httpcore",
    "urllib.request",
    "httpx",  # (without its command line: see desktop/__init__.py)
    "concurrent.futures",
    "asyncio",
    # anyio's asyncio backend, which httpcore's connection pool loads at the first request:
    # loaded there, on the stream thread, it took ~60 ms beside the window's steps (both
    # slowed by Python's lock). anyio names no public module that loads it: see
    # PRIVATE_STEPS.
    "anyio.lowlevel",
    "anyio.streams.memory",
    "anyio.streams.tls",
    "anyio._backends._asyncio",
    "desktop.tools.approval",
    "desktop.tools.registry",
    "desktop.tools.builtins",
    "desktop.storage.data_folder",
    "desktop.storage.sessions",
    "desktop.projects.service",
    "desktop.app",  # storage, providers
    "desktop.storage.inspector_writer",
    "desktop.chat.events",
    "desktop.chat.turn_runner",
    "desktop.chat.service",
    "desktop.ui.window.controller",  # the agent loop (asyncio)
    "desktop.tools.executor",  # (a turn's tools)
    "qasync",  # (the loop the window then runs on)
)

#: Then, on the running loop, once a question typed meanwhile has been sent (see
#: :mod:`desktop.ui.window.early_question`): the window's content, and what attaching
#: it and the model list's first request use.
WINDOW_STEPS = (
    "desktop.ui.markdown.renderer",
    "mdurl",
    "markdown_it",  # (the renderer's parser, made at the first message shown)
    "mdit_py_plugins.dollarmath",
    "mdit_py_plugins.tasklists",
    "desktop.ui.markdown.accessible",
    "desktop.ui.markdown.view",
    "desktop.ui.wrap_row",
    "desktop.ui.chat.turn_status",
    "desktop.chat.answer_figures",  # (an answer's figures and prices: the chat view's;
    "desktop.ui.chat.message_widget",  # in one step with it, 25-33 ms)
    "desktop.ui.chat.chat_view",
    "desktop.ui.conversations.session_list",
    "desktop.ui.tools.sidebar",
    "desktop.ui.conversations.conversation_actions",
    "desktop.ui.chat.composer",
    "desktop.ui.window.top_bar",  # with the assistant picker
    "desktop.providers.http_clients",
    # what MainWindow.attach imports (each step of it is then only building)
    "desktop.chat.voice",
    "desktop.ui.chat.chat_pane",
    "desktop.knowledge.chat_link",
    "desktop.ui.window.tab_order",
    "desktop.ui.window.quit_guard",
    "desktop.ui.window.notifier",
    "desktop.ui.window.attention",
    "desktop.ui.chat.window_drops",
    "desktop.ui.conversations.project_actions",
    "desktop.sync.service",
    "desktop.ui.window.tool_activity",
    "desktop.ui.compare.launcher",
    "desktop.ui.quick.quick_ask",
    "desktop.ui.window.update_notice",
    "desktop.ui.window.welcome_view",
    "desktop.ui.chat.usage_text",
    "desktop.ui.window.single_instance",
    "desktop.ui.window.sync_scheduler",
    "desktop.ui.window.window_wiring",
    "desktop.ui.window.dialog_launcher",
    "desktop.ui.window.tray",
    "desktop.ui.window.panels",
    # what the model list's first request uses
    "desktop.providers.retry",
    "more_itertools",
    # the keyring after what it imports (in one step it held the window 35-50 ms)
    "jaraco.context",
    "configparser",
    "keyring",
    "desktop.storage.secrets",
)

LOAD_STEPS = TURN_STEPS + WINDOW_STEPS  #: (all of them, in order)

#: A dependency's private modules among the steps: loaded ahead when they are there, and
#: left to load when first used if a release has moved them.
PRIVATE_STEPS = frozenset({"anyio._backends._asyncio"})


def load_modules(app: QApplication, trace: StartupTrace | None = None) -> None:
    """What a turn needs (``TURN_STEPS``, each wire API's adapter, the CA bundle)."""
    import threading

    # (a step of its own: ssl, which it loads, is 5-10 ms, and ran on from the first
    # chats' frame as one stall with it)
    import_steps(app, ("desktop.providers.tls",), trace)
    from desktop.providers.tls import shared_context

    # The CA bundle (the model list needs it) is read on a thread meanwhile: OpenSSL
    # parses it without Python's lock (15-50 ms of the main thread before).
    certificates = threading.Thread(target=shared_context, kwargs={"trust_env": False},
                                    name="assista-certificates", daemon=True)
    certificates.start()
    from desktop.providers.registry import ADAPTERS

    # then each wire API's adapter (the first question builds its provider)
    adapters = tuple(dict.fromkeys(path.partition(":")[0] for path in ADAPTERS))
    import_steps(app, TURN_STEPS + adapters, trace)
    if trace is not None:
        trace.step("CA certificates")
    while certificates.is_alive():  # (usually over by now)
        certificates.join(0.005)
        app.processEvents()
    # What was loaded (modules, classes) is left out of every later pass of the
    # collector, without a pass over it first: the modules leave ~1,100 unreachable
    # objects behind (~0.5 MB: types and functions made while importing), and the
    # passes that freed them cost ~7% of the main thread until the app had loaded
    # (py-spy, tests/bench/bench_shipped_startup.py).
    gc.freeze()


def import_steps(app: QApplication, names: tuple[str, ...],
                 trace: StartupTrace | None = None) -> None:
    """Import ``names`` one after the other, the window's events handled after each."""
    import importlib

    for name in names:
        if trace is not None:
            trace.step(name)
        try:
            importlib.import_module(name)
        except ImportError:
            if name not in PRIVATE_STEPS:
                raise
            log.info("%s is not there: it loads when first used", name)
        app.processEvents()
