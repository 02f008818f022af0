"""Incremental rendering ends exactly where a one-shot render of the whole text does."""

from __future__ import annotations

import codecs
import itertools
import random
from functools import partial
from typing import Any

import pytest

from desktop.ui.markdown.renderer import LIGHT, Block, MarkdownRenderer, renderer
from desktop.ui.markdown.segments import Segment
from desktop.ui.markdown.streaming import IncrementalMarkdown
from desktop.ui.markdown.view import MarkdownView

DOC = """# Streaming check

A paragraph with **bold**, `code`, a [link](https://example.com), café and naïve,
combining e\u0301 and a family 👩\u200d👩\u200d👧 with a flag 🇫🇷 and 日本語テキスト.

| col a | col b | ✓ |
|:------|------:|:-:|
| 1 | 2 | é |
| x | y | 👍🏽 |

Math $E = mc^2$ inline and \\(a^2 + b^2\\).

$$
\\int_0^1 x\\,dx = \\frac{1}{2}
$$

```python
def f(x):
    return x * 2  # 日本語 👩\u200d👩\u200d👧
```

Setext heading
--------------

> quote line one
continued lazily
> - list in quote

1. one
2. two

   nested para

- [x] done
- [ ] todo

<script>alert(1)</script> <b>bold?</b>

    indented code

~~~
tilde fence with ``` inside
~~~

***
Final para without newline"""


def stream(text: str, pieces: list[str], rng: random.Random,
           rendered: set[int] | None = None) -> tuple[str, list[Block]]:
    """Stream ``pieces``, rendering after most of them; ``rendered`` gets the offsets
    rendered at (a piece not rendered after is one longer piece)."""
    inc = IncrementalMarkdown(renderer(False))
    committed: list[Block] = []
    for piece in pieces:
        inc.append(piece)
        if rng.random() < 0.8:
            committed.extend(inc.update().committed)
            if rendered is not None:
                rendered.add(len(inc.text))
    committed.extend(inc.update(final=True).committed)
    return inc.html(), committed


def random_pieces(text: str, rng: random.Random) -> list[str]:
    pieces, i = [], 0
    while i < len(text):
        n = rng.choice([1, 1, 2, 3, 4, 5, 8, 13, 40])
        pieces.append(text[i:i + n])
        i += n
    return pieces


def test_random_chunkings_match_one_shot() -> None:
    expected = renderer(False).render(DOC)
    final_blocks = renderer(False).blocks(DOC)
    rendered: set[int] = set()
    for seed in range(100):
        rng = random.Random(seed)
        html, committed = stream(DOC, random_pieces(DOC, rng), rng, rendered)
        assert html == expected, f"seed {seed}"
        # what was committed on the way is exactly the final blocks, never revised
        assert committed == final_blocks, f"seed {seed}"
    # between them the chunkings rendered at every offset of the text
    assert rendered >= set(range(1, len(DOC)))


