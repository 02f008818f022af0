"""Scoped "always allow" grants for ``run_command``: what a grant names, and which
command lines it covers.

A grant names either

* a **program** (and, for git, its subcommand) with a rule in
  :mod:`desktop.tools.command_rules`: ``git log``, ``sed``, ``ls -la``. It covers the
  command lines that start with those words and whose every option is on the program's
  list (options that only read and print), with arguments that stay inside the
  workspace (no absolute path, no ``~``, no ``..``); or
* an **exact command**: any other grant covers that command line only, word for word.

Nothing with shell syntax is ever covered: ``$``, backquotes, ``;``, ``|``, ``&``,
``>``, ``<``, a backslash or a line break anywhere, or a glob, brace, parenthesis,
``~``, ``!`` or ``#`` outside quotes make the command ask (the words would not say
what runs).
"""

from __future__ import annotations

import shlex
from typing import Literal

from desktop.tools.command_rules import GIT, PROGRAMS, Rule

CommandScopeKind = Literal["program", "exact"]

_NEVER = frozenset("$`;|&<>\\\n\r")
_UNQUOTED = frozenset("*?[]{}()~!#")


def command_words(command: str) -> list[str] | None:
    """The words of a plain command line with the shell's quotes undone; None when it
    has shell syntax (see the module), a control character or an unclosed quote."""
    if any(c in _NEVER or (ord(c) < 32 and c != "\t") or ord(c) == 127 for c in command):
        return None
    words: list[str] = []
    current: list[str] = []
    in_word = False
    quote = ""
    for char in command:
        if quote:
            if char == quote:
                quote = ""
            else:
                current.append(char)
        elif char in " \t":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
        elif char in "'\"":
            quote, in_word = char, True
        elif char in _UNQUOTED:
            return None
        else:
            current.append(char)
            in_word = True
    if quote:
        return None
    if in_word:
        words.append("".join(current))
    return words


def _inside(word: str) -> bool:
    """An argument that names nothing outside the workspace."""
    return not word.startswith(("/", "~")) and ".." not in word.split("/")


def _lead(words: list[str]) -> tuple[int, Rule] | None:
    """How many words name the program (and subcommand), and its rule."""
    if not words:
        return None
    if words[0] == "git":
        if len(words) > 1 and words[1] in GIT:
            return 2, GIT[words[1]]
        return None
    rule = PROGRAMS.get(words[0])
    return None if rule is None else (1, rule)


class _Reader:
    """Reads a program's arguments against its rule, the way getopt does."""

    def __init__(self, rule: Rule, args: list[str]) -> None:
        self.rule = rule
        self.args = args
        self.index = 0
        self.positionals: list[str] = []
        self.scripted = False  # a script came as an option (sed -e)

    def read(self) -> bool:
        """False as soon as an option is not on the rule's lists."""
        done = False
        while self.index < len(self.args):
            word = self.args[self.index]
            self.index += 1
            if done or word == "-" or not word.startswith("-"):
                self.positionals.append(word)
            elif word == "--":
                done = True
            elif self.rule.numbers and word[1:].isdigit():
                continue
            elif not (self._long(word) if word.startswith("--") else self._short(word)):
                return False
        return True

    def _valued(self, name: str, value: str | None) -> bool:
        if value is None:  # the value is the next word
            if self.index >= len(self.args):
                return False
            value = self.args[self.index]
            self.index += 1
        if name in self.rule.script_options:
            self.scripted = True
            return self.rule.script is not None and self.rule.script(value)
        return _inside(value)

    def _long(self, word: str) -> bool:
        name, eq, value = word.partition("=")
        if name in self.rule.flags:
            return not eq
        if name in self.rule.valued:
            return self._valued(name, value if eq else None)
        return name in self.rule.optional and (not eq or _inside(value))

    def _short(self, word: str) -> bool:
        for at in range(1, len(word)):  # maybe clustered: -la, -n5, -uno
            option, rest = "-" + word[at], word[at + 1:]
            if option in self.rule.flags:
                continue
            if option in self.rule.valued:
                return self._valued(option, rest or None)
            return option in self.rule.optional and _inside(rest)
        return True


def rule_allows(rule: Rule, args: list[str], *, complete: bool = True) -> bool:
    """Whether ``args`` (the words after the program) keep to ``rule``; ``complete``
    False: they may be the start of such a list (a grant's words: ``sed -n``)."""
    if rule.expression is not None:
        return rule.expression(args) and all(
            _inside(w) for w in args if not w.startswith("-") and w not in ("!", "(", ")"))
    reader = _Reader(rule, args)
    if not reader.read():
        return False
    positionals = reader.positionals
    if rule.positionals is not None and len(positionals) > rule.positionals:
        return False
    if rule.script is not None and not reader.scripted and (positionals or complete):
        if not positionals or not rule.script(positionals[0]):
            return False
        positionals = positionals[1:]
    return all(_inside(word) for word in positionals)


def _program_lead(words: list[str], *, complete: bool = True) -> int | None:
    """How many leading words name the program, when the whole line keeps to its rule."""
    lead = _lead(words)
    if lead is None or not rule_allows(lead[1], words[lead[0]:], complete=complete):
        return None
    return lead[0]


def command_scope_kind(scope: str) -> CommandScopeKind | None:
    """What a grant with this scope covers (None: it cannot be a grant)."""
    words = command_words(scope)
    if not words:
        return None
    return "program" if _program_lead(words, complete=False) is not None else "exact"


def command_matches(scope: str, command: str) -> bool:
    """Whether a grant for ``scope`` covers the command line ``command``."""
    granted = command_words(scope)
    words = command_words(command)
    if not granted or words is None:
        return False
    if words == granted:
        return True
    return (command_scope_kind(scope) == "program" and words[:len(granted)] == granted
            and _program_lead(words) is not None)


def propose_command_scope(command: str) -> str:
    """The grant to offer for ``command``: its program (and subcommand) when every
    option is known to be safe, else the exact command; "" when it has shell syntax."""
    words = command_words(command)
    if not words:
        return ""
    lead = _program_lead(words)
    return shlex.join(words[:lead] if lead is not None else words)
