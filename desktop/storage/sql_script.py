"""Splitting a SQL script into statements (migrations and the search index share it)."""

from __future__ import annotations

import sqlite3


def split_sql(script: str) -> list[str]:
    """Split a script into complete statements (semicolons in strings/triggers are safe)."""
    statements: list[str] = []
    buffer = ""
    for chunk in script.split(";"):
        buffer += chunk + ";"
        if sqlite3.complete_statement(buffer):
            statement = buffer.strip()
            if _has_code(statement):
                statements.append(statement)
            buffer = ""
    if _has_code(buffer.rstrip(";")):
        raise ValueError(f"incomplete SQL statement in migration: {buffer.strip()[:80]!r}")
    return statements


def _has_code(sql: str) -> bool:
    """Whether ``sql`` has anything besides whitespace, ``;`` and ``--`` comments."""
    for line in sql.splitlines():
        code = line.split("--", 1)[0].strip().strip(";").strip()
        if code:
            return True
    return False
