"""Extra HTTP headers as the provider form edits them: one ``Name: value`` per line."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def parse_headers(text: str) -> dict[str, str]:
    """``Name: value`` lines to a dict; raises ValueError naming the bad line."""
    headers: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        name, sep, value = line.partition(":")
        name = name.strip()
        if not sep or not name or any(ch.isspace() for ch in name):
            raise ValueError(QCoreApplication.translate(
                "ProviderForm", "Header line {number} should look like “Name: value”").format(
                number=number))
        headers[name] = value.strip()
    return headers


def format_headers(headers: dict[str, str]) -> str:
    return "\n".join(f"{name}: {value}" for name, value in headers.items())
