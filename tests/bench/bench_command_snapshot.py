"""What keeping the workspace before a command costs (undo for run_command), on a
10,000-file workspace by default.

    .venv/bin/python tests/bench/bench_command_snapshot.py [--files N] [--size BYTES]
                                                           [--dirs D] [--keep]

Builds a workspace of N files (sizes spread around --size, in D folders, plus a
``.git`` folder of N/4 files that is never walked), then measures, each printed with
the machine's load average beside it:

- the first command in the workspace: every file is read and kept (time, files and
  bytes copied, the disk the checkpoint folder takes);
- a later command with nothing changed: a walk only (the median of 5);
- a later command after 100 files changed: the walk plus 100 copies;
- the walk after a command that changed 100 files, created 100 and deleted 100 (what
  the turn notes), and the undo that puts them back.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from desktop.tools.checkpoints import CheckpointStore  # noqa: E402
from desktop.tools.workspace_snapshot import WorkspaceSnapshots  # noqa: E402

T = TypeVar("T")


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f}/{five:.2f} on {os.cpu_count()} cores"


def disk(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def build(ws: Path, files: int, size: int, dirs: int) -> int:
    rng = random.Random(7)
    total = 0
    for i in range(files):
        folder = ws / f"pkg{i % dirs:03d}" / f"sub{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        n = max(1, int(rng.expovariate(1 / size)))
        data = (f"file {i} " * (n // 8 + 1))[:n].encode()
        (folder / f"f{i:05d}.txt").write_bytes(data)
        total += n
    git = ws / ".git" / "objects"
    git.mkdir(parents=True)
    for i in range(files // 4):
        (git / f"o{i:05d}").write_bytes(b"g" * 64)
    return total


def timed(label: str, action: Callable[[], T]) -> T:
    started = time.perf_counter()
    result = action()
    print(f"{label}: {(time.perf_counter() - started) * 1000:.0f} ms  ({load()})")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=4_000, help="mean file size in bytes")
    parser.add_argument("--dirs", type=int, default=100)
    parser.add_argument("--keep", action="store_true", help="leave the folders behind")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="assista-bench-snapshot-"))
    ws, data = base / "ws", base / "data" / "checkpoints"
    ws.mkdir()
    try:
        total = build(ws, args.files, args.size, args.dirs)
        print(f"workspace: {args.files} files, {total / 1e6:.1f} MB "
              f"({disk(ws) / 1e6:.1f} MB on disk), plus {args.files // 4} files in .git")
        store = CheckpointStore(data)
        walks = WorkspaceSnapshots(store, ws)
        first = timed("first command (walk + keep every file)", walks.before)
        print(f"  copied {first.copied_files} files, {first.copied_bytes / 1e6:.1f} MB; "
              f"checkpoint folder {disk(data) / 1e6:.1f} MB "
              f"(index {walks.index_path.stat().st_size / 1e6:.2f} MB)")
        times = []
        for _ in range(5):
            started = time.perf_counter()
            again = walks.before()
            times.append(time.perf_counter() - started)
        print(f"later command, nothing changed (walk only): median "
              f"{statistics.median(times) * 1000:.0f} ms, copied {again.copied_files} "
              f"files  ({load()})")
        names = sorted(p for p in ws.rglob("*.txt"))
        for path in names[:100]:
            path.write_text("changed by the user\n")
        timed("later command after 100 files changed (walk + 100 copies)", walks.before)
        before = walks.before()
        for path in names[100:200]:
            path.write_text("changed by the command\n")
        for path in names[200:300]:
            path.unlink()
        for i in range(100):
            (ws / "made" / f"n{i}.txt").parent.mkdir(exist_ok=True)
            (ws / "made" / f"n{i}.txt").write_text("new\n")
        found = timed("after the command (walk + keep 100 changed)",
                      lambda: walks.after(before))
        turn = store.begin("bench", "q")
        turn.note_command("c1", found)
        print(f"  noted {len(turn.changes.files)} files, "
              f"{len(turn.changes.dirs_created)} folders")
        done = timed("undo of that command", lambda: store.undo(turn.changes))
        print(f"  put back {len(done)} files; checkpoint folder now "
              f"{disk(data) / 1e6:.1f} MB")
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
