"""What the request inspector's recording costs, per event, free of the machine's noise:
the streaming path's capture per chunk, and a real InspectorWriter storing SSE events
(redacted against known secrets) into a real file, in the batches the streaming path
hands over (256 events) and one event at a time (a slow stream flushes about once a
second).

What it costs the whole app is measured on the shipped ``assista``, recording on against
off in the same run, alternating (``tests/bench/bench_shipped_stream.py --inspector-off``:
"app / app-noinsp").

    .venv/bin/python tests/bench/bench_inspector.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


EVENT_TARGET_MS = 2.0  # per event saved


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
    from tests.bench.bench_chat_common import verdict

    per_chunk = capture_cpu_per_chunk()
    print(f"load {os.getloadavg()[0]:.2f}; the streaming path's capture: "
          f"{per_chunk * 1e6:.1f} µs of CPU a chunk")
    for batch, count in ((256, 20_480), (1, 2_000)):
        load = os.getloadavg()[0]
        ms = per_event_ms(batch, count)
        print(f"  saving an event, batches of {batch:>3}: {ms:.3f} ms "
              f"(target < {EVENT_TARGET_MS:.0f} ms)   {verdict(ms < EVENT_TARGET_MS)}   "
              f"load {load:.2f}")
    print("  whole app, recording on against off: tests/bench/bench_shipped_stream.py "
          "--inspector-off")
    return 0


if __name__ == "__main__":
    sys.exit(main())
