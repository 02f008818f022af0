#!/usr/bin/env python3
"""The interface translations: ``.ts`` sources in ``resources/i18n`` and their ``.qm``.

* ``update`` — run ``pyside6-lupdate`` over ``desktop/`` into every ``.ts`` (new texts
  come in unfinished, texts gone from the code are dropped; no line numbers, so a
  ``.ts`` changes only when its texts do). ``assista_en.ts`` holds only the plural forms
  English needs ("%n chats" -> "1 chat").
* ``fill LANG FILE.json`` — put translations into ``assista_LANG.ts``: the JSON maps a
  source text (or ``"Context|source"`` where one text needs two translations) to its
  translation, or to a list of plural forms for texts with ``%n``; entries found are
  marked finished, placeholders ({name}, %n, %1) must match the source's.
* ``check`` — fail (exit 1, listing them) when a text of the code is missing from a
  ``.ts`` or a translation is unfinished (the test suite runs it).
* ``build``  — compile each ``.ts`` to ``.qm`` with ``pyside6-lrelease`` (what the app
  loads; built, not committed). ``python3 packaging/dev.py run``/``test`` and
  ``packaging/build.py`` run this step.

Run with the project's virtual environment: ``.venv/bin/python packaging/translations.py
build``. The tools ship with PySide6 (``pyside6-lupdate``, ``pyside6-lrelease``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TS_DIR = ROOT / "resources" / "i18n"
SOURCES = ROOT / "desktop"
#: Complete translations (the .ts completeness test checks each); English plurals aside.
LANGUAGES = ("zh_CN", "es", "de", "ja", "fr")


def ts_path(language: str) -> Path:
    return TS_DIR / f"assista_{language}.ts"


def qm_path(language: str) -> Path:
    return TS_DIR / f"assista_{language}.qm"


def tool(name: str) -> str:
    """``pyside6-<name>`` next to this Python (the venv's), else on PATH."""
    here = Path(sys.executable).parent
    for candidate in (here / f"pyside6-{name}", here / f"pyside6-{name}.exe"):
        if candidate.exists():
            return str(candidate)
    found = shutil.which(f"pyside6-{name}")
    if found is None:
        raise SystemExit(f"pyside6-{name} not found: install PySide6 in this environment")
    return found


def python_sources() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in SOURCES.rglob("*.py"))


def lupdate(targets: list[Path], *, plural_only: bool = False, quiet: bool = True) -> None:
    """Merge the texts of the code into ``targets`` (created when missing)."""
    TS_DIR.mkdir(parents=True, exist_ok=True)
    cmd = [tool("lupdate"), "-locations", "none", "-no-obsolete", "-source-language", "en"]
    if plural_only:
        cmd.append("-pluralonly")
    with tempfile.TemporaryDirectory() as scratch:
        # (the sources as a list file: one command line for every module)
        listing = Path(scratch) / "sources.lst"
        listing.write_text("\n".join(python_sources()) + "\n", encoding="utf-8")
        cmd += [f"@{listing}", "-ts", *(str(t) for t in targets)]
        subprocess.run(cmd, cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL if quiet else subprocess.PIPE)


def update() -> None:
    lupdate([ts_path(language) for language in LANGUAGES], quiet=False)
    lupdate([ts_path("en")], plural_only=True, quiet=False)


_PLACEHOLDER = re.compile(r"\{[a-z_]*\}|%n|%L?\d")


def placeholders(text: str) -> list[str]:
    return sorted(_PLACEHOLDER.findall(text))


