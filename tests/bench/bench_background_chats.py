"""Two chats streaming at once, one of them in the background, against one chat alone.

Whole process, the way a user pays: the real window (MainWindow + ChatController +
ChatService, on Xvfb when it is installed, else offscreen), a real loopback HTTP
server in another process streaming SSE at a fixed token rate, saving to SQLite,
the bridge, rendering and painting. Each scenario runs in a fresh process; its CPU
(user + system, all threads) is divided by the stream's wall time:

- ``one``: one chat answers on screen (the baseline of this run);
- ``two``: chat A is asked, the user presses Ctrl+N and asks chat B; both stream at
  the same time, B on screen, A in the background.

Target (issue 11): CPU(two) ≤ 1.3 × CPU(one): a chat nobody looks at costs no
rendering.

    .venv/bin/python tests/bench/bench_background_chats.py [--rate 250] [--chars 12000]
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

# -- one scenario in a fresh process -------------------------------------------------------

def scenario(kind: str, base_url: str, data_dir: str) -> dict[str, float]:
    import asyncio

    _app, loop, ctx, controller, window = open_window(base_url, data_dir)
    result: dict[str, float] = {}

    async def run() -> None:
        await asyncio.sleep(0.5)  # the window painted, start-up work done
        cpu0, wall0 = time.process_time(), time.perf_counter()
        controller.send("Write a long answer")
        if kind == "two":
            first = controller.session_id
            controller.new_session()  # what Ctrl+N does
            controller.send("And another one")
            assert controller.service.running(first) is not None
        await controller.service.wait_idle()
        result["cpu"] = time.process_time() - cpu0
        result["wall"] = time.perf_counter() - wall0

    with loop:
        loop.run_until_complete(run())
    complete = [m for s in ctx.sessions.list_sessions() for m in ctx.sessions.load_messages(s.id)
                if m.role == "assistant" and m.status == "complete"]
    result["complete"] = float(len(complete))
    window.close()
    ctx.close()
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=float, default=250.0, help="tokens per second")
    parser.add_argument("--chars", type=int, default=12_000)
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
    server = serve(text, args.rate)
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    env, xvfb, screen = start_display()
    print(f"answer: {len(text):,} chars ≈ {len(text) // 4:,} tokens at {args.rate:.0f} "
          f"tokens/s per chat; window on {screen}; {args.runs} runs each, alternating")
    figures: dict[str, list[float]] = {"one": [], "two": []}
    try:
        for _ in range(args.runs):
            for kind in ("one", "two"):
                with tempfile.TemporaryDirectory() as data:
                    r = run_child(__file__, ["--child", kind, "--url", base_url,
                                             "--data", data], env)
                expected = 1 if kind == "one" else 2
                if r["complete"] != expected:
                    print(f"  {kind}: only {r['complete']:.0f} of {expected} answers complete")
                    return 1
                figures[kind].append(r["cpu"] / r["wall"])
                print(f"  {kind}: {r['cpu']:.2f} s CPU over {r['wall']:.1f} s = "
                      f"{r['cpu'] / r['wall']:.3f} of a core")
    finally:
        server.shutdown()
        if xvfb is not None:
            xvfb.terminate()
    one, two = statistics.median(figures["one"]), statistics.median(figures["two"])
    ratio = two / one
    print(f"one chat on screen (baseline)     {one:.3f} of a core (median)")
    print(f"two chats, one in the background  {two:.3f} of a core (median)")
    print(f"ratio {ratio:.2f}x   (target <= 1.30x)   {verdict(ratio <= 1.3)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
