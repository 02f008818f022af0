"""A preview's page makes no network request while its script runs, and mermaid draws
offline: checked in a real browser (Debian's chromium, headless) against a loopback
HTTP server that records every request."""

from __future__ import annotations

import http.server
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.core.page_preview import (
    CSP,
    MermaidMissing,
    html_page,
    is_page,
    mermaid_page,
    mermaid_script,
    write_preview,
)
from tests.support import served

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed "
                                   "(packaging/dev.py test installs it)")


class Recorder(http.server.ThreadingHTTPServer):
    def __init__(self) -> None:
        self.paths: list[str] = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.paths.append(self.path)
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_POST = do_GET

            def log_message(self, format: str, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def server() -> Iterator[Recorder]:
    recorder = Recorder()
    thread = served.serve(recorder)
    yield recorder
    served.stop(recorder, thread)


def browse(path: Path, profile: Path) -> subprocess.CompletedProcess[str]:
    """Open ``path`` in headless chromium, run its timers, print its DOM (stdout) and
    its console (stderr)."""
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=3000", "--dump-dom", path.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)


def hostile_page(url: str) -> str:
    """A page that tries every way out: sub-resources, fetch, a beacon, a form, a
    navigation of itself, of the top window, a meta refresh and a popup."""
    return f"""<!DOCTYPE html><html><head>
<meta http-equiv="refresh" content="1;url={url}/refresh">
<link rel="stylesheet" href="{url}/css"><script src="{url}/script.js"></script></head>
<body><img src="{url}/img"><iframe src="{url}/frame"></iframe>
<form id="f" action="{url}/form" method="post"><input name="a" value="1"></form>
<script>
console.log("PREVIEW-SCRIPT-RAN " + (40 + 2));
fetch("{url}/fetch").catch(function () {{}});
navigator.sendBeacon && navigator.sendBeacon("{url}/beacon", "x");
new Image().src = "{url}/img2";
try {{ document.getElementById("f").submit(); }} catch (e) {{}}
window.open("{url}/popup");
try {{ top.location = "{url}/top"; }} catch (e) {{}}
setTimeout(function () {{ location.href = "{url}/self"; }}, 200);
</script></body></html>"""


@needs_browser
def test_the_preview_blocks_every_request_while_its_script_runs(
        server: Recorder, tmp_path: Path) -> None:
    page = hostile_page(server.url)
    raw = browse(write_preview(tmp_path, page, "raw"), tmp_path / "profile-raw")
    # The check can see a request: the same page, not locked down, makes them.
    assert "/fetch" in server.paths and "/img" in server.paths, server.paths
    assert "PREVIEW-SCRIPT-RAN 42" in raw.stderr
    server.paths.clear()
    locked = browse(write_preview(tmp_path, html_page(page)), tmp_path / "profile")
    assert "PREVIEW-SCRIPT-RAN 42" in locked.stderr  # the model's script did run
    assert server.paths == []


def test_the_policy_is_the_first_thing_of_the_page_and_of_its_frame() -> None:
    page = html_page("<p>hi</p>")
    assert page.index("Content-Security-Policy") < page.index("<title>")
    assert f'content="{CSP}"' in page
    assert "default-src 'none'" in CSP and "img-src data:" in CSP
    assert 'sandbox="allow-scripts"' in page
    assert "srcdoc=\"&lt;meta http-equiv=&quot;Content-Security-Policy&quot;" in page


def test_is_page_tells_a_whole_page_from_a_fragment() -> None:
    assert is_page("<!DOCTYPE html>\n<html><body>x</body></html>")
    assert is_page("  <html lang='en'><body>x</body></html>")
    assert not is_page("<div>a fragment</div>")
    assert not is_page("Here is a page: <html></html>")


def test_a_preview_is_regenerated_from_the_current_text(tmp_path: Path) -> None:
    first = write_preview(tmp_path, html_page("<p>one</p>"))
    second = write_preview(tmp_path, html_page("<p>two</p>"))
    assert first != second and "two" in second.read_text()
    assert write_preview(tmp_path, html_page("<p>one</p>")) == first


@needs_browser
def test_mermaid_draws_offline(server: Recorder, tmp_path: Path) -> None:
    try:
        script = mermaid_script()
    except MermaidMissing:
        pytest.skip("mermaid.js not fetched (python packaging/web_assets.py; needs npm)")
    page = mermaid_page("graph TD\n  Start --> Check{Ok?}\n  Check -->|yes| Done", script=script)
    done = browse(write_preview(tmp_path, page, "diagram"), tmp_path / "profile")
    assert 'data-rendered="yes"' in done.stdout, done.stdout[-2000:]
    assert "<svg" in done.stdout and "Check" in done.stdout
    assert server.paths == []


def test_without_mermaid_the_preview_says_so(tmp_path: Path) -> None:
    with pytest.raises(MermaidMissing):
        mermaid_script(tmp_path)
