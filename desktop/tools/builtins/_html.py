"""HTML to readable plain text (for fetch_url), with the standard library's parser.

Scripts, styles, forms, navigation chrome and hidden elements are dropped;
headings become ``#`` lines, list items ``- `` lines, table cells are separated by
`` | ``, paragraphs by blank lines, and links keep their target as
``text (url)`` when the text does not already show it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

_SKIP = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "canvas",
        "iframe",
        "object",
        "select",
        "button",
        "form",
        "nav",
        "footer",
        "aside",
    }
)
_BLOCK = frozenset(
    {
        "p",
        "div",
        "section",
        "article",
        "main",
        "header",
        "blockquote",
        "pre",
        "ul",
        "ol",
        "table",
        "tr",
        "dl",
        "dt",
        "dd",
        "figure",
        "figcaption",
        "hr",
        "br",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "details",
        "summary",
        "address",
    }
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_PARAGRAPH = _HEADINGS | {"p", "pre", "table", "ul", "ol", "blockquote"}
_PREFIX = {"li": "- ", "td": " | ", "th": " | "}
_VOID = frozenset(
    {
        "br",
        "hr",
        "img",
        "input",
        "meta",
        "link",
        "area",
        "base",
        "col",
        "embed",
        "source",
        "track",
        "wbr",
        "param",
    }
)


class _TextExtractor(HTMLParser):
    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.parts: list[str] = []
        self.title = ""
        self._skip: tuple[str, int] | None = None  # the element being skipped, nesting
        self._in_title = False
        self._pre = 0
        self._link: tuple[str, int] | None = None  # href, index of its first part

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "title":
            self._in_title = True
            return
        if self._skip is not None:
            if tag == self._skip[0]:
                self._skip = (tag, self._skip[1] + 1)
            return
        hidden = (
            "hidden" in attr
            or attr.get("aria-hidden") == "true"
            or re.search(r"display\s*:\s*none", attr.get("style") or "")
        )
        if (tag in _SKIP or hidden) and tag not in _VOID:
            self._skip = (tag, 1)
            return
        if tag in _BLOCK:
            self._newline(2 if tag in _PARAGRAPH else 1)
        prefix = _PREFIX.get(tag)
        if tag in _HEADINGS:
            self.parts.append("#" * int(tag[1]) + " ")
        elif prefix is not None:
            self.parts.append(prefix)
        elif tag == "pre":
            self._pre += 1
        elif tag == "a":
            href = attr.get("href") or ""
            if href and not href.startswith(("javascript:", "#")):
                self._link = (urljoin(self.base_url, href), len(self.parts))
        elif tag == "img" and attr.get("alt"):
            self.parts.append(f"[image: {attr['alt']}]")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
            return
        if self._skip is not None:
            if tag == self._skip[0]:
                depth = self._skip[1] - 1
                self._skip = (tag, depth) if depth else None
            return
        if tag == "a" and self._link is not None:
            href, start = self._link
            text = "".join(self.parts[start:]).strip()
            if text and href not in text and not href.startswith("mailto:"):
                self.parts.append(f" ({href})")
            self._link = None
        elif tag == "pre":
            self._pre = max(self._pre - 1, 0)
        if tag in _BLOCK and tag not in ("li", "tr", "dt", "dd"):
            self._newline(2 if tag in _PARAGRAPH else 1)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
            return
        if self._skip is not None:
            return
        if self._pre:
            self.parts.append(data)
        else:
            self.parts.append(re.sub(r"\s+", " ", data))

    def _newline(self, count: int) -> None:
        self.parts.append("\n" * count)


def html_to_text(html: str, base_url: str = "") -> tuple[str, str]:
    """``(title, text)`` of an HTML document."""
    parser = _TextExtractor(base_url)
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    lines = [
        line.strip() if not line.startswith("    ") else line.rstrip() for line in text.split("\n")
    ]
    cleaned = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    cleaned = re.sub(r"^ \| ", "", cleaned, flags=re.MULTILINE)
    return re.sub(r"\s+", " ", parser.title).strip(), cleaned
