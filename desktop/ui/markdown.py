"""Markdown to the HTML subset Qt's rich-text engine understands.

Raw HTML in model output is escaped (``html=False``), never interpreted. Fenced code
is highlighted with Pygments using inline styles, since QTextDocument has no CSS
classes for spans.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, guess_lexer
from pygments.util import ClassNotFound


def _make_parser(dark: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(tasklists_plugin)
    style = "monokai" if dark else "friendly"
    formatter = HtmlFormatter(noclasses=True, nowrap=True, style=style)

    def fence(_renderer, tokens, idx, _options, _env):  # type: ignore[no-untyped-def]
        token = tokens[idx]
        lang = (token.info or "").strip().split(" ")[0]
        return code_block_html(token.content, lang, formatter, dark)

    md.add_render_rule("fence", fence)
    md.add_render_rule("code_block", fence)
    border = "#3a3f46" if dark else "#d0d5dc"

    def table_open(_renderer, _tokens, _idx, _options, _env):  # type: ignore[no-untyped-def]
        return (f'<table border="1" cellspacing="0" cellpadding="6" '
                f'style="border-collapse: collapse; border: 1px solid {border}; '
                f'margin: 6px 0;">\n')

    md.add_render_rule("table_open", table_open)

    def cell_open(_renderer, tokens, idx, _options, _env):  # type: ignore[no-untyped-def]
        token = tokens[idx]
        tag = "th" if token.type == "th_open" else "td"
        style = token.attrGet("style") or ""
        align = style.replace("text-align:", "").strip()
        align_attr = f' align="{align}"' if align else ""
        return f'<{tag} style="border: 1px solid {border};"{align_attr}>'

    md.add_render_rule("th_open", cell_open)
    md.add_render_rule("td_open", cell_open)
    return md


_CHECKBOX = re.compile(r'<input class="task-list-item-checkbox"( checked="checked")?[^>]*>')


def _checkbox(match: re.Match[str]) -> str:
    return "☑" if match.group(1) else "☐"


def code_block_html(code: str, lang: str, formatter: HtmlFormatter[str], dark: bool) -> str:
    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None and len(code) < 20000 and lang:
        try:
            lexer = guess_lexer(code)
        except ClassNotFound:
            lexer = None
    body = highlight(code, lexer, formatter) if lexer is not None else html.escape(code)
    bg = "#1f2227" if dark else "#f4f5f7"
    label_color = "#9aa0a6" if dark else "#6b7280"
    label = (f'<div style="color:{label_color}; font-size:small;">{html.escape(lang)}</div>'
             if lang else "")
    return (
        f'<table width="100%" cellpadding="8" cellspacing="0" style="margin: 6px 0;" '
        f'bgcolor="{bg}"><tr><td>{label}'
        f'<pre style="margin:0; white-space: pre-wrap;">{body}</pre></td></tr></table>'
    )


@lru_cache(maxsize=2)
def parser(dark: bool) -> MarkdownIt:
    return _make_parser(dark)


def render_markdown(text: str, *, dark: bool = False) -> str:
    """HTML for ``text``; safe to feed to a QTextBrowser."""
    rendered = str(parser(dark).render(text))
    if "task-list-item-checkbox" in rendered:
        rendered = _CHECKBOX.sub(_checkbox, rendered)
    return rendered
