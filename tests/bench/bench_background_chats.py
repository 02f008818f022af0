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
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


# -- the paced server (runs in the parent: its CPU is not the app's) ----------------------

def serve(text: str, rate: float) -> ThreadingHTTPServer:
    tokens = [text[i:i + 4] for i in range(0, len(text), 4)]
    tick = 0.02  # write every 20 ms, as servers batch small writes

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args: object) -> None:
            pass

        def do_GET(self) -> None:  # the model list
            body = json.dumps({"data": [{"id": "bench"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            per_tick = max(1, round(rate * tick))
            start = time.perf_counter()
            for i in range(0, len(tokens), per_tick):
                data = b"".join(
                    b"data: " + json.dumps({"choices": [{"index": 0, "delta": {
                        "content": t}}]}).encode() + b"\n\n" for t in tokens[i:i + per_tick])
                self._chunk(data)
                wait = start + (i + per_tick) / rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
            end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                   "usage": {"prompt_tokens": 10, "completion_tokens": len(tokens)}}
            self._chunk(b"data: " + json.dumps(end).encode() + b"\n\ndata: [DONE]\n\n")
            self._chunk(b"")

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# -- one scenario in a fresh process -------------------------------------------------------

def scenario(kind: str, base_url: str, data_dir: str) -> dict[str, float]:
    import asyncio

    import qasync
    from PySide6.QtWidgets import QApplication

    from desktop.app import AppContext
    from desktop.core.settings import ProviderConfig
    from desktop.storage.secrets import SecretStore
    from desktop.ui.theme import apply_theme
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.main_window import MainWindow

    app = QApplication(sys.argv[:1])
    apply_theme(app, "light")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    ctx = AppContext.open(data_dir, environ={}, log_to_stderr=False)
    ctx.secrets = SecretStore(ctx.paths.secrets_path, force_file=True)
    config = ProviderConfig(name="Bench", preset="custom", base_url=base_url, model="bench")
    ctx.settings_store.save_provider(config)
    ctx.secrets.set(config.id, "sk-bench")
    ctx.settings.update(active_provider_id=config.id)
    controller = ChatController(ctx)
    window = MainWindow(controller)
    window.resize(1280, 820)
    window.show()
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
        result["chats"] = float(len(ctx.sessions.list_sessions()))

    with loop:
        loop.run_until_complete(run())
    complete = [m for s in ctx.sessions.list_sessions() for m in ctx.sessions.load_messages(s.id)
                if m.role == "assistant" and m.status == "complete"]
    result["complete"] = float(len(complete))
    window.close()
    ctx.close()
    return result


def run_child(kind: str, base_url: str, display_env: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as data:
        out = subprocess.run([sys.executable, __file__, "--child", kind, "--url", base_url,
                              "--data", data], capture_output=True, text=True, check=True,
                             env=display_env, cwd=ROOT, timeout=600)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def start_display() -> tuple[dict[str, str], subprocess.Popen[bytes] | None, str]:
    env = dict(os.environ)
    if shutil.which("Xvfb") is None:
        env["QT_QPA_PLATFORM"] = "offscreen"
        return env, None, "offscreen (no Xvfb)"
    number = 120 + os.getpid() % 50
    xvfb = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1400x900x24",
                             "-nolisten", "tcp"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(100):
        if Path(f"/tmp/.X11-unix/X{number}").exists():
            break
        time.sleep(0.05)
    env["DISPLAY"] = f":{number}"
    env["QT_QPA_PLATFORM"] = "xcb"
    return env, xvfb, f"Xvfb :{number}"


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
                r = run_child(kind, base_url, env)
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
