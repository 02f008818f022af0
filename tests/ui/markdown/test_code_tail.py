"""The open code block's complete lines highlighted as lines are added, without
lexing all of them again (desktop/ui/markdown/code_tail.py)."""

from __future__ import annotations

from typing import Any

import pytest

from desktop.ui.markdown.code_tail import OpenCodeHighlight
from desktop.ui.markdown.renderer import highlight_code
from desktop.ui.markdown.streaming import IncrementalMarkdown
from tests.bench.bench_chat_common import SNIPPETS

# Constructs over several lines, each closed a few lines after it opened (the lines in
# between lexed before their closer came), in each language resumed.
SAMPLES = [
    ("python", 'def f(x):\n    r"""A docstring\n\n    over lines.\n    """\n    s = \'\'\'a\n'
               'b\'\'\'\n    return x  # done\n\n\nclass C:\n    pass\n'),
    ("javascript", "/**\n * JSDoc\n * @param a\n */\nfunction f(a) {\n  const s = `t\n"
                   "${a}\n`;\n  return /x+/g.test(s); // end\n}\n"),
    ("typescript", "/* a\n b */\ninterface A {\n  x: number;\n}\nconst t = `a\nb`;\n"),
    ("bash", "for f in *.log; do\n  echo 'multi\nline'\n  x=\"a\nb\"\ndone\ncat <<EOT\n"
             "hello $x\nEOT\necho after\n"),
    ("rust", "/* block\n comment */\nfn main() {\n    let s = r#\"raw\nstring\"#;\n"
             "    println!(\"{}\", s);\n}\n"),
    ("go", "/* a\n b */\nfunc main() {\n\ts := `raw\nstring`\n\tfmt.Println(s)\n}\n"),
    ("java", "/**\n * Doc\n */\nclass A {\n  String s = \"x\";\n  /* c\n  */\n}\n"),
    ("sql", "/* a\n b */\nSELECT a,\n  'multi\nline'\nFROM t;\n-- end\n"),
    ("html", "<!-- a\n b -->\n<div\n  class=\"x\">\n<script>\nlet a = 1;\n</script>\n</div>\n"),
    ("css", "/* a\n b */\n.x {\n  color: red;\n}\n"),
    ("html", "<div>\n<script>\nlet s = `a\nb`;\n/* c\n d */\nlet x = 1;\n</script>\n<style>\n"
             "/* a\n b */\np { color: red; }\n</style>\n</div>\n"),
    ("html", "<script>\n/* a\n b\n*/ let y = 2;\n</script>\n<!-- c\n d -->\n<![CDATA[\n x\n]]>\n"),
    ("html", "<p>\n<?php echo 1;\n?>\n</p>\n"),
    ("rust", 'fn main() {\n    let s = r##"raw "# still\nmore"##;\n'
             '    let t = r###"x\n"##\ny"###;\n    /* a /* nested\n */ b */\n}\n'),
    ("csharp", "/* a\n b */\nclass A {\n  string s = @\"x\ny\";\n}\n"),
    ("kotlin", "/* a\n b */\nval s = \"\"\"a\nb\"\"\"\nfun f() = 1\n"),
    *SNIPPETS,
    ("unknownlang", "a\nb\n"),
    ("python", "\n\nx = 1\n\n\ny = 2\n\n"),
    ("python", "def\n   \n    \n  f(x):\n    pass\nclass\n\n   \nC: pass\n"),
    ("javascript", "if (a)\n\n   \n  {\n\tb();\n  }\n/* x */ /* y\n\n z */\n"),
]


@pytest.mark.parametrize(("lang", "code"), SAMPLES)
def test_lines_highlighted_as_they_come_equal_a_whole_highlight(lang: str, code: str) -> None:
    """At every line, the lines so far are what highlighting them all at once gives,
    with each line (but the last before, lexed again) lexed once in all."""
    lines = code.splitlines(keepends=True)
    highlight = OpenCodeHighlight("friendly")
    for count in range(1, len(lines) + 1):
        text = "".join(lines[:count])
        assert highlight.html(text, lang) == highlight_code(text, lang, "friendly"), count


def test_a_long_block_is_lexed_about_once() -> None:
    """200 lines of Python added one at a time are lexed about twice over (each line
    once, the last one before once more), not once per line added (~100 times)."""
    lines = [f"def f{i}(x):\n    return x * {i}  # '{i}'\n" for i in range(100)]
    highlight = OpenCodeHighlight("friendly")
    for count in range(1, len(lines) + 1):
        highlight.html("".join(lines[:count]), "python")
    assert highlight.lexed < 3 * len("".join(lines))


def test_an_open_code_block_is_highlighted_whole_only_in_pieces(monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """A code block streamed line by line: its open piece's lines are not highlighted
    whole again on every added line (Pygments' whole highlight runs for the pieces of
    20 lines only), and the view's blocks at the end are a whole render's."""
    import pygments

    from desktop.ui.markdown import renderer as renderer_module

    whole: list[str] = []
    real = pygments.highlight

    def counted(code: str, *args: Any) -> Any:
        whole.append(code)
        return real(code, *args)

    monkeypatch.setattr(pygments, "highlight", counted)
    body = "".join(f"x{i} = {i}  # {i}\n" for i in range(45))
    text = f"```python\n{body}```\n"
    inc = IncrementalMarkdown(renderer_module.MarkdownRenderer(renderer_module.LIGHT))
    for line in text.splitlines(keepends=True):
        inc.append(line)
        inc.update()
    assert len(whole) <= 3  # two complete pieces, the closed block
    inc.update(final=True)
    assert inc.html() == inc.renderer.render(text)
