"""What a tool card says about a call: its duration, one-line digests of the arguments
and the result, and the result as HTML for the expanded details.

Plain functions of the call's text, kept apart from the card widget so they can be read
and tested without building one."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QCoreApplication

from desktop.core.messages import ToolResultPart
from desktop.ui import locale_format, theme
from desktop.ui.tools.approval_card import diff_html, heading_html, json_html, plain_html
from desktop.ui.tools.retrieval_text import retrieval_html, retrieval_summary


def format_duration(seconds: float) -> str:
    if seconds < 60:
        return QCoreApplication.translate("ToolCallText", "{seconds} s").format(
            seconds=locale_format.decimal(seconds, 2 if seconds < 10 else 1))
    return QCoreApplication.translate("ToolCallText", "{minutes} min {seconds} s").format(
        minutes=int(seconds // 60), seconds=int(seconds % 60))


def summarize_arguments(arguments: str, limit: int = 60) -> str:
    """A one-line digest: the first string values of the argument object."""
    try:
        data = json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        text = arguments
    else:
        values: list[str] = []

        def walk(value: object) -> None:
            if isinstance(value, dict):
                for item in value.values():
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)
            elif value is not None:
                values.append(str(value))

        walk(data)
        text = ", ".join(values)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize_result(result: ToolResultPart, limit: int = 90) -> str:
    """A one-line digest of a result: the error message, or the result's values."""
    data = _parse(result.content)
    retrieved = retrieval_summary(result, data)
    if retrieved is not None:
        return retrieved
    if isinstance(data, dict):
        error = data.get("error")
        special = _special_summary(error) if isinstance(error, dict) else None
        if special:  # a command that failed: its exit code and last line
            return summarize_arguments(json.dumps(special), limit)
        if isinstance(error, dict) and error.get("message"):
            return summarize_arguments(json.dumps(str(error["message"])), limit)
        value = data.get("result")
        if isinstance(value, dict):
            special = _special_summary(value)
            if special:
                return summarize_arguments(json.dumps(special), limit)
        if "result" in data:
            texts = _strings(value)
            return summarize_arguments(json.dumps(texts if texts else value), limit)
    return summarize_arguments(json.dumps(result.content), limit)


def result_confinement(result: ToolResultPart) -> str:
    """Where a command ran (a code of desktop.tools.sandbox.CODES; "" for other tools)."""
    data = _parse(result.content)
    if not isinstance(data, dict):
        return ""
    for key in ("result", "error"):
        value = data.get(key)
        if isinstance(value, dict) and isinstance(value.get("confinement"), str):
            return str(value["confinement"])
    return ""


def _strings(value: Any) -> list[str]:
    """The string values in a JSON value (numbers and flags make poor digests)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _special_summary(value: dict[str, Any]) -> str | None:
    """Digests for command results (exit code, last output line) and edits (+/- lines)."""
    if "exit_code" in value:
        lines = [ln for ln in str(value.get("stdout") or value.get("stderr") or "").splitlines()
                 if ln.strip()]
        code = QCoreApplication.translate("ToolCallText", "exit {code}").format(
            code=value["exit_code"])
        return code + (f" · {lines[-1]}" if lines else "")
    if "lines_added" in value and "lines_removed" in value:
        return f"{value.get('path', '')} +{value['lines_added']} −{value['lines_removed']}"
    return None


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None


def result_html(result: ToolResultPart) -> str:
    """The result for the details view: diff and output shown as such, the rest as JSON."""
    data = _parse(result.content)
    retrieved = retrieval_html(result, data)
    if retrieved is not None:
        return retrieved
    c = theme.colors()
    if not isinstance(data, dict):
        return json_html(result.content)
    error = data.get("error")
    if isinstance(error, dict):
        out = plain_html(str(error.get("message", "")), c["error"])
        rest = {k: v for k, v in error.items() if k not in ("message", "code")}
        out += _streams_html(rest)  # (a failed command's output)
        return out + (json_html(rest) if rest else "")
    value = data.get("result", data)
    if not isinstance(value, dict):
        return json_html(value)
    out = ""
    rest = dict(value)
    if isinstance(rest.get("diff"), str):
        out += (heading_html(QCoreApplication.translate("ToolCallText", "Diff"))
                + diff_html(rest.pop("diff")))
    out += _streams_html(rest)
    if isinstance(rest.get("text"), str) and len(rest) == 1:
        return out + plain_html(rest["text"])
    return out + (json_html(rest) if rest or not out else "")


def _streams_html(rest: dict[str, Any]) -> str:
    """stdout and stderr (taken out of ``rest``) as plain text under their names."""
    out = ""
    for stream in ("stdout", "stderr"):
        if isinstance(rest.get(stream), str):
            text = rest.pop(stream)
            if text:
                out += heading_html(stream) + plain_html(text)
    return out


def result_has_output(result: ToolResultPart) -> bool:
    data = _parse(result.content)
    value = (data.get("result") or data.get("error")) if isinstance(data, dict) else None
    return isinstance(value, dict) and ("stdout" in value or "stderr" in value)
