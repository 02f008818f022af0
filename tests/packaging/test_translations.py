"""The interface translations: every text of the code is in every .ts, finished."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import translations  # packaging/translations.py (tests/packaging/conftest.py)


def test_every_text_of_the_code_is_translated_in_every_language() -> None:
    problems = translations.check()
    assert problems == [], (
        f"{len(problems)} untranslated text(s); run packaging/translations.py update, "
        "then fill the new entries:\n" + "\n".join(problems[:40]))


TS_HEAD = ('<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n'
           '<TS version="2.1" language="de_DE">')


def test_the_check_finds_unfinished_empty_and_broken_entries(tmp_path: Path) -> None:
    path = tmp_path / "assista_de.ts"
    path.write_text(TS_HEAD + """
<context><name>Ctx</name>
<message><source>Done</source><translation>Fertig</translation></message>
<message><source>New</source><translation type="unfinished"></translation></message>
<message><source>Hello {name}</source><translation>Hallo {nom}</translation></message>
<message numerus="yes"><source>%n chats</source><translation>
<numerusform>%n Chat</numerusform><numerusform></numerusform></translation></message>
</context></TS>""", encoding="utf-8")
    problems = translations.problems_of(path)
    assert len(problems) == 3, problems
    assert "'New': not translated" in problems[0]
    assert "placeholders differ" in problems[1]
    assert "'%n chats': empty translation" in problems[2]


def test_a_text_added_to_the_code_is_reported_missing(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """lupdate over the code brings a new tr() text into a copy of the .ts unfinished."""
    source = tmp_path / "desktop" / "ui" / "new_widget.py"
    source.parent.mkdir(parents=True)
    source.write_text('from PySide6.QtCore import QObject\n\n\nclass NewWidget(QObject):\n'
                      '    def label(self) -> str:\n'
                      '        return self.tr("A text nobody translated yet")\n',
                      encoding="utf-8")
    ts_dir = tmp_path / "resources" / "i18n"
    ts_dir.mkdir(parents=True)
    for ts in translations.TS_DIR.glob("assista_*.ts"):
        shutil.copyfile(ts, ts_dir / ts.name)
    monkeypatch.setattr(translations, "ROOT", tmp_path)
    monkeypatch.setattr(translations, "SOURCES", tmp_path / "desktop")
    monkeypatch.setattr(translations, "TS_DIR", ts_dir)
    problems = translations.check()
    missing = [p for p in problems if "A text nobody translated yet" in p]
    assert len(missing) == len(translations.LANGUAGES), problems[:10]


def test_build_compiles_every_ts() -> None:
    built = translations.build()
    assert {qm.name for qm in built} >= {f"assista_{lang}.qm"
                                         for lang in (*translations.LANGUAGES, "en")}
    assert all(qm.stat().st_size > 0 for qm in built)


#: Spellings lupdate does not read (the text never reaches a .ts) or that look up another
#: context at run time than lupdate wrote: a wrapper function, an alias, another
#: object's tr().
UNREAD = re.compile(r"def _?tr\(|\b_?tr = QCoreApplication\.translate|"
                    r"\b(?!self\b)[a-z_][a-z0-9_]*\.tr\(")


def test_texts_are_marked_the_way_lupdate_reads_them() -> None:
    found = [f"{path.relative_to(translations.ROOT)}:{number}: {line.strip()}"
             for path in sorted(translations.SOURCES.rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if UNREAD.search(line.split("#", 1)[0])]
    assert found == [], ("write self.tr(...) or QCoreApplication.translate(\"Context\", ...) "
                         "out in full:\n" + "\n".join(found))
