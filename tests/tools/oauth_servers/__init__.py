"""OAuth authorization servers nobody here wrote, from the npm registry, started on
loopback for the MCP sign-in tests: panva's ``oidc-provider`` and ``oauth2-mock-server``
(``packaging/dev.py test`` installs them under ``build/test-servers``; a test that needs
one is skipped, saying so, where it is missing). The ``.mjs`` files beside this one only
configure and start them; :class:`AuthServer` runs one as a process, and
:class:`FormBrowser` plays the person's browser, filling in the sign-in and consent
forms a server shows on the way back to the app.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest

from tests.tools.mcp_reference import PREFIX

HERE = Path(__file__).parent
LAUNCHERS = {"oidc-provider": HERE / "oidc_provider.mjs",
             "oauth2-mock-server": HERE / "oauth2_mock.mjs"}


class AuthServer:
    """One of the npm authorization servers, its state in ``state_dir``; ``port`` 0 is
    a free one. :meth:`restart` starts a new process on the same port and state."""

    def __init__(self, package: str, state_dir: Path, port: int = 0) -> None:
        node = shutil.which("node")
        if node is None or not (PREFIX / "node_modules" / package / "package.json").exists():
            pytest.skip(f"{package} is not installed (packaging/dev.py test installs it "
                        "with npm; it needs Node.js)")
        self.package = package
        self.state_dir = state_dir
        state_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [node, str(LAUNCHERS[package]), str(state_dir)],
            env={**os.environ, "ASSISTA_TEST_SERVERS": str(PREFIX), "PORT": str(port)},
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        self.issuer = self.process.stdout.readline().strip()
        if not self.issuer.startswith("http://127.0.0.1:"):
            self.stop()
            raise AssertionError(f"{package} did not start: {self.issuer!r}")
        self.port = int(self.issuer.rsplit(":", 1)[1])

    def grants(self) -> list[str]:
        """What it logged: ``register <client>``, ``grant <grant_type> <client>``."""
        log = self.state_dir / "grants.log"
        return log.read_text().splitlines() if log.exists() else []

    def restart(self) -> AuthServer:
        self.stop()
        return AuthServer(self.package, self.state_dir, self.port)

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


class _Form(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "form" and (found.get("method") or "").lower() == "post" \
                and self.action is None:
            self.action = found.get("action") or ""
        elif tag == "input" and self.action is not None and found.get("name"):
            self.fields[str(found["name"])] = found.get("value") or ""


class FormBrowser:
    """Opens the authorization URL like a browser (cookies kept, redirects followed) and
    submits each form it is shown (a sign-in as ``login``, then the consent), until it
    lands back on the app's loopback callback."""

    def __init__(self, login: str = "alice") -> None:
        self.login = login
        self.opened: list[str] = []
        self.forms: list[str] = []  # each form submitted: its "prompt" field or action
        self.final = ""  # the text of the last page (the app's "Signed in")

    async def __call__(self, url: str) -> None:
        self.opened.append(url)
        async with httpx.AsyncClient(follow_redirects=True, trust_env=False,
                                     timeout=30) as client:
            response = await client.get(url)
            for _ in range(5):
                form = _Form()
                form.feed(response.text)
                if form.action is None:
                    break
                self.forms.append(form.fields.get("prompt", form.action))
                typed = {"login": self.login, "password": "any password"}
                fields = {name: typed.get(name, value) for name, value in form.fields.items()}
                response = await client.post(urljoin(str(response.url), form.action),
                                             data=fields)
            self.final = response.text
