"""Previews of what an answer made (an HTML page, a mermaid diagram) as a local HTML file
that can make no network request.

A preview runs the model's code in a browser, so the page is locked down:

* a Content-Security-Policy ``<meta>`` first in the document: ``default-src 'none'``
  (no fetch, XHR, WebSocket, image, font, frame or form target from anywhere), inline
  ``<script>`` and ``<style>`` only, images only as ``data:`` URLs. A second policy the
  model's page may declare can only narrow it (browsers enforce every policy);
* the model's page sits in an ``<iframe sandbox="allow-scripts" srcdoc=...>``: it cannot
  navigate the top window, open windows or submit forms, and its own navigations are
  frame loads, which the inherited ``default-src 'none'`` refuses (a CSP does not cover
  a page's navigation of itself: ``location = 'http://...'`` or a meta refresh would
  otherwise leave it);
* a mermaid diagram is rendered by mermaid.js bundled with the app (``resources/web/``,
  fetched from npm at build time), inlined, with mermaid's ``strict`` security level.

The file is regenerated from the current text each time a preview opens.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from desktop.resources import resources_dir

__all__ = ["CSP", "MermaidMissing", "html_page", "is_page", "mermaid_page", "mermaid_script",
           "write_preview"]

CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
       "img-src data:")
_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
_PAGE_START = re.compile(r"^\s*(<!doctype\s+html|<html[\s>])", re.IGNORECASE)


class MermaidMissing(FileNotFoundError):
    """mermaid.js is not in this build (it was made without npm)."""


def is_page(text: str) -> bool:
    """Whether ``text`` is a whole HTML page (an answer or a code block to preview)."""
    return bool(_PAGE_START.match(text)) and "</html>" in text.lower()


def _locked(title: str, body: str, *, head: str = "") -> str:
    return ("<!DOCTYPE html>\n<html><head>" + _META + '<meta charset="utf-8">'
            f"<title>{html.escape(title)}</title>{head}</head>"
            f"<body>{body}</body></html>\n")


def html_page(source: str, title: str = "Preview") -> str:
    """``source`` (a model's HTML) as a locked-down page: in a sandboxed frame under the
    policy, which is also the first thing of the frame's own document."""
    inner = _META + '<meta charset="utf-8">' + source
    frame = ('<iframe sandbox="allow-scripts" title="preview" '
             f'srcdoc="{html.escape(inner, quote=True)}"></iframe>')
    style = ("<style>html,body{margin:0;height:100%}"
             "iframe{border:0;width:100%;height:100%;display:block}</style>")
    return _locked(title, frame, head=style)


def mermaid_script(folder: Path | None = None) -> str:
    """The bundled mermaid.min.js; :class:`MermaidMissing` when this build has none."""
    base = folder or resources_dir()
    path = (base / "web" / "mermaid" / "mermaid.min.js") if base is not None else None
    if path is None or not path.is_file():
        raise MermaidMissing("mermaid.js is not bundled with this build")
    return path.read_text(encoding="utf-8")


def mermaid_page(diagram: str, *, dark: bool = False, script: str | None = None) -> str:
    """A page that draws ``diagram`` with the bundled mermaid.js, offline. A diagram
    mermaid cannot parse shows mermaid's own error text in the page."""
    code = script if script is not None else mermaid_script()
    theme = "dark" if dark else "default"
    background = "#1e1e1e" if dark else "#ffffff"
    # "</script" inside the library would end the element early: it has none, but be safe.
    code = code.replace("</script", "<\\/script")
    run = ("mermaid.initialize({startOnLoad:false,securityLevel:'strict',theme:'"
           + theme + "'});"
           "mermaid.run({querySelector:'.mermaid'}).then(function(){"
           "document.body.setAttribute('data-rendered','yes');},function(e){"
           "document.body.setAttribute('data-rendered','error');"
           "var p=document.createElement('pre');p.textContent=String(e&&e.message||e);"
           "document.body.appendChild(p);});")
    body = (f'<pre class="mermaid">{html.escape(diagram)}</pre>'
            f"<script>{code}</script><script>{run}</script>")
    style = (f"<style>body{{margin:16px;background:{background};"
             "font-family:sans-serif}.mermaid{display:flex;justify-content:center}</style>")
    return _locked("Diagram", body, head=style)


def write_preview(folder: Path, page: str, stem: str = "preview") -> Path:
    """Write ``page`` to ``folder`` under a name of its content (a changed text is a new
    file: a browser tab already open keeps the old one); returns the path."""
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(page.encode("utf-8")).hexdigest()[:12]
    path = folder / f"{stem}-{digest}.html"
    path.write_text(page, encoding="utf-8")
    return path
