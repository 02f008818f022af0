"""Markdown to the HTML subset Qt's rich-text engine understands, one top-level block
at a time.

Raw HTML in model output is escaped (``html=False``), never interpreted; reference
link definitions are off, so every top-level block renders on its own and the HTML of
a document is exactly the concatenation of its blocks' HTML (what lets a streaming
answer commit finished blocks once). Code is highlighted with Pygments using inline
styles, since QTextDocument has no CSS classes for spans. Math becomes
``<img src="math:KEY">`` (typeset later by :mod:`desktop.ui.markdown.math_render`) or, when the
TeX cannot be typeset, stays as code text.
"""

from __future__ import annotations

import html
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from desktop.ui.markdown import math_tex

if TYPE_CHECKING:  # markdown-it loads on first use, not at startup
    from markdown_it.token import Token

BlockKind = Literal["text", "code", "quote", "math"]


class Block(msgspec.Struct, frozen=True):
    """One rendered top-level block."""

    kind: BlockKind
    html: str
    code: str = ""  # code blocks: the code; math blocks: the TeX
    lang: str = ""
    # While a long code block streams it is shown as several pieces drawn as one box
    # (see desktop.ui.markdown.streaming): this piece continues the one above / below it.
    joins_prev: bool = False
    joins_next: bool = False


class Palette(msgspec.Struct, frozen=True):
    """The colours and code style markdown is rendered with (light or dark)."""

    border: str
    code_bg: str
    inline_code_bg: str
    muted: str
    pygments_style: str


LIGHT = Palette("#d0d5dc", "#f4f5f7", "#eceef1", "#6b7280", "friendly")
DARK = Palette("#3a3f46", "#1f2227", "#30343a", "#9aa0a6", "monokai")

_CHECKBOX = re.compile(r'<input class="task-list-item-checkbox"( checked="checked")?[^>]*>')
_HEADING_SIZE = {"h1": "x-large", "h2": "large", "h3": "medium"}
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
CACHE_SIZE = 300
CODE_CACHE_SIZE = 8


@lru_cache(maxsize=64)
def _lexer(lang: str) -> Any:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(lang)
    except ClassNotFound:
        return None


@lru_cache(maxsize=2)
def _formatter(style: str) -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(noclasses=True, nowrap=True, style=style)


def lexer_for(lang: str) -> Any:
    """The Pygments lexer :func:`highlight_code` uses for ``lang`` (None: none)."""
    return _lexer(lang.lower()) if lang else None


def formatter_for(style: str) -> Any:
    """The Pygments formatter :func:`highlight_code` uses for ``style``."""
    return _formatter(style)


#: Made ready one per step after a stored chat shows (desktop.ui.chat.chat_view).
WARM_LANGUAGES = ("python", "javascript", "typescript", "bash", "json", "rust", "go",
                  "java", "c", "cpp", "sql", "html", "yaml", "css")


def warm_highlighters(languages: tuple[str, ...], style: str) -> None:
    """Build the highlighters for ``languages`` (and their formatter) ahead of use."""
    for lang in languages:
        highlight_code("x = 1\n", lang, style)


def highlight_code(code: str, lang: str, style: str) -> str:
    """Highlighted HTML spans for ``code`` (escaped text when the language is unknown).
    No code, no lexer: a streamed fence's first line can end a frame half written
    ("```javascr"), and a lexer looked up by that name was a wrong one built or every
    installed package searched for a plugin."""
    lexer = _lexer(lang.lower()) if lang and code else None
    if lexer is None:
        return html.escape(code)
    from pygments import highlight

    return str(highlight(code, lexer, _formatter(style)))


def code_pre(body: str) -> str:
    """A code block's HTML around its highlighted (or escaped) ``body``."""
    return f'<pre style="margin: 0; white-space: pre-wrap;">{body.removesuffix(chr(10))}</pre>\n'


def math_html(tex: str, display: bool) -> str:
    """An image reference for typesettable TeX, else the TeX as code text."""
    key = math_tex.register(tex, display)
    if key is None:
        return f"<code>{html.escape(tex)}</code>"
    return f'<img src="math:{key}" style="vertical-align: middle;" />'


