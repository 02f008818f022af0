"""What the request inspector's recording costs: the whole app streaming at 250 tok/s
with recording on and off (same run, alternating), and the time to save one event.

Whole process: the real window on Xvfb (when installed), a loopback server in the
parent process streaming SSE at a fixed token rate, the provider, the agent loop, the
chats database, rendering -- and, when on, the inspector capturing every chunk and its
writer thread storing them in inspector.sqlite. The child's CPU (all threads) over the
stream's wall time, the inspector's pending batches flushed inside the measured time.

Per event saved: a real InspectorWriter storing SSE events (redacted against known
secrets) into a real file, in the batches the streaming path hands over (256 events)
and one event at a time (a slow stream flushes about once a second).

    .venv/bin/python tests/bench/bench_inspector.py [--chars 23700] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.bench_app_common import open_window, run_child, serve, start_display

RATE = 250.0  # tokens per second
CPU_TARGET = 0.05  # recording adds less than 5 % to the whole process's CPU
EVENT_TARGET_MS = 2.0  # per event saved


def scenario(kind: str, base_url: str, data_dir: str) -> dict[str, float]:
    import asyncio

    _app, loop, ctx, controller, _window = open_window(base_url, data_dir)
    ctx.settings.update(inspector_enabled=kind == "on")
    result: dict[str, float] = {"writer_cpu": 0.0}
    writer = ctx.inspector
    store_batch = writer._write

    def timed_write(batch: object) -> None:  # the writer thread's own CPU, summed
        start = time.thread_time()
        store_batch(batch)  # type: ignore[arg-type]
        result["writer_cpu"] += time.thread_time() - start

    writer._write = timed_write  # type: ignore[method-assign]

    async def run() -> None:
        await asyncio.sleep(0.5)  # the window painted, start-up work done
        cpu0, wall0 = time.process_time(), time.perf_counter()
        controller.send("Write a long answer")
        await controller.service.wait_idle()
        if kind == "on":
            ctx.inspector.flush(60)  # what it recorded is stored, inside the measure
        result["cpu"] = time.process_time() - cpu0
        result["wall"] = time.perf_counter() - wall0
        if kind == "on":
            store = ctx.inspector.store
            records = store._records("SELECT * FROM exchanges", ())
            result["events"] = float(sum(len(r.chunks) for r in records))
            result["exchanges"] = float(len(records))

    with loop:
        loop.run_until_complete(run())
    ctx.close()
    return result


def capture_cpu_per_chunk(chunks: int = 20_000) -> float:
    """CPU seconds the streaming path spends recording one chunk of 5 SSE events (what
    a 250 tok/s stream sends every 20 ms): the chunk noted, its events looked at."""
    from desktop.core.events import TextDelta
    from desktop.core.exchange import CaptureBatch, ExchangeRecording
    from desktop.core.messages import Message
    from desktop.core.provider import ChatRequest
    from desktop.providers.recording import ExchangeCapture

    class Discard:
        def write(self, batch: CaptureBatch) -> None:
            pass

        def known_secrets(self) -> list[str]:
            return []

    request = ChatRequest(model="bench", messages=[Message.user("hi")])
    capture = ExchangeCapture(ExchangeRecording(Discard(), "openai"), "Bench", request, ())
    data = b'data: {"choices":[{"index":0,"delta":{"content":"word"}}]}\n\n' * 5
    events = [TextDelta("word") for _ in range(5)]
    start = time.process_time()
    for _ in range(chunks):
        capture.chunk(data)
        for event in events:
            capture.event(event)
    capture.finish()
    return (time.process_time() - start) / chunks


def per_event_ms(batch: int, events: int) -> float:
    """Wall milliseconds per event to store ``events`` SSE events in ``batch``-sized
    batches through the real writer (its thread, redaction, SQLite commits)."""
    from desktop.core.exchange import CaptureBatch, ExchangeHead, ExchangeTail
    from desktop.storage.inspector_writer import InspectorWriter

    line = (b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,'
            b'"delta":{"content":"word"},"finish_reason":null}]}\n\n')
    with tempfile.TemporaryDirectory() as root:
        writer = InspectorWriter(Path(root), lambda: (14.0, 500.0),
                                 lambda: ["mcp-token-0123456789"])
        head = ExchangeHead(id="bench", started_at=time.time(), provider="Bench",
                            provider_id=None, kind="openai", model="bench", session_id="s",
                            message_id="m", url="http://127.0.0.1/v1/chat/completions",
                            headers=[("Authorization", "Bearer sk-bench-key-0123456789")],
                            body=b'{"model":"bench"}')
        writer.write(CaptureBatch("bench", ("sk-bench-key-0123456789",), head))
        writer.flush()
        start = time.perf_counter()
        seq = 0
        while seq < events:
            chunks = [(seq * 0.004 + i * 0.004, line) for i in range(batch)]
            writer.write(CaptureBatch("bench", ("sk-bench-key-0123456789",), None, seq,
                                      chunks))
            seq += batch
        writer.write(CaptureBatch("bench", (), None, seq, [], ExchangeTail(status=200)))
        writer.flush(120)
        elapsed = time.perf_counter() - start
        writer.close()
    return elapsed * 1000 / seq


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chars", type=int, default=23_700)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child")
    parser.add_argument("--url")
    parser.add_argument("--data")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(scenario(args.child, args.url, args.data)))
        return 0

    from tests.bench.bench_chat_common import long_answer, verdict

    text = long_answer(args.chars)
    env, xvfb, screen = start_display()
    print(f"answer: {len(text):,} chars ≈ {len(text) // 4:,} tokens at {RATE:.0f} tok/s; "
          f"window on {screen}; {args.runs} runs each, recording off/on alternating; "
          "medians")
    try:
        server = serve(text, RATE)
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        figures: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
        for _ in range(args.runs):
            for kind in ("off", "on"):
                with tempfile.TemporaryDirectory() as data:
                    figures[kind].append(run_child(
                        __file__, ["--child", kind, "--url", url, "--data", data], env))
        server.shutdown()
    finally:
        if xvfb is not None:
            xvfb.terminate()
    off = statistics.median(r["cpu"] / r["wall"] for r in figures["off"])
    on = statistics.median(r["cpu"] / r["wall"] for r in figures["on"])
    added = (on - off) / off if off else 0.0
    wall = statistics.median(r["wall"] for r in figures["on"])
    events = statistics.median(r["events"] for r in figures["on"])
    print(f"{RATE:.0f} tok/s, {wall:.1f} s stream, {events:.0f} events recorded per run:")
    print(f"  baseline: recording off   {off:.3f} of a core")
    print(f"  recording on              {on:.3f} of a core   added {added * 100:+.1f} % "
          f"(target < {CPU_TARGET * 100:.0f} %)   {verdict(added < CPU_TARGET)}")
    print("  each run (off, on): " + ", ".join(
        f"({a['cpu'] / a['wall']:.3f}, {b['cpu'] / b['wall']:.3f})"
        for a, b in zip(figures["off"], figures["on"], strict=True)))
    # The recording's own work, free of the machine's noise: the writer thread's CPU
    # (measured in the runs) plus the streaming path's (measured here, per chunk).
    writer_cpu = statistics.median(r["writer_cpu"] / r["wall"] for r in figures["on"])
    per_chunk = capture_cpu_per_chunk()
    path_cpu = per_chunk * events / wall
    own = (writer_cpu + path_cpu) / off if off else 0.0
    print(f"  recording's own CPU: writer thread {writer_cpu:.4f} + streaming path "
          f"{path_cpu:.5f} ({per_chunk * 1e6:.1f} µs a chunk) of a core = "
          f"{own * 100:.2f} % of the baseline "
          f"(target < {CPU_TARGET * 100:.0f} %)   {verdict(own < CPU_TARGET)}")
    for batch, count in ((256, 20_480), (1, 2_000)):
        ms = per_event_ms(batch, count)
        print(f"  saving an event, batches of {batch:>3}: {ms:.3f} ms "
              f"(target < {EVENT_TARGET_MS:.0f} ms)   {verdict(ms < EVENT_TARGET_MS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
