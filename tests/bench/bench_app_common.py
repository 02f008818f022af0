"""What the whole-process benchmarks share: a paced SSE server in the parent process
(so its CPU is not counted as the app's), a virtual screen, and the real window."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


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


def open_window(base_url: str, data_dir: str) -> tuple[Any, Any, Any, Any, Any]:
    """The real window on a data folder with one provider at ``base_url``:
    ``(app, loop, ctx, controller, window)``, shown at 1280x820."""
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
    return app, loop, ctx, controller, window


def run_child(script: str, args: list[str], env: dict[str, str]) -> dict[str, float]:
    """Run ``script --child ...`` in a fresh process; its last line is a JSON dict."""
    out = subprocess.run([sys.executable, script, *args], capture_output=True, text=True,
                         check=False, env=env, cwd=ROOT, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{out.stderr[-3000:]}")
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


