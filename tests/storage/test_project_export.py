"""Projects travel in the JSON export: importing it into another data folder gives back
each project with its instructions, files' text and chats (the CLI's and the window's
export and import both go through these functions)."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.projects.service import ProjectService
from desktop.storage.database import Database
from desktop.storage.export import export_sessions
from desktop.storage.importer import import_document
from desktop.storage.sessions import SessionStore


def test_projects_survive_export_and_import(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    notes = tmp_path / "notes.md"
    notes.write_text("Water the figs on Sundays.\n", encoding="utf-8")
    with Database(tmp_path / "one" / "assista.sqlite3") as db, \
            Database(tmp_path / "two" / "assista.sqlite3") as other:
        sessions, projects = SessionStore(db), ProjectService.on(db)
        project = projects.create("Garden", instructions="Answer as a gardener.",
                                  files=[notes], model="gpt-garden", workspace=str(tmp_path))
        empty = projects.create("Empty")
        inside = sessions.create_session("Fig care", project_id=project.id).id
        outside = sessions.create_session("Taxes").id

        doc = json.loads(export_sessions(sessions))
        only = json.loads(export_sessions(sessions, [inside]))
        report = import_document(SessionStore(other), doc)
        again = import_document(SessionStore(other), doc)  # twice adds nothing

        there = ProjectService.on(other)
        got = there.get(project.id)
        assert got is not None
        assert (got.name, got.instructions, got.model) == (
            "Garden", "Answer as a gardener.", "gpt-garden")
        assert got.workspace is None  # a folder of this machine is not exported
        assert [(f.name, f.content) for f in there.files(got)] == [
            ("notes.md", "Water the figs on Sundays.")]
        assert there.chat_ids(got) == [inside]
        assert there.get(empty.id) is not None  # exporting everything takes every project
        moved = SessionStore(other).get_session(outside)
        assert moved is not None and moved.project_id is None
        assert report.projects == 2 and "Added 2 projects" in report.summary()
        assert again.projects == 0 and not again.imported
        assert [p["name"] for p in only["projects"]] == ["Garden"]  # the chats' own


def test_a_chat_whose_project_is_not_in_the_file_is_imported_in_no_project(
        tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    with Database(tmp_path / "one" / "assista.sqlite3") as db, \
            Database(tmp_path / "two" / "assista.sqlite3") as other:
        sessions = SessionStore(db)
        project = ProjectService.on(db).create("Garden")
        chat = sessions.create_session("Fig care", project_id=project.id).id
        doc = json.loads(export_sessions(sessions, [chat]))
        del doc["projects"]
        import_document(SessionStore(other), doc)
        info = SessionStore(other).get_session(chat)
        assert info is not None and info.project_id is None
