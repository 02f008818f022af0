"""Search latency on a large database: 10,000 chats / 1,000,000 messages by default.

    .venv/bin/python tests/bench/bench_search.py [--sessions N] [--per-session M]
                                                 [--db PATH] [--keep] [--repeat R]

Builds the database through the real schema (so the FTS triggers index every
row as it is inserted), inside one transaction with ``executemany``, then runs
several queries through ``SessionStore.search`` and prints the median and the
95th percentile latency of each (target: under 100 ms). Also prints the build
time, the file size, the time to open the database and ``PRAGMA quick_check``.
Text is pseudo-random words with a Zipf-like frequency, with some Cyrillic,
Greek, Japanese and Chinese messages and tool calls/results mixed in.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from desktop.storage.database import Database  # noqa: E402
from desktop.storage.sessions import SessionStore  # noqa: E402

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ra",
    "to",
    "su",
    "vi",
    "de",
    "po",
    "an",
    "el",
    "or",
    "is",
    "ul",
    "ch",
    "st",
    "pr",
    "qu",
    "bl",
]
CYRILLIC = ["привет", "мир", "база", "данных", "поиск", "сообщение", "ёлка", "работа"]
GREEK = ["καλημέρα", "κόσμε", "βάση", "δεδομένων", "αναζήτηση", "μήνυμα"]
CJK = ["東京タワーに行きました", "データベースの検索", "数据库搜索很快", "今日は良い天気です"]


def vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def make_text(rng: random.Random, vocab: list[str], weights: list[float]) -> str:
    n = rng.randint(8, 50)
    words = rng.choices(vocab, cum_weights=weights, k=n)
    roll = rng.random()
    if roll < 0.05:
        words += rng.sample(CYRILLIC, 2)
    elif roll < 0.08:
        words += rng.sample(GREEK, 2)
    elif roll < 0.10:
        words.append(rng.choice(CJK))
    return " ".join(words)


def rows(args: argparse.Namespace) -> Iterator[tuple[list[tuple[object, ...]], tuple[object, ...]]]:
    rng = random.Random(42)
    vocab = vocabulary(rng)
    cum, total = [], 0.0
    for rank in range(1, len(vocab) + 1):
        total += 1.0 / rank
        cum.append(total)
    now = time.time() - args.sessions * 3600
    num = 0
    for s in range(args.sessions):
        sid = f"ses_bench_{s:06d}"
        title = " ".join(rng.choices(vocab, cum_weights=cum, k=3))
        if s == args.sessions // 2:
            title += " quasarzebra"
        messages: list[tuple[object, ...]] = []
        parent = None
        for i in range(args.per_session):
            num += 1
            mid = f"msg_bench_{num:08d}"
            created = now + s * 3600 + i
            text = make_text(rng, vocab, cum)
            if num % 250_000 == 0:
                text += " xylophonicus"  # a rare word: 4 messages in a million
            if i % 10 == 5:
                parts = [
                    {
                        "type": "tool_call",
                        "id": f"c{num}",
                        "name": "search_files",
                        "arguments": json.dumps({"pattern": text.split()[0]}),
                    }
                ]
                role = "assistant"
            elif i % 10 == 6:
                parts = [
                    {
                        "type": "tool_result",
                        "tool_call_id": f"c{num - 1}",
                        "name": "search_files",
                        "content": text,
                    }
                ]
                role = "tool"
            else:
                parts = [{"type": "text", "text": text}]
                role = "user" if i % 2 == 0 else "assistant"
            messages.append(
                (mid, sid, i + 1, parent, created, role, "complete", created, json.dumps(parts))
            )
            parent = mid
        session = (sid, title, now + s * 3600, now + s * 3600 + args.per_session, parent)
        yield messages, session


def build(path: Path, args: argparse.Namespace) -> float:
    started = time.perf_counter()
    db = Database(path)
    with db.transaction() as conn:
        for messages, session in rows(args):
            conn.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at, active_leaf_id) "
                "VALUES (?, ?, ?, ?, ?)",
                session,
            )
            conn.executemany(
                "INSERT INTO messages (id, session_id, seq, parent_id, selected_at, role, status,"
                " created_at, parts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                messages,
            )
    db.close()
    return time.perf_counter() - started


QUERIES = [
    ("frequent word (prefix)", "kalo"),
    ("frequent word, exact", '"kalo"'),
    ("two frequent words", "kalo mine"),
    ("3-letter prefix", "kal"),
    ("1-letter word", "k"),
    ("2-letter word", "ka"),
    ("rare word", "xylophonicus"),
    ("frequent + rare word", "kalo xylophonicus"),
    ("word in a title", "quasarzebra"),
    ("Cyrillic", "привет"),
    ("Cyrillic, ё typed as е", "елка"),
    ("Greek without accents", "καλημερα"),
    ("Japanese (trigram)", "タワー"),
    ("Chinese, 2 characters (scan)", "搜索"),
    ("Chinese, 2 characters, no match", "猫狗"),
    ("mixed Latin + Japanese", "kalo 東京タ"),
    ("Latin + 2 Chinese chars, no match", "kalo 猫狗"),
    ("mixed, no common row", "xylophonicus 東京タ"),
    ("no match", "zzzzqqqq"),
]


def measure(store: SessionStore, query: str, repeat: int) -> tuple[float, float, int]:
    hits = len(store.search(query))  # warm the page cache
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        store.search(query)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    return statistics.median(times), p95, hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--per-session", type=int, default=100)
    parser.add_argument("--db", type=Path, help="database file (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep an existing --db, skip build")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    scratch = tempfile.TemporaryDirectory(prefix="assista-bench-")
    path = args.db or Path(scratch.name) / "bench.sqlite3"
    total = args.sessions * args.per_session
    if not (args.keep and path.exists()):
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        print(f"building {args.sessions:,} chats / {total:,} messages in {path} ...", flush=True)
        seconds = build(path, args)
        print(f"built in {seconds:.1f} s ({total / seconds:,.0f} messages/s)")
    print(f"database size: {path.stat().st_size / 1e6:,.0f} MB")
    started = time.perf_counter()
    db = Database(path)
    print(f"open: {(time.perf_counter() - started) * 1000:.1f} ms")
    started = time.perf_counter()
    result = db.quick_check()
    print(f"PRAGMA quick_check: {time.perf_counter() - started:.2f} s ({result[0]})")
    store = SessionStore(db)
    print(f"\n{'query':<34} {'text':<16} {'median ms':>10} {'p95 ms':>8} {'hits':>5}")
    worst = 0.0
    for label, query in QUERIES:
        median, p95, hits = measure(store, query, args.repeat)
        worst = max(worst, median)
        print(f"{label:<34} {query:<16} {median:>10.2f} {p95:>8.2f} {hits:>5}")
    print(f"\nslowest median: {worst:.1f} ms (target < 100 ms)")
    db.close()
    scratch.cleanup()


if __name__ == "__main__":
    main()
