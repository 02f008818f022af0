"""Log setup and secret redaction."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from desktop.storage import logs
from desktop.storage.logs import REDACTED, SecretRedactor, redact, setup_logging
from desktop.storage.paths import DataPaths

OPENAI = "sk-proj-abcDEF0123456789ghiJKL"
ANTHROPIC = "sk-ant-api03-AbCdEf0123456789_xyz-QQ"
GOOGLE = "AIzaSyA1234567890abcdefghijklmnopqrstu"
TOKEN = "eyJhbGciOiJIUzI1NiJ9.payload.sig"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (f"key is {OPENAI}.", OPENAI),
        (f"anthropic {ANTHROPIC}", ANTHROPIC),
        (f"google={GOOGLE}", GOOGLE),
        (f"Authorization: Bearer {TOKEN}", TOKEN),
        (f"headers={{'authorization': 'Bearer {TOKEN}'}}", TOKEN),
        ("Headers({'x-api-key': 'plainvalue123', 'accept': 'json'})", "plainvalue123"),
        ("[(b'api-key', b'azurekey999'), (b'host', b'x')]", "azurekey999"),
        ('{"x-goog-api-key": "gkey-12345"}', "gkey-12345"),
        ("https://host/v1/models?key=QUERYSECRET&alt=sse", "QUERYSECRET"),
        ("GET /x?alt=sse&api_key=QUERYSECRET2 HTTP/1.1", "QUERYSECRET2"),
        ("OpenAI(api_key='kw-secret-1')", "kw-secret-1"),
        ("proxy-authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz"),
    ],
)
def test_patterns(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert REDACTED in out


def test_harmless_text_is_untouched() -> None:
    for text in (
        "task-force desk-top risk-free",
        "the key points are: speed",
        "authorization failed for user",
        "GET /v1/models?alt=sse 200",
        "password reset link sent",
        "Token usage: 12 input, 30 output",
        "basic auth disabled; bearer of news",
    ):
        assert redact(text) == text


def test_keeps_structure() -> None:
    assert redact("Authorization: Bearer abcdef123") == f"Authorization: Bearer {REDACTED}"
    assert redact("Authorization: abcdef123") == f"Authorization: {REDACTED}"
    assert redact("authorization: Basic dXNlcjpwYXNz") == f"authorization: {REDACTED}"
    assert redact("Authorization: Token abc123") == f"Authorization: {REDACTED}"
    assert redact("?key=abc&alt=sse") == f"?key={REDACTED}&alt=sse"
    assert redact("'x-api-key': 'v123'") == f"'x-api-key': '{REDACTED}'"
    assert redact(redact(f"Bearer {TOKEN}")) == f"Bearer {REDACTED}"


def test_added_exact_values() -> None:
    custom = "my-local-llm-password"
    redactor = SecretRedactor()
    assert redactor.redact(f"x {custom} y") == f"x {custom} y"
    redactor.add(custom)
    redactor.add(custom)
    redactor.add("abc")  # too short to redact safely: ignored
    redactor.add(None)
    assert redactor.redact(f"x {custom} y") == f"x {REDACTED} y"
    assert redactor.redact("abc") == "abc"
    assert redactor.redact(f"key {OPENAI}") == f"key {REDACTED}"  # the shapes too
    assert SecretRedactor().redact(custom) == custom  # each redactor keeps its own
    assert redact(custom) == custom  # nothing global was changed
    redactor.clear()
    assert redactor.redact(custom) == custom


def test_a_longer_secret_containing_another_is_hidden_whole() -> None:
    redactor = SecretRedactor()
    redactor.add("token-1234")
    redactor.add("token-1234-extended")
    assert redactor.redact("a token-1234-extended b") == f"a {REDACTED} b"


def _file_handlers() -> list[logging.Handler]:
    return [h for h in logging.getLogger().handlers if h.get_name() == "assista-file"]


def test_setup_is_idempotent_and_redacts_file(
    paths: DataPaths, capsys: pytest.CaptureFixture[str]
) -> None:
    redactor = SecretRedactor()
    log_file = setup_logging(paths, logging.DEBUG, redactor=redactor)
    setup_logging(paths, "DEBUG", redactor=redactor)
    assert log_file == paths.logs_dir / "assista.log"
    assert len(_file_handlers()) == 1
    names = [h.get_name() for h in logging.getLogger().handlers]
    assert names.count("assista-stderr") == 1

    redactor.add("runtime-secret-value")
    log = logging.getLogger("desktop.test")
    log.debug("request headers=%r", {"authorization": f"Bearer {TOKEN}", "accept": "json"})
    log.info("GET https://generativelanguage.googleapis.com/v1?key=%s", GOOGLE)
    log.info("value %(v)s", {"v": "runtime-secret-value"})
    log.warning("using %s", OPENAI)
    try:
        raise RuntimeError(f"HTTP 401 for key {ANTHROPIC}")
    except RuntimeError:
        log.exception("request failed")
    log.info("plain line")

    for handler in logging.getLogger().handlers:
        handler.flush()
    text = log_file.read_text(encoding="utf-8")
    for secret in (TOKEN, GOOGLE, "runtime-secret-value", OPENAI, ANTHROPIC):
        assert secret not in text
    assert "plain line" in text
    assert "RuntimeError: HTTP 401 for key [REDACTED]" in text
    assert text.count("request failed") == 1  # one file handler, one line

    err = capsys.readouterr().err
    assert "using [REDACTED]" in err
    assert "plain line" not in err  # stderr only gets warnings
    assert OPENAI not in err and ANTHROPIC not in err


def test_rotation_settings(paths: DataPaths) -> None:
    setup_logging(paths)
    (handler,) = _file_handlers()
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    assert handler.maxBytes == 1_000_000
    assert handler.backupCount == 5


def test_setup_moves_to_new_dir(tmp_path: Path) -> None:
    first = setup_logging(DataPaths.resolve(tmp_path / "a"))
    second = setup_logging(DataPaths.resolve(tmp_path / "b"))
    assert first != second
    (handler,) = _file_handlers()
    assert Path(handler.baseFilename) == second  # type: ignore[attr-defined]
    logs.shutdown_logging()
    assert _file_handlers() == []


def test_without_stderr(paths: DataPaths, capsys: pytest.CaptureFixture[str]) -> None:
    log_file = setup_logging(paths, logging.INFO, stderr=False)
    names = [h.get_name() for h in logging.getLogger().handlers]
    assert "assista-stderr" not in names
    logging.getLogger("x").warning("only in the file")
    logs.shutdown_logging()
    assert "only in the file" in log_file.read_text()
    assert "only in the file" not in capsys.readouterr().err