def split_at(text: str, marks: list[str]) -> list[str]:
    """Pieces cut in the middle of each of ``marks``."""
    cuts = []
    for mark in marks:
        at = text.index(mark) + max(1, len(mark) // 2)
        cuts.append(at)
    cuts = sorted(set(cuts))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


@pytest.mark.parametrize("marks", [
    ["```python"],  # a code fence opener split
    ["    return x"],  # inside the fence
    ["```\n\nSetext"],  # the closing fence split
    ["| x | y |"],  # a table row split
    ["|:------|------:|"],  # the table's delimiter row split
    ["e\u0301"],  # a combining accent split from its letter
    ["👩\u200d👩"],  # a ZWJ emoji sequence split
    ["🇫🇷"],  # a flag's regional indicators split
    ["$$\n\\int"],  # display math opener split
    ["--------------"],  # the setext underline split
])
def test_chunks_split_inside_constructs(marks: list[str]) -> None:
    pieces = split_at(DOC, marks)
    html, _ = stream(DOC, pieces, random.Random(0))
    assert html == renderer(False).render(DOC)


def test_utf8_bytes_split_mid_character() -> None:
    """Bytes cut inside multi-byte characters, decoded incrementally as a stream is."""
    data = DOC.encode()
    rng = random.Random(5)
    for _ in range(30):
        decoder = codecs.getincrementaldecoder("utf-8")()
        pieces, i = [], 0
        while i < len(data):
            n = rng.randint(1, 7)
            pieces.append(decoder.decode(data[i:i + n]))
            i += n
        pieces.append(decoder.decode(b"", final=True))
        html, _ = stream(DOC, pieces, rng)
        assert html == renderer(False).render(DOC)


def test_unclosed_constructs_render_like_one_shot() -> None:
    for text in ["```python\nprint(1)\n", "$$\nx + y\n\nmore", "| a | b |\n|---|",
                 "- item\n  - nested\n\n  para", "> quote\n>"]:
        html, _ = stream(text, list(text), random.Random(1))
        assert html == renderer(False).render(text)


def test_view_streamed_equals_view_loaded_at_once(qtbot: Any) -> None:
    streamed = MarkdownView()
    loaded = MarkdownView()
    for view in (streamed, loaded):
        qtbot.addWidget(view)
        view.resize(700, 400)
    rng = random.Random(3)
    for piece in random_pieces(DOC, rng):
        streamed.append(piece)
        if rng.random() < 0.3:
            streamed._render_stream()
    streamed.flush()
    loaded.set_markdown(DOC)
    assert streamed.markdown() == loaded.markdown() == DOC
    assert len(streamed._segments) == len(loaded._segments)
    for a, b in zip(streamed._segments, loaded._segments, strict=True):
        assert a.block == b.block
        assert a.doc.toHtml() == b.doc.toHtml()
    assert streamed.toPlainText() == loaded.toPlainText()
    assert streamed.heightForWidth(700) == loaded.heightForWidth(700)


def test_stream_renders_are_coalesced(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    for piece in random_pieces(DOC, random.Random(9)):
        view.append(piece)  # hundreds of pieces in one go: at most one render queued
    assert view.render_count == 0
    qtbot.waitUntil(lambda: view.render_count >= 1, timeout=2000)
    assert view.render_count == 1
    view.flush()
    assert "Final para without newline" in view.toPlainText()


# A long code block (a file written out), with prose before and after it, a string
# that spans lines, and a tilde fence holding ``` lines.
LONG_CODE = "\n".join(
    f"    value_{n} = compute({n}, 'item {n}')  # line {n}" for n in range(230))
LONG_DOC = (f"Here is the module:\n\n```python\ndef build():\n    doc = '''\n``\n'''\n"
            f"{LONG_CODE}\n    return doc\n```\n\nAnd a tilde one:\n\n~~~\n"
            + "```\n" * 5 + "x\n" * 120 + "~~~\n\nDone, **all** of it.")


def test_a_long_open_code_block_streams_in_pieces_and_ends_exact() -> None:
    expected = renderer(False).render(LONG_DOC)
    final_blocks = renderer(False).blocks(LONG_DOC)
    for seed in range(4):
        rng = random.Random(seed)
        html, committed = stream(LONG_DOC, random_pieces(LONG_DOC, rng), rng)
        assert html == expected, f"seed {seed}"
        assert committed == final_blocks, f"seed {seed}"
    # cut where a piece of CODE_PIECE_LINES lines ends and the next begins, too
    for marks in (["```python"], ["```\n\nAnd"], ["~~~\n\nDone"], ["line 100"],
                  ["ne 15\n    val", "line 35\n    va"]):
        html, _ = stream(LONG_DOC, split_at(LONG_DOC, marks), random.Random(0))
        assert html == expected


def test_a_fence_whose_language_is_still_being_written_looks_no_lexer_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame can end inside a fence's first line ("```javascr"): the code block is
    still empty, and highlighting nothing needs no lexer. Looking one up by the half
    name built a wrong one ("```java", "```r") or searched every installed package's
    entry points for a plugin ("```javascr"), tens of ms on the first code block."""
    import pygments.lexers

    looked_up: list[str] = []
    real = pygments.lexers.get_lexer_by_name
    monkeypatch.setattr(pygments.lexers, "get_lexer_by_name",
                        lambda name, **kw: looked_up.append(name) or real(name, **kw))
    from desktop.ui.markdown import renderer as renderer_module

    renderer_module._lexer.cache_clear()
    text = "Some code:\n\n```javascript\nlet x = 1;\n```\n"
    inc = IncrementalMarkdown(MarkdownRenderer(LIGHT))
    for cut in range(1, len(text) + 1):
        inc.append(text[cut - 1:cut])
        inc.update()
    final = inc.update(final=True)
    assert looked_up == ["javascript"]
    assert "".join(b.html for b in [*inc.committed, *final.tail]) == \
        "".join(b.html for b in MarkdownRenderer(LIGHT).blocks(text))
    renderer_module._lexer.cache_clear()


def test_a_closed_code_block_is_highlighted_once_while_it_waits_to_be_committed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A code block that just closed is the open tail until the block after it shows
    where it ends: rendered again on each of those frames, it was highlighted again on
    each (a short block was not remembered)."""
    import pygments

    highlighted: list[str] = []
    real = pygments.highlight
    monkeypatch.setattr(pygments, "highlight",
                        lambda code, *a: highlighted.append(code) or real(code, *a))
    code = "def f(x):\n    return x * 2\n"
    text = f"Code:\n\n```python\n{code}```\n\n- a list item that goes on a while\n- two\n"
    inc = IncrementalMarkdown(MarkdownRenderer(LIGHT))
    for cut in range(0, len(text), 3):
        inc.append(text[cut:cut + 3])
        inc.update()
    inc.update(final=True)
    # (once, as the closed block: the open block's lines are lexed as they come, see
    # desktop/ui/markdown/code_tail.py)
    assert highlighted.count(code) == 1
    assert "".join(b.html for b in inc.committed) == \
        "".join(b.html for b in MarkdownRenderer(LIGHT).blocks(text))


def test_pieces_of_an_open_code_block_are_highlighted_once() -> None:
    inc = IncrementalMarkdown(renderer(False))
    opened = LONG_DOC[:LONG_DOC.index("    return doc")]
    inc.append(opened[:LONG_DOC.index("line 150")])
    first = inc.update()
    pieces = first.tail
    assert len(pieces) > 3 and pieces[0].kind == "code"
    assert [(b.joins_prev, b.joins_next) for b in (pieces[0], pieces[1], pieces[-1])] == [
        (False, True), (True, True), (True, False)]
    # the pieces hold the code so far, in order
    code_so_far = opened[opened.index("```python\n") + 10:LONG_DOC.index("line 150")]
    assert "".join(b.code for b in pieces) == code_so_far
    inc.append(LONG_DOC[LONG_DOC.index("line 150"):LONG_DOC.index("line 151")])
    second = inc.update()
    # complete pieces are the very same objects: their HTML is not made again
    assert all(a is b for a, b in zip(pieces[:-1], second.tail, strict=False))
    assert second.tail[-1] is not pieces[-1]


def test_view_shows_one_code_block_while_it_streams_in_pieces(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(700, 400)
    upto = LONG_DOC.index("line 200")
    view.append(LONG_DOC[:upto])
    view._render_stream()
    code_so_far = LONG_DOC[LONG_DOC.index("def build"):upto]
    assert len(view._segments) > 3  # the paragraph, then the pieces
    assert view.code_blocks() == [code_so_far]  # one block, all of it
    # pieces touch (no gap) and only the first has the header with Copy
    pieces = view._segments[1:]
    for above, below in itertools.pairwise(pieces):
        assert below.top == above.top + above.height
    assert pieces[0].copy_rect(700) is not None
    assert all(p.copy_rect(700) is None for p in pieces[1:])
    view.copy_code(len(view._segments) - 1)  # from any piece: the whole block
    from PySide6.QtGui import QGuiApplication
    assert QGuiApplication.clipboard().text() == code_so_far.removesuffix("\n")
    assert not view.grab().isNull()  # paints
    view.append(LONG_DOC[upto:])
    view.flush()
    loaded = MarkdownView()
    qtbot.addWidget(loaded)
    loaded.set_markdown(LONG_DOC)
    assert [s.block for s in view._segments] == [s.block for s in loaded._segments]


def test_laying_out_only_the_tail_matches_a_whole_layout(qtbot: Any) -> None:
    """While streaming only the segments from the first changed one are laid out
    again; the result must be what a whole layout gives, at every step."""
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(640, 400)
    rng = random.Random(5)
    for piece in random_pieces(DOC + "\n\n" + LONG_DOC, rng):
        view.append(piece)
        if rng.random() < 0.4:
            view._render_stream()
            tops, height = list(view._tops), view._height
            view._width = -1
            view._layout(640)
            assert (view._tops, view._height) == (tops, height)


def test_a_streamed_frame_repaints_from_the_changed_line_only(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(400, 400)
    words = " ".join(f"word{n}" for n in range(200))
    view.append(words)
    view._render_stream()
    regions: list[tuple[int, int]] = []
    view.update = lambda *a: regions.append((a[1], a[3])) if len(a) == 4 else None  # type: ignore[method-assign]
    view.append(" more")
    view._render_stream()
    top, _height = regions[-1]
    segment = view._segments[-1]
    line_height = segment.doc.documentLayout().blockBoundingRect(
        segment.doc.begin()).height() / segment.doc.begin().layout().lineCount()
    # one long paragraph of many lines: only its last line or two are repainted
    assert top > segment.top + segment.height - 3 * line_height
    # a table widens its columns for new content: the whole segment is repainted
    table = MarkdownView()
    qtbot.addWidget(table)
    table.resize(400, 400)
    table.append("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4")
    table._render_stream()
    table_regions: list[int] = []
    table.update = lambda *a: table_regions.append(a[1]) if len(a) == 4 else None  # type: ignore[method-assign]
    table.append("4444444444")
    table._render_stream()
    assert table_regions[-1] <= table._segments[-1].top


PROSE = ("Words stream in one\tby one, with  two spaces,\na soft break and a tab;\n"
         "then *emphasis*, `code`, a & b, 1 < 2, e\u0301, "
         "👩\u200d👧 and 日本語 words, a [link](https://example.com) and a long tail of "
         + " ".join(f"**word{n}**" if n % 7 == 3 else f"`call{n}()`" if n % 11 == 5 else
                    f"~~gone{n}~~" if n % 13 == 6 else f"word{n}" for n in range(80))
         + " &amp; &copy; 2 &lt; 3 ***both*** _em_ a\\*b [x](<https://a.b/c d>) 🇫🇷🇫🇷"
         + ".\n\nA \u00a0no-break space and more words after it.\n\nA third paragraph: "
         + " ".join(f"more{n}" for n in range(40)) + "\n")


def test_a_grown_paragraph_is_drawn_as_if_built_whole(qtbot: Any) -> None:
    """A paragraph that grew by plain words is appended to, not rebuilt: at every frame
    each segment must hold, lay out and draw what a segment built from its block does."""
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(520, 400)
    rng = random.Random(11)
    for piece in random_pieces(PROSE, rng):
        view.append(piece)
        view._render_stream()
        for segment in view._segments:
            fresh = Segment(segment.block, segment.style, {})
            assert segment.doc.toHtml() == fresh.doc.toHtml()
            assert segment.layout(500) == fresh.layout(500)
    view.flush()
    assert view.toPlainText() == loaded_view(qtbot, PROSE).toPlainText()


def loaded_view(qtbot: Any, text: str) -> MarkdownView:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown(text)
    return view


def test_a_paragraph_growing_at_its_end_changes_only_its_end(qtbot: Any) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(400, 400)
    view.append("The first words of a paragraph")
    view._render_stream()
    doc = view._segments[-1].doc
    changes: list[int] = []
    doc.contentsChange.connect(lambda position, _removed, _added: changes.append(position))
    view.append(" and a few\nmore")
    view._render_stream()
    assert view._segments[-1].doc is doc
    assert changes and min(changes) == len("The first words of a paragraph")
    assert doc.toPlainText() == "The first words of a paragraph and a few more"
    changes.clear()
    view.append(" **then bold")  # not closed yet: the asterisks are shown
    view._render_stream()
    changes.clear()
    view.append("** and")  # closed: from where the bold begins
    view._render_stream()
    assert min(changes) == len("The first words of a paragraph and a few more")
    assert doc.toHtml() == Segment(view._segments[-1].block, view._segments[-1].style,
                                   {}).doc.toHtml()
    changes.clear()
    view.append(" a sum $x+y$")  # a formula (an image): rebuilt from the HTML
    view._render_stream()
    assert min(changes) == 0


# Prose as a model writes it (paragraphs on one line, the blocks between them), and
# the places where plain text that follows could change what came before.
PROSE_DOC = "\n".join([
    '## Heading one',
    '',
    'Plain words go on and on, with commas, full stops. And "quotes", 50% '
    'off, a/b, x+y=z, #tag and @name - dashes too: all of it plain?',
    '',
    '- a list item',
    '- another item',
    '',
    'Then a paragraph right after the list, with **bold words** and '
    '`code()` and a [link](https://example.com/x) in it.',
    '',
    '1. first',
    '2. second',
    '',
    'Text after an ordered list &copy; &copy that entity, __under__x and '
    '__under__ y, *em*word, a\\',
    'backslash and a\\(x\\) bracket, $x$ math, ~~gone~~ and ~one~.',
    '',
    '| a | b |',
    '|---|---|',
    '| 1 | 2 |',
    '',
    'Words after a table  with  two spaces  and trailing spaces   ',
    'Lazy continuation of it.',
    '',
    '```python',
    'code = 1',
    '',
    'Text inside an open fence until it closes',
    '```',
    '',
    '$$',
    'x',
    '',
    'Text inside display math',
    '$$',
    '',
    '> a quote',
    '',
    'Text after a quote, then ünïcödé wörds, 日本語 and ½ ² digits, then an emoji 👍 end.',
    '',
    'Setext candidate',
    '===',
    '',
    'Term then more words and a [bracket] and (parens) and <angle> and !bang.',
    '',
    '1',
    '',
    '2. an ordered item after a blank line',
    '',
    '3. makes the list loose',
    '',
    '- x',
    '',
    'Final words without a newline',
])


def test_plain_text_streamed_in_small_pieces_matches_one_shot() -> None:
    """Pieces of 1-4 characters rendered on almost every one: paragraphs grow
    without a parse and blocks are committed when a paragraph starts; every render
    ends where a one-shot render does, and nothing committed is ever revised."""
    expected = renderer(False).render(PROSE_DOC)
    final_blocks = renderer(False).blocks(PROSE_DOC)
    rendered: set[int] = set()
    for seed in range(20):
        rng = random.Random(seed)
        pieces, i = [], 0
        while i < len(PROSE_DOC):
            n = rng.choice([1, 1, 2, 3, 4, 7])
            pieces.append(PROSE_DOC[i:i + n])
            i += n
        inc = IncrementalMarkdown(renderer(False))
        committed = []
        for piece in pieces:
            inc.append(piece)
            if rng.random() < 0.9:
                committed.extend(inc.update().committed)
                # every render shows what a parse shows (but an open code block's
                # last line, plain until it is complete: see streaming.py); each
                # offset is compared with a parse the first time a chunking renders there
                if len(inc.text) not in rendered and all(b.kind != "code" for b in inc.tail):
                    assert inc.html() == renderer(False).render(inc.text), f"seed {seed}"
                rendered.add(len(inc.text))
        committed.extend(inc.update(final=True).committed)
        assert inc.html() == expected, f"seed {seed}"
        assert committed == final_blocks, f"seed {seed}"
    assert rendered >= set(range(1, len(PROSE_DOC)))  # rendered at every offset


def test_a_growing_paragraph_is_parsed_only_from_where_it_is_settled() -> None:
    """A long one-line paragraph with bold, code, links and snake_case words: on each
    frame only its last words are parsed (inline), never the whole paragraph, and the
    HTML is a whole parse's at every frame; words whose markup is left open for a
    while (or for good) are parsed again until it closes, and never shown wrong."""
    check_paragraph_growth(random.Random(4), tricky=False)
    for seed in range(3):  # (each pair of PAIRS is in each paragraph, in another order)
        check_paragraph_growth(random.Random(seed), tricky=True)


# Markup that opens in one word and closes in a later one, and words that look so.
PAIRS = [("\\(x", "y\\)"), ("$a", "b$"), ("<https://x.y", "z>"), ("_und", "und_"),
         ("~~st", "st~~"), ("`co", "de`"), ("[br", "ack](u)"), ("**b", "b**"), ("__c", "c__"),
         ("*em", "em*"), ("![i", "m](p)"), ("&copy", ";")]
SINGLES = ["x_y", "**bold**", "`code()`", "snake_case", "[link](https://example.com/a_b)"]
ODD = ["a\\*b", "a\u00a0b", "~~x~~", "&copy;", "2 < 3"]


def check_paragraph_growth(rng: random.Random, *, tricky: bool) -> None:
    words: list[str] = []
    # each pair comes once before any comes again
    pairs = rng.sample(PAIRS, len(PAIRS)) if tricky else []
    used = 0
    while len(words) < 400 or (tricky and used < len(PAIRS)):
        words.extend(rng.choice(["alpha", "beta,", "x.", "", " "])
                     for _ in range(rng.randint(2, 9)))
        if tricky and rng.random() < 0.5:
            opener, closer = pairs[used % len(PAIRS)]
            used += 1
            words.append(opener)
            words.extend("gapword" for _ in range(rng.randint(0, 12)))
            words.append(closer)
        else:
            words.append(rng.choice(SINGLES + ODD if tricky else SINGLES))
    paragraph = "Start " + " ".join(words)
    inc = IncrementalMarkdown(renderer(False))
    parsed: list[str] = []
    inline: list[str] = []
    parse, render_inline = inc.renderer.parse, inc.renderer.render_inline
    inc.renderer.parse = lambda text: parsed.append(text) or parse(text)  # type: ignore[method-assign]
    inc.renderer.render_inline = (  # type: ignore[method-assign]
        lambda text: inline.append(text) or render_inline(text))
    try:
        inc.append("## Title\n\nSt")
        inc.update()
        assert [b.kind for b in inc.committed] == ["text"]  # the heading: final at once
        parsed.clear()
        done = 2
        twice = 0  # frames that parsed words twice (once alone, once with the next)
        while done < len(paragraph):
            step = rng.randint(1, 12)
            inc.append(paragraph[done:done + step])
            done += step
            first = len(inline)
            tail = inc.update().tail
            shown = paragraph[:done]
            assert tail == [Block("text", renderer(False).render(shown))], done
            frame = inline[first:]
            twice += any(b != a and b.startswith(a) for a in frame for b in frame)
        assert parsed == []
        if not tricky:
            assert max(len(text) for text in inline) < 200 < len(paragraph) // 10
            assert twice == 0
    finally:
        del inc.renderer.parse, inc.renderer.render_inline


def test_a_grown_paragraph_is_changed_and_laid_out_once_a_frame(qtbot: Any) -> None:
    """Cutting the old end, a space and the new words are one edit: the paragraph's
    lines are laid out again once, not once per step."""
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(400, 400)
    view.append("The first words of a **paragraph")
    view._render_stream()
    doc = view._segments[-1].doc
    changes: list[tuple[int, int, int]] = []
    doc.contentsChange.connect(lambda *change: changes.append(change))
    layouts: list[object] = []
    doc.documentLayout().update.connect(lambda *rect: layouts.append(rect))
    view.append("** and `more` words")  # the bold closes: its start is cut and redone
    view._render_stream()
    assert view._segments[-1].doc is doc
    assert len(changes) == 1 and changes[0][1] > 0  # removed and added in one change
    assert len(layouts) == 1
    assert doc.toHtml() == Segment(view._segments[-1].block, view._segments[-1].style,
                                   {}).doc.toHtml()


def test_a_long_text_parsed_in_steps_ends_with_the_blocks_of_one_parse() -> None:
    """Idle time parses a long stored answer a piece per step (StepParse): the blocks
    it leaves in the renderer's cache are those of one parse."""
    from desktop.ui.markdown.streaming import PARSE_STEP_CHARS, StepParse
    from tests.bench.bench_chat_common import long_answer

    for text in (DOC, LONG_DOC, PROSE_DOC, long_answer(20_000)):
        fresh = MarkdownRenderer(LIGHT)  # (its own cache)
        parse = StepParse(fresh, text)
        steps = 1
        while not parse.step():
            steps += 1
        assert steps >= len(text) // (PARSE_STEP_CHARS + 200)
        assert fresh.has_blocks(text)
        assert fresh.cached_blocks(text) == renderer(False).blocks(text)


def counted(calls: list[int], real: Any, *args: Any) -> Any:
    calls.append(1)
    return real(*args)


def test_a_text_parsed_in_steps_renders_its_blocks_a_few_a_step(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering a piece's blocks (its code highlighted: up to ~2 ms a block) goes on
    only until the step's time is up (issue 27, scrolling: a short answer was parsed and
    all its code highlighted in one idle step); the rest in the next steps, and the
    blocks are still those of one parse."""
    from desktop.ui.markdown.streaming import StepParse
    from tests.bench.bench_chat_common import long_answer

    for text in (DOC, long_answer(900, seed=3), long_answer(5_000)):
        fresh = MarkdownRenderer(LIGHT)
        rendered: list[int] = []
        render = fresh.render_group
        monkeypatch.setattr(fresh, "render_group", partial(counted, rendered, render))
        parse = StepParse(fresh, text)
        steps = 0
        done = False
        while not done:
            before = len(rendered)
            done = parse.step(until=0.0)  # (the time is up at once: one block a step)
            steps += 1
            assert len(rendered) - before <= 1
        count = len(renderer(False).blocks(text))
        assert count >= 3 and steps >= count and len(rendered) == count
        assert fresh.cached_blocks(text) == renderer(False).blocks(text)
    everything = StepParse(MarkdownRenderer(LIGHT), DOC)
    assert everything.step()  # (no time limit: a short text in one step, as before)


LISTS = ("Intro words.\n\n- first item with **bold** and `code` words\n"
         "- second item, longer and longer text\n  - nested one\n"
         "  - nested two with *em* and more words\n- third [link](https://a.b) end\n\n"
         "1. one\n2. two words here and there\n\n- [ ] task one\n- [x] task two done\n\n"
         "- loose a\n\n- loose b more words\n\nEnd.\n")


def record(changes: dict[int, list[int]], key: int, at: int, *_counts: int) -> None:
    changes.setdefault(key, []).append(at)


def test_a_list_grows_in_place_and_is_drawn_as_if_built_whole(qtbot: Any) -> None:
    """A list whose last item grows (tight, loose, nested, ordered, tasks) has that
    end replaced in its document, not the list rebuilt: at every frame its document
    holds and lays out what a list built from its block does; at the end the view
    equals one given the whole text."""
    grown = 0
    for seed in range(4):
        rng = random.Random(seed)
        view = MarkdownView()
        qtbot.addWidget(view)
        view.resize(500, 400)
        done = 0
        while done < len(LISTS):
            step = rng.randint(1, 6)
            view.append(LISTS[done:done + step])
            done += step
            changes: dict[int, list[int]] = {}
            for segment in view._segments:
                segment.doc.contentsChange.connect(partial(record, changes, id(segment.doc)))
            view._render_stream()
            for segment in view._segments:
                if "<li" not in segment.block.html:
                    continue
                fresh = Segment(segment.block, segment.style, {})
                assert segment.doc.toHtml() == fresh.doc.toHtml(), (seed, done)
                assert segment.layout(480) == fresh.layout(480)
                # changed from inside its last item, not rebuilt from the start
                grown += min(changes.get(id(segment.doc), [0])) > 0
        view.flush()
        loaded = loaded_view(qtbot, LISTS)
        assert [s.doc.toHtml() for s in view._segments] == [
            s.doc.toHtml() for s in loaded._segments]
    assert grown > 100  # (most frames of a list)


CODE = ("Code:\n\n```python\ndef f(x):\n    return x * 2  # a comment 'str'\n\n"
        "class A:\n    pass\n" + "".join(f"value_{n} = {n}\n" for n in range(30))
        + "```\n\n~~~\nplain   spaced\ttabbed &lt; <b>\n~~~\n\nEnd.\n")


def test_a_code_block_whose_lines_complete_grows_in_place(qtbot: Any) -> None:
    """A frame that completes lines of an open code block (most frames of a streamed
    code block) changes its highlighted part: the block was rebuilt from its HTML and
    laid out whole. Now the line that was being written is replaced by the new lines,
    highlighted; at every frame the document equals one built from its block."""
    rebuilt = grown = 0
    for seed in range(4):
        rng = random.Random(seed)
        view = MarkdownView()
        qtbot.addWidget(view)
        view.resize(500, 400)
        done = 0
        while done < len(CODE):
            step = rng.randint(8, 30)  # (most frames complete a line)
            view.append(CODE[done:done + step])
            done += step
            changes: dict[int, list[int]] = {}
            before = {id(s.doc) for s in view._segments if s.block.kind == "code"}
            for segment in view._segments:
                segment.doc.contentsChange.connect(partial(record, changes, id(segment.doc)))
            view._render_stream()
            for segment in view._segments:
                if segment.block.kind != "code":
                    continue
                fresh = Segment(segment.block, segment.style, {})
                assert segment.doc.toHtml() == fresh.doc.toHtml(), (seed, done)
                assert segment.layout(480) == fresh.layout(480)
                at = changes.get(id(segment.doc))
                if id(segment.doc) in before and at and "\n" in segment.block.code:
                    rebuilt += min(at) == 0
                    grown += min(at) > 0
        view.flush()
        loaded = loaded_view(qtbot, CODE)
        assert [s.doc.toHtml() for s in view._segments] == [
            s.doc.toHtml() for s in loaded._segments]
    # (rebuilt: a blank line first, a piece completed, the block closed)
    assert grown > 3 * rebuilt, (grown, rebuilt)


def test_a_code_block_grows_in_place_and_is_drawn_as_if_built_whole(qtbot: Any) -> None:
    """The line being written in an open code block is added to, not the block
    rebuilt: at every frame the document holds and lays out what one built from its
    block does; at the end the view equals one given the whole text."""
    grown = 0
    for seed in range(4):
        rng = random.Random(seed)
        view = MarkdownView()
        qtbot.addWidget(view)
        view.resize(500, 400)
        done = 0
        while done < len(CODE):
            step = rng.randint(1, 6)
            view.append(CODE[done:done + step])
            done += step
            changes: dict[int, list[int]] = {}
            for segment in view._segments:
                segment.doc.contentsChange.connect(partial(record, changes, id(segment.doc)))
            view._render_stream()
            for segment in view._segments:
                if segment.block.kind != "code":
                    continue
                fresh = Segment(segment.block, segment.style, {})
                assert segment.doc.toHtml() == fresh.doc.toHtml(), (seed, done)
                assert segment.layout(480) == fresh.layout(480)
                grown += min(changes.get(id(segment.doc), [0])) > 0
        view.flush()
        loaded = loaded_view(qtbot, CODE)
        assert [s.doc.toHtml() for s in view._segments] == [
            s.doc.toHtml() for s in loaded._segments]
    assert grown > 100


def test_a_paragraph_or_fence_that_ended_is_committed_without_parsing_it_again() -> None:
    """A paragraph followed by a blank line, and a fenced code block whose closing
    line is complete, are final whatever comes next: they are committed then, the
    paragraph with the HTML it already has, not parsed again with the block after
    them; every frame shows what a parse of the text so far shows, and the blocks
    committed are those of one parse."""
    text = ("Words " * 60 + "end.\n\n```python\nx = 1\ny = 2\n```\n\n```\nplain\n```\n"
            "- item one\n- item two\n\nLast words.\n\n  \n\n## Heading\n")
    inc = IncrementalMarkdown(renderer(False))
    parsed: list[str] = []
    parse = inc.renderer.parse
    inc.renderer.parse = lambda text: parsed.append(text) or parse(text)  # type: ignore[method-assign]
    committed: list[Block] = []
    try:
        for at in range(0, len(text), 7):
            inc.append(text[at:at + 7])
            update = inc.update()
            committed.extend(update.committed)
            shown = text[:at + 7]
            if "y = 2\n```\n" in shown:  # committed on the frame its last line came
                assert [b.code for b in inc.committed if b.kind == "code"][:1] == ["x = 1\ny = 2\n"]
            if all(b.kind != "code" for b in inc.tail):
                assert inc.html() == renderer(False).render(shown), at
        committed.extend(inc.update(final=True).committed)
    finally:
        del inc.renderer.parse
    assert inc.html() == renderer(False).render(text)
    assert committed == renderer(False).blocks(text)
    assert not [p for p in parsed if "end." in p]  # the paragraph: never parsed whole
    assert not [p for p in parsed if "y = 2" in p and ("plain" in p or "item" in p)]
