"""The complete lines of an open code block, highlighted as lines are added without
lexing all of them again.

While a code block streams, its complete lines are shown highlighted (the line being
written as plain text, see :mod:`desktop.ui.markdown.streaming`). Highlighting them
all again whenever a line was added cost O(lines) per line: Pygments' lexer tries its
rules at every token. Instead the lexer's state is remembered at each line start
where a token starts, and lexing resumes at the start of the last line lexed before
(that line is lexed again: a token at its end, its newline, may join what follows).
The formatter's output is line by line (a line's HTML depends only on its tokens), so
the HTML of the lines before stays as it was.

Why that equals a whole highlight (:func:`desktop.ui.markdown.renderer.highlight_code`
of the lines): lexing is a run of regular-expression matches from the start, each
looking only forward; the tokens before the resumed line are the same unless a match
tried before it looked past the end of the text then. Such a rule spans lines (a
docstring, a comment or raw string matched by one expression) and did not match (not
closed yet), and then Pygments lexes the lines after it as something else (often an
Error token). So a line start is no place to resume from once, before it, an Error
token was lexed or a rule that could span lines failed where it would match with a
closer further on (tried again on its line followed by the usual closers); nor while
a here-document is open (ended by a word of its own). Lexers that are not plain
:class:`pygments.lexer.RegexLexer` state machines, or not among :data:`_RESUMED`
(each checked line by line against a whole highlight), and text Pygments would change
first (leading newlines, carriage returns), are highlighted whole.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from desktop.ui.markdown.renderer import formatter_for, highlight_code, lexer_for

__all__ = ["OpenCodeHighlight"]

_Token = tuple[Any, str]
_Placed = tuple[int, Any, str]  # a token and where it starts


class _Mark(NamedTuple):
    """A line start: lexing resumes at the first token that starts on the line (its
    position, the lexer's state stack there) after the end of a token that began above
    (``carry``: its part on this line, a run of white space)."""

    line: int
    at: int
    stack: tuple[str, ...]
    carry: tuple[_Placed, ...]
    html: int  # length of the HTML of the lines above
    resumable: bool  # a place to resume from (see above)
_Match = Callable[[str, int], Any]
#: The lexers resumed (languages answers hold most, each checked against Pygments'
#: whole highlight line by line: tests/ui/markdown/test_code_tail.py's samples of
#: multi-line constructs, real files for Python, JavaScript, CSS, Bash and HTML); the
#: others are highlighted whole.
_RESUMED = frozenset({
    "PythonLexer", "JavascriptLexer", "TypeScriptLexer", "BashLexer", "RustLexer",
    "GoLexer", "JavaLexer", "SqlLexer", "HtmlLexer", "CssLexer", "CSharpLexer",
    "KotlinLexer"})
#: A here-document (shell, Perl, PHP), ended by a word of its own: lexed whole.
_HEREDOC = re.compile(r"<<[-~<]?\s*['\"]?[A-Za-z_]")
#: What a rule that spans lines may wait for: tried after the line it failed on.
_CLOSERS = ('\n"""\n\'\'\'\n*/\n-->\n]]>\n]]\n"#\n`\n\'\n"\n}\n)\n]\nend\n</script>\n'
            '</style>\n?>\n"##\n"###\n')
#: A rule whose expression may match across a non-blank line (by its text: a guess
#: that errs towards more rules, each then tried once more when it fails): any
#: character or a newline, a class of all, DOTALL, non-word or non-digit characters,
#: a negated class that does not leave out the newline. (White space alone crosses
#: only blank lines: lexing resumes at the last line that is not blank.)
_SPANS = re.compile(r"\.\|\\n|\\n\|\.|\[\\[sSwWdD]\\[sSwWdD]\]|\(\?[a-zA-Z]*s|\\W|\\D")
_NEGATED = re.compile(r"\[\^((?:\\.|[^\]\\])*)\]")
#: A lexer's rules by state: (match, action, new state, whether it may span lines).
_Rules = dict[str, list[tuple[_Match, Any, Any, bool]]]
_rules: dict[type, _Rules] = {}


class OpenCodeHighlight:
    """The complete lines of one open code block (or piece), highlighted."""

    __slots__ = ("_code", "_html", "_lang", "_marks", "_style", "_text", "lexed")

    def __init__(self, style: str) -> None:
        self._style = style
        self._lang = ""
        self._code = ""
        self._text = ""  # what was lexed: the code as Pygments prepares it
        self._html = ""
        self._marks: list[_Mark] = []
        self.lexed = 0  # characters lexed so far (what the tests count)

    def html(self, code: str, lang: str) -> str:
        """``highlight_code(code, lang, style)`` for ``code``, complete lines that
        usually continue the ones given before."""
        if code == self._code and lang == self._lang:
            return self._html
        lexer = lexer_for(lang) if code else None
        text = code.strip("\n") + "\n"
        if (lexer is None or not _resumable(lexer) or code.startswith(("\n", "\ufeff"))
                or "\r" in code or not code.endswith("\n") or text == "\n"
                or _HEREDOC.search(code)):
            self._code, self._lang, self._text, self._marks = code, lang, "", []
            self.lexed += len(code)
            self._html = highlight_code(code, lang, self._style)
            return self._html
        last_line = self._text.rstrip().rfind("\n") + 1  # (the last that is not blank)
        marks = self._marks if lang == self._lang and text.startswith(self._text) else []
        while marks and (marks[-1].line > last_line or not marks[-1].resumable):
            marks = marks[:-1]
        start = marks[-1] if marks else _Mark(0, 0, ("root",), (), 0, True)
        new_marks, body = _lex(lexer, text, start, formatter_for(self._style))
        self.lexed += len(text) - start.at
        self._code, self._lang, self._text = code, lang, text
        self._marks = [*marks[:-1], *new_marks]
        self._html = self._html[:start.html] + body
        return self._html