def fill(language: str, translations: dict[str, str | list[str]]) -> list[str]:
    """Fill ``assista_<language>.ts`` from ``translations``; returns the problems (source
    texts without a translation, placeholders that do not match)."""
    path = ts_path(language)
    tree = ET.parse(path)
    problems: list[str] = []
    for context in tree.getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            found = translations.get(f"{name}|{source}", translations.get(source))
            translation = message.find("translation")
            if translation is None:
                translation = ET.SubElement(message, "translation")
            if found is None:
                if translation.get("type") == "unfinished":
                    problems.append(f"missing: {name}|{source}")
                continue
            forms = [found] if isinstance(found, str) else list(found)
            for form in forms:
                if placeholders(form.replace("%n", "")) != placeholders(source.replace("%n", "")):
                    problems.append(f"placeholders differ: {source!r} -> {form!r}")
            if message.get("numerus") == "yes":
                slots = translation.findall("numerusform") or [ET.SubElement(
                    translation, "numerusform")]
                for index, slot in enumerate(slots):
                    slot.text = forms[min(index, len(forms) - 1)]
            else:
                translation.text = forms[0]
            translation.attrib.pop("type", None)
    ET.indent(tree, space="    ")
    body = ET.tostring(tree.getroot(), encoding="unicode")
    path.write_text('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n' + body + "\n",
                    encoding="utf-8")
    return problems


def problems_of(path: Path) -> list[str]:
    """What is not finished in a ``.ts``: unfinished or empty translations, empty plural
    forms, placeholders that differ from the source's."""
    problems = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            where = f"{path.name}: {name}|{source!r}"
            translation = message.find("translation")
            if translation is None or translation.get("type") in ("unfinished", "vanished",
                                                                   "obsolete"):
                problems.append(f"{where}: not translated")
                continue
            forms = ([form.text or "" for form in translation.iter("numerusform")]
                     if message.get("numerus") == "yes" else [translation.text or ""])
            if not forms or not all(form.strip() for form in forms):
                problems.append(f"{where}: empty translation")
            for form in forms:
                if placeholders(form.replace("%n", "")) != placeholders(
                        source.replace("%n", "")):
                    problems.append(f"{where}: placeholders differ in {form!r}")
    return problems


def check() -> list[str]:
    """Every text of the code is in every ``.ts`` with a finished translation: lupdate
    merges the code into copies (a text it adds comes in unfinished), then each copy is
    read. The committed files are not touched."""
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        copies = {}
        for language in (*LANGUAGES, "en"):
            if not ts_path(language).exists():
                problems.append(f"{ts_path(language).name} is missing")
                continue
            copies[language] = Path(scratch) / ts_path(language).name
            shutil.copyfile(ts_path(language), copies[language])
        lupdate([copies[lang] for lang in LANGUAGES if lang in copies])
        if "en" in copies:
            lupdate([copies["en"]], plural_only=True)
        for copy in copies.values():
            problems += problems_of(copy)
    return problems


def build() -> list[Path]:
    """Compile every ``.ts`` that is newer than its ``.qm``; returns the ``.qm`` files."""
    built = []
    for ts in sorted(TS_DIR.glob("assista_*.ts")):
        qm = ts.with_suffix(".qm")
        if not qm.exists() or qm.stat().st_mtime < ts.stat().st_mtime:
            # Written beside it, then renamed: a process loading the .qm meanwhile (a
            # running app, a parallel test worker) reads the old file or the new, never
            # half of one.
            part = qm.with_name(f"{qm.name}.{os.getpid()}.part")
            try:
                subprocess.run([tool("lrelease"), "-silent", str(ts), "-qm", str(part)],
                               check=True)
                os.replace(part, qm)
            finally:
                part.unlink(missing_ok=True)
        built.append(qm)
    return built


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "fill":
        problems = fill(argv[1], json.loads(Path(argv[2]).read_text(encoding="utf-8")))
        print("\n".join(problems) or f"{ts_path(argv[1]).name}: every text translated")
        return 1 if problems else 0
    if len(argv) != 1 or argv[0] not in ("update", "build", "check"):
        print(__doc__)
        return 2
    if argv[0] == "check":
        problems = check()
        print("\n".join(problems) or "translations: every text translated in every language")
        return 1 if problems else 0
    if argv[0] == "update":
        update()
    else:
        print(f"translations: {len(build())} .qm files in {TS_DIR.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
