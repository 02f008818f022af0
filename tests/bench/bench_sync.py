"""Sync benchmark: initial sync of many chats to a loopback WebDAV server and onto a second
device, then an incremental sync of one new message (target < 1 s).

    .venv/bin/python tests/bench/bench_sync.py [--chats 10000] [--messages 1000000]

Prints each figure next to its target and a baseline from the same run: a plain PUT and
GET of the database file itself to the same server (what a "copy the file" backup costs).
CPU is the whole process (the WebDAV server runs in a thread of it).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from desktop.core.messages import Message, TextPart  # noqa: E402
from desktop.storage.database import Database  # noqa: E402
from desktop.storage.sessions import SessionStore  # noqa: E402
from desktop.sync.run import SyncEngine  # noqa: E402
from desktop.sync.targets.address import open_target  # noqa: E402
from tests.sync.servers import PASSWORD, USER, WebDavServer  # noqa: E402

WORDS = [
    "the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "streams",
    "of", "tokens", "arrive",
]


def generate(db: Database, chats: int, messages: int) -> None:
    per_chat = max(1, messages // chats)
    now = time.time() - 86400 * 365
    with db.transaction() as conn:
        for c in range(chats):
            sid = f"ses_bench{c:08d}"
            conn.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at, active_leaf_id) "
                "VALUES (?, ?, ?, ?, ?)",
                (sid, f"Chat {c} about {WORDS[c % len(WORDS)]}", now + c, now + c,
                 f"msg_b{c:08d}_{per_chat - 1:05d}"),
            )
            rows: list[tuple[Any, ...]] = []
            for i in range(per_chat):
                text = " ".join(WORDS[(c + i + k) % len(WORDS)] for k in range(40))
                parts = json.dumps([{"type": "text", "text": f"{i}: {text}"}])
                parent = f"msg_b{c:08d}_{i - 1:05d}" if i else None
                rows.append((f"msg_b{c:08d}_{i:05d}", sid, i + 1, parent, now + c + i,
                             "user" if i % 2 == 0 else "assistant", now + c + i, parts))
            conn.executemany(
                "INSERT INTO messages (id, session_id, seq, parent_id, selected_at, role, "
                "status, created_at, parts) VALUES (?, ?, ?, ?, ?, ?, 'complete', ?, ?)",
                rows,
            )


def measure(label: str, action: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = action()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"  {label:<44} {wall:8.2f} s wall {cpu:8.2f} s CPU", flush=True)
    return wall, cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "dav").mkdir()
        server = WebDavServer(base / "dav")
        environ = {"ASSISTA_SYNC_PASSWORD": PASSWORD}
        try:
            run(base, server, environ, args.chats, args.messages)
        finally:
            server.stop()


def run(base: Path, server: WebDavServer, environ: dict[str, str], chats: int,
        messages: int) -> None:
    a = Database(base / "a.sqlite3")
    b = Database(base / "b.sqlite3")
    print(f"Generating {chats:,} chats / {messages:,} messages ...", flush=True)
    measure("generate device A's database", lambda: generate(a, chats, messages))
    a.checkpoint()
    size = (base / "a.sqlite3").stat().st_size
    print(f"device A's database: {size / 1e6:.1f} MB")

    print("Baseline: copy the database file to the same server and back")
    url = f"http://127.0.0.1:{server.port}/dav/copy.sqlite3"
    with httpx.Client(auth=(USER, PASSWORD), timeout=600) as client:
        data = (base / "a.sqlite3").read_bytes()
        put_wall, _, _ = measure("PUT the database file", lambda: client.put(url, content=data))
        get_wall, _, _ = measure("GET the database file", lambda: client.get(url))

    target_a = open_target(server.url, environ)
    target_b = open_target(server.url, environ)
    engine_a = SyncEngine(a, target_a, "bench passphrase")
    engine_b = SyncEngine(b, target_b, "bench passphrase")
    print("Sync")
    push_wall, _, report = measure("initial sync, device A (push)", engine_a.run)
    print(f"    {report.summary()}")
    pull_wall, _, report = measure("initial sync, device B (pull)", engine_b.run)
    print(f"    {report.summary()}")
    assert b.query_one("SELECT COUNT(*) FROM messages")[0] == a.query_one(  # type: ignore[index]
        "SELECT COUNT(*) FROM messages")[0]
    idle_wall, _, _ = measure("baseline: sync with nothing new (A)", engine_a.run)
    store = SessionStore(a)
    store.save_message("ses_bench00000000", Message(role="user", parts=[TextPart(text="new")]))
    inc_a, _, _ = measure("incremental: one new message, A (push)", engine_a.run)
    inc_b, _, report = measure("incremental: one new message, B (pull)", engine_b.run)
    assert report.merged.messages == 1
    print()
    print(f"{'figure':<46}{'measured':>10}{'target':>10}  {'baseline':<14}")
    rows = [
        ("initial push (A)", push_wall, "-", f"{put_wall:.2f} s PUT"),
        ("initial pull + merge (B)", pull_wall, "-", f"{get_wall:.2f} s GET"),
        ("incremental push, one message (A)", inc_a, "< 1 s", f"{idle_wall:.2f} s idle"),
        ("incremental pull, one message (B)", inc_b, "< 1 s", f"{idle_wall:.2f} s idle"),
    ]
    for name, value, target, baseline in rows:
        print(f"{name:<46}{value:>8.2f} s{target:>10}  {baseline:<14}")
    print(f"scale: {chats:,} chats / {messages:,} messages")
    target_a.close()
    target_b.close()
    a.close()
    b.close()


if __name__ == "__main__":
    main()
