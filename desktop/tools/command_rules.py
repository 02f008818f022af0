"""What a scoped ``run_command`` grant may cover, program by program.

A grant for ``git log`` or ``sed`` covers a command only when every option in it is on
that program's list here: options that read and print. Options that run other
programs, write files or read their instructions from elsewhere are left off on
purpose (``sed -i`` and its ``e``/``w`` commands, ``git -c``/``-C``/``--output``/
``--ext-diff``, ``find -exec``/``-delete``, ``rg --pre``, ``sort -o``, ``tree -o``,
``pytest --basetemp``...), and so is anything not listed: such a command asks again.
A program not here can only be granted as one exact command.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


class Rule(msgspec.Struct, frozen=True):
    """The options of one program (or one git subcommand) that a grant may cover.

    ``flags`` take no value; ``valued`` take one (``--opt=v``, ``--opt v``, ``-ov``,
    ``-o v``); ``optional`` take one only as ``--opt=v`` (or attached, ``-uno``).
    ``numbers``: ``-5`` is allowed (head, git log). ``positionals``: how many
    non-option words may follow (None: any number). ``script``: the first non-option
    word (or each ``script_options`` value) must pass this check (sed's script).
    ``expression``: a checker for the whole argument list instead (find)."""

    flags: frozenset[str] = frozenset()
    valued: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    numbers: bool = False
    positionals: int | None = None
    script: Callable[[str], bool] | None = None
    script_options: frozenset[str] = msgspec.field(default_factory=frozenset)
    expression: Callable[[list[str]], bool] | None = None


# -- sed: only scripts that print ------------------------------------------------------

_ADDRESS = r"(?:\d+(?:~\d+)?|/[^/]*/I?)(?:,(?:\d+|/[^/]*/I?|[+~]\d+))?"
_SIMPLE = re.compile(rf"(?:{_ADDRESS})?!?[pPdD=lqQnNgGhHx]")


def safe_sed_script(script: str) -> bool:
    """One sed command that prints, deletes from the output or substitutes (flags
    ``g p i I m M`` and a count only): never ``e``, ``w``, ``r`` or a block."""
    text = script.strip()
    if _SIMPLE.fullmatch(text):
        return True
    match = re.match(rf"(?:{_ADDRESS})?!?([sy])(.)", text)
    if match is None:
        return False
    command, delimiter = match.group(1), match.group(2)
    if delimiter.isalnum() or delimiter.isspace():
        return False
    parts = text[match.end():].split(delimiter)
    if len(parts) != 3:
        return False
    tail = parts[2]
    return tail == "" if command == "y" else re.fullmatch(r"[gpiImM0-9]*", tail) is not None


# -- find: tests and printing only ------------------------------------------------------

_FIND_TESTS = {
    "-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
    "-regex": 1, "-iregex": 1, "-type": 1, "-xtype": 1, "-maxdepth": 1, "-mindepth": 1,
    "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1,
    "-newer": 1, "-perm": 1, "-user": 1, "-group": 1, "-links": 1, "-empty": 0,
    "-readable": 0, "-writable": 0, "-executable": 0, "-print": 0, "-print0": 0, "-ls": 0,
    "-prune": 0, "-not": 0, "!": 0, "-o": 0, "-or": 0, "-a": 0, "-and": 0, "(": 0, ")": 0,
    "-true": 0, "-false": 0, "-depth": 0, "-mount": 0, "-xdev": 0, "-nowarn": 0,
    "-regextype": 1,
}


def safe_find_arguments(words: list[str]) -> bool:
    """``find [-H|-L|-P] [paths] [tests]`` with tests from the list above only (no
    ``-exec``, ``-execdir``, ``-ok``, ``-delete``, ``-fprint``, ``-fls``...)."""
    index = 0
    while index < len(words) and words[index] in ("-H", "-L", "-P"):
        index += 1
    while index < len(words) and not words[index].startswith("-") and words[index] not in (
            "!", "(", ")"):
        index += 1  # the starting points (checked as paths by the caller)
    while index < len(words):
        arity = _FIND_TESTS.get(words[index])
        if arity is None or index + arity >= len(words):
            return False
        index += 1 + arity
    return True


# -- the programs -----------------------------------------------------------------------

_DIFF_FLAGS = _set(
    "--stat --shortstat --numstat --name-only --name-status --summary --compact-summary "
    "-p --patch -s --no-patch --raw --minimal --patience --histogram -w -b "
    "--ignore-all-space --ignore-space-change --ignore-blank-lines --no-color --no-renames "
    "--no-ext-diff --no-textconv --full-index --binary -R --exit-code --quiet --check")
_DIFF_OPTIONAL = _set(
    "--color --word-diff --stat --dirstat --abbrev --find-renames --find-copies -M -C "
    "--relative --color-words --color-moved")
_DIFF_VALUED = _set("-U --unified --diff-filter --inter-hunk-context --stat-width")

_LOG = Rule(
    flags=_DIFF_FLAGS | _set(
        "--oneline --graph --all --branches --tags --remotes --abbrev-commit "
        "--no-abbrev-commit --reverse --follow --merges --no-merges --first-parent "
        "--full-history --date-order --topo-order --author-date-order --left-right "
        "--cherry-pick --boundary --no-decorate --source --use-mailmap -i "
        "--regexp-ignore-case --all-match --invert-grep -E --extended-regexp -F "
        "--fixed-strings --simplify-by-decoration --dense --sparse --cc -m --no-walk "
        "--full-diff --walk-reflogs -g --show-signature --notes --no-notes"),
    valued=_DIFF_VALUED | _set(
        "-n --max-count --skip --since --after --until --before --author --committer "
        "--grep --date --max-parents --min-parents -S -G --encoding --format"),
    optional=_DIFF_OPTIONAL | _set("--decorate --pretty"),
    numbers=True,
)

GIT: dict[str, Rule] = {
    "status": Rule(
        flags=_set("-s --short -b --branch --long -v --verbose -z --column --no-column "
                   "--ahead-behind --no-ahead-behind --renames --no-renames --show-stash"),
        optional=_set("--porcelain --untracked-files -u --ignored --ignore-submodules "
                      "--find-renames"),
    ),
    "log": _LOG,
    "show": _LOG,
    "diff": Rule(flags=_DIFF_FLAGS | _set("--cached --staged --merge-base"),
                 valued=_DIFF_VALUED, optional=_DIFF_OPTIONAL),
    "branch": Rule(
        flags=_set("-a --all -r --remotes -v -vv --verbose --list -l --show-current "
                   "--no-color --no-column -i --ignore-case"),
        valued=_set("--sort --contains --no-contains --merged --no-merged --points-at "
                    "--format"),
        optional=_set("--color --column --abbrev"),
        positionals=0,
    ),
    "rev-parse": Rule(
        flags=_set("--show-toplevel --verify -q --quiet --symbolic --symbolic-full-name "
                   "--is-inside-work-tree --show-prefix --show-cdup --git-dir "
                   "--absolute-git-dir --is-bare-repository --all --branches --tags"),
        optional=_set("--short --abbrev-ref")),
    "ls-files": Rule(
        flags=_set("-c --cached -d --deleted -m --modified -o --others -i --ignored "
                   "-s --stage -u --unmerged -k --killed --exclude-standard -z --full-name "
                   "--directory --no-empty-directory -t -v -f --eol --error-unmatch "
                   "--deduplicate"),
        valued=_set("-x --exclude --format"), optional=_set("--abbrev")),
    "blame": Rule(
        flags=_set("-l -t -s -e -w -p --porcelain --line-porcelain --root --show-stats "
                   "-f --show-name -n --show-number -c --color-lines --color-by-age"),
        valued=_set("-L --since --date"), optional=_set("--abbrev")),
    "grep": Rule(
        flags=_set("-n --line-number -i --ignore-case -w --word-regexp -v --invert-match "
                   "-l --files-with-matches -L --files-without-match -c --count -E "
                   "--extended-regexp -F --fixed-strings -G --basic-regexp -P "
                   "--perl-regexp -h -H --full-name --cached --untracked -I -r --recursive "
                   "-a --text --heading --break --column -o --only-matching -q --quiet "
                   "--all-match --and --or --not -z --null --no-color -W "
                   "--function-context -p --show-function"),
        valued=_set("-e -A -B -C --context --after-context --before-context -m "
                    "--max-count --max-depth --threads"),
        optional=_set("--color"), numbers=True),
    "shortlog": Rule(flags=_set("-s --summary -n --numbered -e --email -c --committer "
                                "--all"), valued=_set("--group --format")),
    "describe": Rule(flags=_set("--tags --all --long --always --exact-match "
                                "--first-parent --contains"),
                     valued=_set("--match --exclude --candidates"),
                     optional=_set("--abbrev --dirty")),
    "remote": Rule(flags=_set("-v --verbose"), positionals=0),
}

_GREP_FLAGS = _set(
    "-n -i -v -w -x -c -l -L -o -q -s -r -R -h -H -E -F -G -P -I -a -z -Z --line-number "
    "--ignore-case --invert-match --word-regexp --line-regexp --count --files-with-matches "
    "--files-without-match --only-matching --quiet --silent --no-messages --recursive "
    "--dereference-recursive --no-filename --with-filename --extended-regexp "
    "--fixed-strings --basic-regexp --perl-regexp --text --null --null-data --byte-offset "
    "-b -T --initial-tab")

PROGRAMS: dict[str, Rule] = {
    "sed": Rule(
        flags=_set("-n --quiet --silent -E -r --regexp-extended -s --separate -z "
                   "--null-data -u --unbuffered --posix --debug --sandbox"),
        valued=_set("-e --expression -l --line-length"),
        script=safe_sed_script, script_options=_set("-e --expression")),
    "ls": Rule(
        flags=_set(
            "-a -A -l -h -R -t -r -S -1 -d -F -p -i -s -n -G -o -g -c -u -U -X -v -x -C "
            "-m -Q -N -k -L -H -b --all --almost-all --human-readable --recursive "
            "--reverse --directory --classify --inode --size --numeric-uid-gid "
            "--no-group --full-time --group-directories-first --si --escape --literal "
            "--quote-name --dereference"),
        valued=_set("--sort --time --time-style --format --width -w -I --ignore --hide "
                    "--indicator-style --block-size -T --tabsize --quoting-style"),
        optional=_set("--color --hyperlink")),
    "cat": Rule(flags=_set("-n -b -s -A -E -T -v -e -t --number --number-nonblank "
                           "--squeeze-blank --show-all --show-ends --show-tabs "
                           "--show-nonprinting")),
    "head": Rule(flags=_set("-q -v --quiet --silent --verbose -z --zero-terminated"),
                 valued=_set("-n --lines -c --bytes"), numbers=True),
    "tail": Rule(flags=_set("-q -v --quiet --silent --verbose -z --zero-terminated"),
                 valued=_set("-n --lines -c --bytes"), numbers=True),
    "wc": Rule(flags=_set("-l -w -c -m -L --lines --words --bytes --chars "
                          "--max-line-length")),
    "grep": Rule(flags=_GREP_FLAGS,
                 valued=_set("-e --regexp -A -B -C --context --after-context "
                             "--before-context -m --max-count --include --exclude "
                             "--exclude-dir --binary-files"),
                 optional=_set("--color --colour"), numbers=True),
    "rg": Rule(
        flags=_set(
            "-n -i -S -s -w -x -v -l -c -o -F -u -L -H -N -I -a -U -P -0 --hidden "
            "--no-ignore --files --json --count --count-matches --files-with-matches "
            "--files-without-match --fixed-strings --ignore-case --smart-case "
            "--case-sensitive --word-regexp --line-regexp --invert-match --only-matching "
            "--no-heading --heading --line-number --no-line-number --with-filename "
            "--no-filename --follow --text --multiline --stats --vimgrep --no-messages "
            "--trim --null --pcre2 --no-config"),
        valued=_set("-e --regexp -g --glob --iglob -t --type -T --type-not -A -B -C "
                    "--context --after-context --before-context -m --max-count "
                    "--max-depth -d --sort --sortr --max-filesize --color -r --replace -M "
                    "--max-columns -j --threads -E --encoding")),
    "find": Rule(expression=safe_find_arguments),
    "pwd": Rule(flags=_set("-L -P"), positionals=0),
    "echo": Rule(flags=_set("-n -e -E")),
    "tree": Rule(flags=_set("-a -d -f -i -F -p -s -h -D -C -n -Q -N -v -t -r -u -g "
                            "--noreport --dirsfirst --du --prune"),
                 valued=_set("-L -P -I --charset --filelimit --sort --timefmt")),
    "sort": Rule(flags=_set("-n -r -u -f -b -d -g -h -i -M -R -V -s -c -C -z "
                            "--numeric-sort --reverse --unique --ignore-case "
                            "--human-numeric-sort --version-sort --stable --check"),
                 valued=_set("-k --key -t --field-separator")),
    "uniq": Rule(flags=_set("-c -d -u -i -z -D --count --repeated --unique --ignore-case"),
                 valued=_set("-f -s -w --skip-fields --skip-chars --check-chars"),
                 positionals=1),
    "diff": Rule(flags=_set("-u -q -r -N -a -b -w -B -i -y -s --brief --recursive "
                            "--new-file --side-by-side --report-identical-files "
                            "--strip-trailing-cr --minimal --text --ignore-case "
                            "--ignore-all-space --ignore-space-change --ignore-blank-lines "
                            "--normal --suppress-common-lines"),
                 valued=_set("-U -W --width -x --exclude"),
                 optional=_set("--unified --color")),
    "file": Rule(flags=_set("-b -i -L -h -z -N -k --mime --mime-type --brief")),
    "stat": Rule(flags=_set("-L -f -t --terse --dereference"),
                 valued=_set("-c --format --printf")),
    "du": Rule(flags=_set("-s -h -a -c -k -m -x -b --summarize --human-readable --all "
                          "--total --apparent-size"),
               valued=_set("-d --max-depth -t --threshold")),
    "pytest": Rule(flags=_set("-q -v -x -s -l --lf --ff --nf --sw --co --collect-only "
                              "--no-header --exitfirst --quiet --verbose --last-failed "
                              "--failed-first --new-first --stepwise --showlocals "
                              "--strict-markers --disable-warnings"),
                   valued=_set("-k -m --maxfail --tb -r --durations")),
}