def _resumable(lexer: Any) -> bool:
    """Whether ``lexer`` is a plain state machine run with Pygments' defaults."""
    from pygments.lexer import RegexLexer

    return (type(lexer).__name__ in _RESUMED and isinstance(lexer, RegexLexer)
            and type(lexer).get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
            and not lexer.filters and not lexer.stripall and lexer.stripnl
            and lexer.ensurenl and not lexer.tabsize
            # its compiled rules (Pygments' own table; a release without it: lexed whole)
            and isinstance(getattr(lexer, "_tokens", None), dict))


def _rules_of(lexer: Any) -> _Rules:
    found = _rules.get(type(lexer))
    if found is None:
        found = _rules[type(lexer)] = {
            state: [(match, action, new_state, _may_span(match.__self__))
                    for match, action, new_state in rules]
            for state, rules in lexer._tokens.items()}
    return found


def _may_span(pattern: re.Pattern[str]) -> bool:
    source = pattern.pattern
    return bool(_SPANS.search(source) or (pattern.flags & re.DOTALL and "." in source)
                or any("\\n" not in body and "\n" not in body
                       for body in _NEGATED.findall(source)))


def _lex(lexer: Any, text: str, start: _Mark, formatter: Any) -> tuple[list[_Mark], str]:
    """Lex ``text`` from ``start`` and format what was lexed: the line starts met on
    the way (the first is ``start``) and the HTML from ``start``'s line on."""
    marks: list[_Mark] = []
    out: list[str] = []
    length = start.html
    for mark, tokens in _lines(lexer, text, start):
        marks.append(mark._replace(html=length))
        buffer = io.StringIO()
        formatter.format(((t, v) for _, t, v in tokens), buffer)
        piece = buffer.getvalue()
        out.append(piece)
        length += len(piece)
    return marks, "".join(out)


def _lines(lexer: Any, text: str, start: _Mark) -> Iterator[tuple[_Mark, list[_Placed]]]:
    """Pygments' ``RegexLexer.get_tokens_unprocessed`` from ``start``, its tokens given
    line by line (a token over a line end cut there, see :class:`_Mark`), each line
    with its mark (its HTML's place left 0)."""
    from pygments.token import Error, Whitespace

    pos = start.at
    tokendefs = _rules_of(lexer)
    statestack = list(start.stack)
    statetokens = tokendefs[statestack[-1]]
    mark = start
    run: list[_Placed] = list(start.carry)
    next_line = text.find("\n", start.line) + 1
    resumable = start.resumable
    while True:
        if 0 < next_line <= pos:
            line = text.rfind("\n", 0, pos) + 1
            cut = _cut(run, line)
            if cut is not None:
                yield mark, cut[0]
                run = cut[1]
                mark = _Mark(line, pos, tuple(statestack), tuple(run), 0, resumable)
            next_line = text.find("\n", pos) + 1
        probe: tuple[int, str] | None = None  # its line, the closers after it
        for rexmatch, action, new_state, spans in statetokens:
            m = rexmatch(text, pos)
            if m:
                if action is not None:  # (a token type is a tuple, else a callback)
                    run.extend([(pos, action, m.group())] if isinstance(action, tuple)
                               else action(lexer, m))
                pos = m.end()
                if new_state is not None:
                    _transition(statestack, new_state)
                    statetokens = tokendefs[statestack[-1]]
                break
            if spans and resumable:
                probe = probe or _probe(text, pos)
                # (matched there, it looked past its line: it may match later)
                resumable = not rexmatch(probe[1], probe[0])
        else:
            if pos >= len(text):
                break
            if text[pos] == "\n":  # at the end of a line, back to "root"
                statestack = ["root"]
                statetokens = tokendefs["root"]
            resumable = resumable and text[pos] == "\n"
            run.append((pos, Whitespace, "\n") if text[pos] == "\n" else (pos, Error, text[pos]))
            pos += 1
    if run:
        yield mark, run


def _probe(text: str, pos: int) -> tuple[int, str]:
    """The line holding ``pos`` followed by the usual closers, and where ``pos`` is."""
    line = text.rfind("\n", 0, pos) + 1
    return pos - line, text[line:text.find("\n", pos)] + _CLOSERS


def _cut(run: list[_Placed], line: int) -> tuple[list[_Placed], list[_Placed]] | None:
    """The tokens of ``run`` before ``line`` (a line start) and from it on, the one
    over it cut there; None when no token ends a line there."""
    for index in range(len(run) - 1, -1, -1):
        at, kind, value = run[index]
        if at < line:
            cut = line - at
            if cut > len(value) or value[cut - 1] != "\n":
                return None
            if cut == len(value):
                return run[:index + 1], run[index + 1:]
            return ([*run[:index], (at, kind, value[:cut])],
                    [(line, kind, value[cut:]), *run[index + 1:]])
    return None


def _transition(statestack: list[str], new_state: Any) -> None:
    """Pygments' state change after a match (RegexLexer.get_tokens_unprocessed)."""
    if isinstance(new_state, tuple):
        for state in new_state:
            if state == "#pop":
                if len(statestack) > 1:
                    statestack.pop()
            elif state == "#push":
                statestack.append(statestack[-1])
            else:
                statestack.append(state)
    elif isinstance(new_state, int):
        if abs(new_state) >= len(statestack):
            del statestack[1:]
        else:
            del statestack[new_state:]
    elif new_state == "#push":
        statestack.append(statestack[-1])
    else:
        raise ValueError(f"wrong state def: {new_state!r}")
