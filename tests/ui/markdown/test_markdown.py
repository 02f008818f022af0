from __future__ import annotations

from desktop.ui.markdown import math_tex
from desktop.ui.markdown.renderer import is_safe_link, render_markdown, renderer


def test_raw_html_is_shown_as_text() -> None:
    out = render_markdown('<script>alert("x")</script> <img src="http://example.com/a.png">'
                          '\n\n<div onclick="x()">hi</div>\n')
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<img" not in out and "<div" not in out
    assert "&lt;div onclick" in out


def test_markdown_images_are_never_fetched() -> None:
    out = render_markdown("![chart](https://example.com/c.png) ![x](file:///etc/passwd)")
    assert "<img" not in out
    assert '<a href="https://example.com/c.png">' in out
    assert "href=\"file:" not in out and "src=\"file:" not in out
    inline = render_markdown("![plot](attachment:plot.png)")
    assert '<img src="attachment:plot.png"' in inline


def test_fenced_code_is_highlighted() -> None:
    blocks = renderer(False).blocks("```python\ndef f():\n    return 1\n```\n")
    assert [b.kind for b in blocks] == ["code"]
    assert blocks[0].lang == "python"
    assert blocks[0].code == "def f():\n    return 1\n"
    assert "<span style=" in blocks[0].html  # pygments inline styles


def test_unknown_language_is_escaped_not_lost() -> None:
    blocks = renderer(False).blocks("```nosuchlang\n<b>x</b>\n```\n")
    assert blocks[0].lang == "nosuchlang"
    assert "<b>" not in blocks[0].html and "&lt;b&gt;" in blocks[0].html


def test_tables_task_lists_quotes_headings() -> None:
    text = ("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n"
            "> quoted\n\n~~gone~~\n")
    blocks = renderer(False).blocks(text)
    assert [b.kind for b in blocks] == ["text", "text", "text", "quote", "text"]
    out = render_markdown(text)
    assert '<table border="1"' in out
    assert "☑" in out and "☐" in out and "<input" not in out
    assert "<h1" in out and "<s>gone</s>" in out


def test_dark_and_light_differ() -> None:
    text = "```python\nx = 1\n```"
    assert render_markdown(text, dark=True) != render_markdown(text, dark=False)


def test_math_delimiters_become_images() -> None:
    text = ("Inline $a^2 + b^2 = c^2$ and \\(\\alpha\\), display:\n\n$$\n\\frac{1}{2}\n$$\n\n"
            "\\[ \\sqrt{x} \\]\n")
    out = render_markdown(text)
    assert out.count('<img src="math:') == 4
    blocks = renderer(False).blocks(text)
    assert [b.kind for b in blocks] == ["text", "math", "math"]
    assert blocks[1].code == "\\frac{1}{2}"


def test_math_that_cannot_be_typeset_stays_text() -> None:
    out = render_markdown("Broken $\\frac{a}{$ here\n\n$$\nx^\n$$\n")
    assert "math:" not in out
    assert "x^" in out
    assert math_tex.register("x^", True) is None


def test_prices_are_not_math() -> None:
    out = render_markdown("It costs $5 and $10 today.")
    assert "math:" not in out and "$5 and $10" in out


def test_only_web_and_mail_links_are_safe() -> None:
    assert is_safe_link("https://example.com") and is_safe_link("mailto:a@b.c")
    assert not is_safe_link("file:///etc/passwd")
    assert not is_safe_link("javascript:alert(1)")
    assert 'href="javascript' not in render_markdown("[x](javascript:alert(1))")
