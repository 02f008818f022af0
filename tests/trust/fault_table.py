"""The fault table of issue 16: every class of fault tried against the real CLI, one
child process per attempt, with the data folder compared before and after.

    .venv/bin/python -m tests.trust.fault_table [--only WORD]

Each case starts from a copy of one seeded data folder (a chat with a stored answer)
and the same loopback servers and bad files the tests use. A case *survives* when
the command ends as the issue asks — the expected clear message, the expected exit
status, no Python traceback, no MemoryError — within its time limit. *Data lost*
means a chat or message that existed before is gone or changed afterwards, the
database fails ``PRAGMA integrity_check``, or an answer was printed, reported saved
(exit 0) and not stored whole. The table ends with the totals; the exit status is 1
when any case did not survive or lost data.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.trust import fault_cases
from tests.trust.support import KEY, assista, state


@dataclass
class Row:
    fault_class: int
    case: str
    tried: int = 0
    survived: int = 0
    lost: int = 0
    message: str = ""
    seconds: float = 0.0


def seed(root: Path) -> Path:
    """A data folder with one stored chat (question and answer)."""
    from tests.support.openai_server import FakeOpenAIServer

    data = root / "seed"
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue_text("The seeded answer, stored before any fault.")
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                       "Seed question", data_dir=data, env=KEY)
    if done.returncode != 0:
        raise SystemExit(f"could not seed a data folder: {done.stderr}")
    return data


def kept(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """Every chat and message of ``before`` is in ``after`` unchanged, and the
    database passes its integrity check."""
    if after[1] != "ok":
        return False
    old = {s["id"]: s for s in json.loads(before[0])["sessions"]}
    new = {s["id"]: s for s in json.loads(after[0])["sessions"]}
    for sid, session in old.items():
        messages = {m["id"]: m for m in new.get(sid, {}).get("messages", [])}
        for message in session["messages"]:
            if messages.get(message["id"]) != message:
                return False
    return True


def run_case(number: int, name: str, case: Callable[[Path, Path], fault_cases.Result],
             seeded: Path, scratch: Path) -> Row:
    row = Row(number, name, tried=1)
    data = scratch / "data"
    shutil.copytree(seeded, data)
    before = state(data)
    started = time.monotonic()
    try:
        result = case(data, scratch)
    except Exception as exc:  # a case that breaks is a case that did not survive
        result = fault_cases.Result(False, f"case error: {type(exc).__name__}: {exc}")
    row.seconds = time.monotonic() - started
    after = state(data) if (data / "assista.sqlite3").exists() or any(data.glob("*.sqlite3")) \
        else ("", "missing")
    lost = result.silent_loss or (not result.replaces_database and not kept(before, after))
    row.survived = int(result.survived)
    row.lost = int(lost)
    row.message = result.message
    return row


def print_table(rows: list[Row]) -> None:
    header = f"{'cls':>3}  {'case':<46} {'tried':>5} {'survived':>8} {'lost':>4}  message"
    print(header)
    print("-" * len(header))
    for r in rows:
        message = " ".join(r.message.split())
        if len(message) > 110:
            message = message[:109] + "…"
        print(f"{r.fault_class:>3}  {r.case:<46} {r.tried:>5} {r.survived:>8} {r.lost:>4}  "
              f"{message}")
    tried = sum(r.tried for r in rows)
    print("-" * len(header))
    print(f"     {'total':<46} {tried:>5} {sum(r.survived for r in rows):>8} "
          f"{sum(r.lost for r in rows):>4}  ({sum(r.seconds for r in rows):.0f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", metavar="WORD", help="run the cases whose name has WORD")
    args = parser.parse_args(argv)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="assista-faults-") as tmp:
        root = Path(tmp)
        seeded = seed(root)
        for number, name, case in fault_cases.CASES:
            if args.only and args.only.lower() not in name.lower():
                continue
            scratch = root / f"case{len(rows)}"
            scratch.mkdir()
            rows.append(run_case(number, name, case, seeded, scratch))
            print(f"  … {name}: {'ok' if rows[-1].survived and not rows[-1].lost else 'FAIL'}",
                  file=sys.stderr, flush=True)
    print_table(rows)
    return 0 if all(r.survived and not r.lost for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