class MarkdownRenderer:
    """Renders markdown for one look (light or dark)."""

    def __init__(self, palette: Palette) -> None:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.dollarmath import dollarmath_plugin
        from mdit_py_plugins.tasklists import tasklists_plugin

        from desktop.ui.markdown.rules import math_bracket_inline, math_fence_block

        self.palette = palette
        self._code_cache: OrderedDict[tuple[str, str], str] = OrderedDict()
        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable(["table", "strikethrough"])
        md.disable("reference")
        md.use(tasklists_plugin)
        dollarmath_plugin(md, allow_space=False, allow_digits=False, allow_labels=False,
                          double_inline=True, allow_blank_lines=False)
        md.block.ruler.disable("math_block")
        md.block.ruler.before("fence", "math_fence", math_fence_block,
                              {"alt": ["paragraph", "blockquote", "list"]})
        md.inline.ruler.before("escape", "math_bracket", math_bracket_inline)
        rules = {
            "fence": self._fence, "code_block": self._fence, "table_open": self._table_open,
            "th_open": self._cell_open, "td_open": self._cell_open,
            "math_inline": self._math_inline, "math_inline_double": self._math_display,
            "math_block": self._math_block, "image": self._image,
            "code_inline": self._code_inline, "heading_open": self._heading_open,
            "heading_close": self._heading_close, "bullet_list_open": self._bullet_list_open,
        }
        for name, rule in rules.items():
            md.add_render_rule(name, _unbound(rule))
        self.md = md
        self._cache: OrderedDict[str, list[Block]] = OrderedDict()

    # -- whole documents --------------------------------------------------------------

    def parse(self, text: str) -> list[Token]:
        return list(self.md.parse(text))

    def render(self, text: str) -> str:
        """HTML for all of ``text`` in one pass (the reference for incremental renders)."""
        return _fix_checkboxes(str(self.md.render(text)))

    def render_inline(self, text: str) -> str:
        """HTML for ``text`` as the inside of a paragraph (no block markup)."""
        return str(self.md.renderInline(text))

    def blocks(self, text: str) -> list[Block]:
        return [self.render_group(g) for g in top_level_groups(self.parse(text))]

    def has_blocks(self, text: str) -> bool:
        """Whether :meth:`cached_blocks` would answer ``text`` without parsing."""
        return text in self._cache

    def cached_blocks(self, text: str) -> list[Block]:
        """:meth:`blocks` for finished text, remembered (history scrolls back and forth)."""
        found = self._cache.get(text)
        if found is not None:
            self._cache.move_to_end(text)
            return found
        found = self.blocks(text)
        self.remember(text, found)
        return found

    def remember(self, text: str, blocks: list[Block]) -> None:
        """``blocks`` are :meth:`blocks` of ``text`` (parsed in steps elsewhere)."""
        self._cache[text] = blocks
        if len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)

    def render_group(self, group: Sequence[Token]) -> Block:
        rendered = _fix_checkboxes(str(self.md.renderer.render(list(group), self.md.options,
                                                             {})))
        first = group[0]
        if first.type in ("fence", "code_block"):
            return Block("code", rendered, first.content, _lang(first))
        if first.type == "math_block":
            return Block("math", rendered, first.content.strip())
        if first.type == "blockquote_open":
            return Block("quote", rendered)
        return Block("text", rendered)

    # -- render rules -----------------------------------------------------------------

    def _fence(self, tokens: Sequence[Token], idx: int, _o: Any, _e: Any) -> str:
        token = tokens[idx]
        return self.code_html(token.content, _lang(token))

    def code_html(self, code: str, lang: str) -> str:
        """A code block's HTML: ``code`` highlighted as ``lang``. The last few are
        remembered: a block that just closed is rendered as the open tail on every
        frame until the block after it shows where it ends (up to ~15 frames), then
        again as it is committed."""
        key = (code, lang)
        found = self._code_cache.get(key)
        if found is not None:
            return found
        found = code_pre(highlight_code(code, lang, self.palette.pygments_style))
        self._code_cache[key] = found
        if len(self._code_cache) > CODE_CACHE_SIZE:
            self._code_cache.popitem(last=False)
        return found

    def _table_open(self, _t: Sequence[Token], _i: int, _o: Any, _e: Any) -> str:
        return (f'<table border="1" cellspacing="0" cellpadding="6" '
                f'style="border-collapse: collapse; border: 1px solid {self.palette.border};">\n')

    def _cell_open(self, tokens: Sequence[Token], idx: int, _o: Any, _e: Any) -> str:
        token = tokens[idx]
        tag = "th" if token.type == "th_open" else "td"
        style = str(token.attrGet("style") or "")
        align = style.replace("text-align:", "").strip()
        align_attr = f' align="{align}"' if align else ""
        return f'<{tag} style="border: 1px solid {self.palette.border};"{align_attr}>'

    def _code_inline(self, tokens: Sequence[Token], idx: int, _o: Any,
                     _e: Any) -> str:
        code = html.escape(tokens[idx].content)
        return (f'<code style="background-color: {self.palette.inline_code_bg};">'
                f"{code}</code>")

    def _heading_open(self, tokens: Sequence[Token], idx: int, _o: Any,
                      _e: Any) -> str:
        tag = tokens[idx].tag
        size = _HEADING_SIZE.get(tag, "medium")
        return f'<{tag} style="font-size: {size}; margin: 0;">'

    def _heading_close(self, tokens: Sequence[Token], idx: int, _o: Any,
                       _e: Any) -> str:
        return f"</{tokens[idx].tag}>\n"

    def _bullet_list_open(self, tokens: Sequence[Token], idx: int, _o: Any, _e: Any) -> str:
        if "contains-task-list" in str(tokens[idx].attrGet("class") or ""):
            return '<ul style="list-style-type: none; margin-left: -16px;">\n'
        return "<ul>\n"

    def _math_inline(self, tokens: Sequence[Token], idx: int, _o: Any,
                     _e: Any) -> str:
        return math_html(tokens[idx].content.strip(), False)

    def _math_display(self, tokens: Sequence[Token], idx: int, _o: Any,
                      _e: Any) -> str:
        return math_html(tokens[idx].content.strip(), True)

    def _math_block(self, tokens: Sequence[Token], idx: int, _o: Any,
                    _e: Any) -> str:
        tex = tokens[idx].content.strip()
        key = math_tex.register(tex, True)
        if key is None:
            return f'<pre style="margin: 0; white-space: pre-wrap;">{html.escape(tex)}</pre>\n'
        return f'<p align="center"><img src="math:{key}" /></p>\n'

    def _image(self, tokens: Sequence[Token], idx: int, _o: Any, _e: Any) -> str:
        """Images from attachments show inline; anything else is never fetched: it
        becomes a link to open in the browser."""
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = html.escape(token.content or "image")
        if src.startswith("attachment:"):
            return f'<img src="{html.escape(src)}" alt="{alt}" />'
        if src.startswith(_SAFE_SCHEMES):
            return f'<a href="{html.escape(src)}">[image: {alt}]</a>'
        return f"[image: {alt}]"


