from __future__ import annotations

from desktop.ui.markdown import render_markdown


def test_raw_html_is_shown_as_text() -> None:
    out = render_markdown('<script>alert("x")</script> <img src="http://example.com/a.png">')
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<img" not in out


def test_fenced_code_is_highlighted_with_label() -> None:
    out = render_markdown("```python\ndef f():\n    return 1\n```\n")
    assert ">python<" in out
    assert "<span style=" in out  # pygments inline styles
    assert "def" in out


def test_unknown_language_is_escaped_not_lost() -> None:
    out = render_markdown("```nosuchlang\n<b>x</b>\n```\n")
    assert "nosuchlang" in out
    assert "<b>" not in out and "&lt;b&gt;" in out


def test_tables_and_task_lists() -> None:
    out = render_markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n")
    assert '<table border="1"' in out
    assert "☑" in out and "☐" in out and "<input" not in out


def test_dark_and_light_differ() -> None:
    text = "```python\nx = 1\n```"
    assert render_markdown(text, dark=True) != render_markdown(text, dark=False)
