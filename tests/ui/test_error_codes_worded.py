"""Every error a user can meet carries a code the window words in its language.

An AST scan over desktop/ finds each construction of an ``AssistaError`` (and of every
class derived from it): it must name its ``code`` (a ``ProviderError`` may give the
HTTP ``status`` or the server's code instead, which a code is worked out from), and the
window must have a sentence for that code whose placeholders the raise site's
``params`` fill. The allow-list is short, each with its reason."""

from __future__ import annotations

import ast
import functools
import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop.core.error_codes import ErrorInfo
from desktop.ui import i18n
from desktop.ui.error_text import _SENTENCES, error_text

ROOT = Path(__file__).resolve().parents[2] / "desktop"

#: Errors whose text is not shown by the window, or is already translated.
ALLOWED_FOLDERS = {
    "cli": "the CLI prints the English one-liner; its errors never reach the window",
    "ui": "the window raises its own errors with text it has already translated (self.tr)",
}
ALLOWED_SITES = {
    ("providers/stream_parser.py", "ProviderError"):
        "only its English text is used; the code and params are made beside it "
        "(provider_failure) and go on the event",
}
#: ToolError and its kind are left out: a tool error is the tool's result, written for
#: the model (it reads and answers it); the tool card shows what the model was told.
#: Codes worded by the dialog that shows them, in its own translation context.
WORDED_ELSEWHERE = {
    "skill_missing", "skill_no_file", "skill_invalid", "skill_bad_zip", "skill_too_big",
    "skill_exists", "skill_unknown",  # desktop/ui/dialogs/skills_page.py
    "bundle_missing", "bundle_refused", "bundle_exists", "bundle_value_missing",
    "bundle_value_bad",  # desktop/ui/tools/bundle_dialog.py
    "no_microphone", "no_audio_output", "no_speech_engine", "no_transcription_model",
    "nothing_to_read", "audio_undecodable", "nothing_heard",  # desktop/ui/voice/voice_errors.py
}


@functools.cache
def _parsed() -> tuple[tuple[str, ast.Module], ...]:
    """Every module of desktop/, parsed once for this file's tests (the scans only read
    the trees; so does :func:`_sites`, kept as well)."""
    return tuple((path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
                 for path in sorted(ROOT.rglob("*.py")))


@pytest.fixture(autouse=True, scope="module")
def _parsed_once() -> Iterator[None]:
    yield
    _sites.cache_clear()  # (the trees of 500 modules: not kept for the other files)
    _parsed.cache_clear()


def _sources() -> Iterator[tuple[str, ast.Module]]:
    yield from _parsed()


def _error_classes(root: str = "AssistaError") -> set[str]:
    """``root`` and every class of desktop/ derived from it (by name)."""
    bases: dict[str, set[str]] = {}
    for _path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(
                    b.id if isinstance(b, ast.Name) else b.attr
                    for b in node.bases if isinstance(b, ast.Name | ast.Attribute))
    found = {root}
    while True:
        more = {name for name, parents in bases.items() if parents & found} - found
        if not more:
            return found
        found |= more


def _name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else (
        func.attr if isinstance(func, ast.Attribute) else None)


Site = tuple[str, int, str, ast.Call]


@functools.cache
def _sites() -> tuple[Site, ...]:
    classes = _error_classes() - _error_classes("ToolError")
    sites: list[Site] = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node) in classes:
                sites.append((path, node.lineno, str(_name(node)), node))
    return tuple(sites)


def _coded(call: ast.Call, name: str) -> bool:
    given = {k.arg for k in call.keywords}
    if "code" in given:
        return True
    return name == "ProviderError" and bool(given & {"status", "server_code"})


def _allowed(path: str, name: str) -> bool:
    return path.split("/", 1)[0] in ALLOWED_FOLDERS or (path, name) in ALLOWED_SITES


def test_every_user_visible_error_is_raised_with_a_code() -> None:
    sites = _sites()
    assert len(sites) > 200  # (the scan sees the raise sites)
    bare = [f"desktop/{path}:{line}: {name}(...) without code="
            for path, line, name, call in sites
            if not _coded(call, name) and not _allowed(path, name)]
    assert bare == [], ("give each error a code and params, and word the code in "
                        "desktop/ui/error_sentences*.py:\n" + "\n".join(bare))


def test_the_scan_finds_an_error_raised_without_a_code() -> None:
    tree = ast.parse('raise ConfigError(f"no chat named {name!r}")\n'
                     'raise ConfigError("x", code="chat_gone")\n'
                     'raise ProviderError("x", status=429)\n')
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert [_coded(c, str(_name(c))) for c in calls] == [False, True, True]


def _literal_codes() -> Iterator[tuple[str, int, str, set[str] | None]]:
    """(site, line, code, the keys of its params when they are written out)."""
    for path, line, _kind, call in _sites():
        kwargs = {k.arg: k.value for k in call.keywords}
        code = kwargs.get("code")
        choices = ([code.body, code.orelse] if isinstance(code, ast.IfExp)
                   else [code] if code is not None else [])
        params = kwargs.get("params")
        keys: set[str] | None = None
        if params is None:
            keys = set()
        elif isinstance(params, ast.Dict) and all(k is not None for k in params.keys):
            keys = {k.value for k in params.keys
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        for choice in choices:
            if isinstance(choice, ast.Constant) and isinstance(choice.value, str):
                yield path, line, choice.value, keys


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


@pytest.fixture
def english(qapp: QApplication) -> None:
    i18n.install_translations(qapp, "en")


def test_every_code_raised_is_worded_with_the_params_its_site_gives(english: None) -> None:
    unworded: list[str] = []
    for path, line, code, keys in _literal_codes():
        if _allowed(path, "") or code in WORDED_ELSEWHERE:
            continue
        if code not in _SENTENCES:
            unworded.append(f"desktop/{path}:{line}: {code}: no sentence")
            continue
        if keys is None:
            continue  # (params passed on from another error)
        for key, sentence in _SENTENCES.items():
            base, _, variant = key.partition("+")
            if base != code or (variant and variant not in keys):
                continue
            missing = _fields(str(sentence)) - keys - {"provider"}
            if missing:
                unworded.append(f"desktop/{path}:{line}: {key} needs {sorted(missing)}")
    assert unworded == [], "\n".join(unworded)


def test_every_sentence_words_its_code(english: None) -> None:
    for key, sentence in _SENTENCES.items():
        code, _, _variant = key.partition("+")
        params = {name: f"<{name}>" for name in _fields(str(sentence))}
        text = error_text(ErrorInfo(code, params), "FALLBACK")
        assert text != "FALLBACK" and "{" not in text, (key, text)
        assert re.search(r"[A-Za-z]", text), key


def test_an_error_with_a_param_the_site_forgot_shows_its_english_text(english: None) -> None:
    assert error_text(ErrorInfo("data_folder_missing", {}), "English text") == "English text"