def _unbound(rule: Callable[..., str]) -> Callable[..., str]:
    """markdown-it binds render rules to its renderer; ours are bound to us."""

    def call(_renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        return rule(tokens, idx, options, env)

    return call


def _lang(token: Token) -> str:
    return (token.info or "").strip().split(" ")[0] if token.info else ""


def _fix_checkboxes(rendered: str) -> str:
    if "task-list-item-checkbox" in rendered:
        rendered = _CHECKBOX.sub(lambda m: "☑" if m.group(1) else "☐", rendered)
    return rendered


def top_level_groups(tokens: Sequence[Token]) -> list[list[Token]]:
    """Splits a token stream into top-level blocks (each balanced in nesting)."""
    groups: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    for token in tokens:
        current.append(token)
        depth += token.nesting
        if depth == 0:
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


@lru_cache(maxsize=2)
def renderer(dark: bool) -> MarkdownRenderer:
    return MarkdownRenderer(DARK if dark else LIGHT)


def render_markdown(text: str, *, dark: bool = False) -> str:
    """HTML for ``text``; safe to feed to a QTextDocument."""
    return renderer(dark).render(text)


def is_safe_link(url: str) -> bool:
    """Links the app may hand to the system browser (never opened inside the app)."""
    return url.lower().startswith(_SAFE_SCHEMES)
