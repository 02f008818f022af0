"""Projects travel between two data folders like chats: the project, its files' text and
which chats are in it; edits and a deletion follow (its chats stay, out of it); the
workspace folder stays on its machine. Through a shared folder target."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from desktop.projects.service import ProjectService
from desktop.storage.database import Database
from desktop.sync.merge import Merger
from desktop.sync.state import load_clock
from tests.sync.conftest import Device, Place


@pytest.mark.parametrize("target", ["folder", "webdav"])
def test_projects_sync_between_two_data_folders(
        tmp_path: Path, target: str, request: pytest.FixtureRequest) -> None:
    folder: Place = request.getfixturevalue(target)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    notes = tmp_path / "notes.md"
    notes.write_text("Water the figs on Sundays.\n", encoding="utf-8")
    a, b = Device(tmp_path / "a", folder), Device(tmp_path / "b", folder)
    try:
        on_a, on_b = ProjectService.on(a.db), ProjectService.on(b.db)
        project = on_a.create("Garden", instructions="Answer as a gardener.", files=[notes],
                              workspace=str(work), model="gpt-garden")
        inside = a.chat("Fig care", "when to water?")
        outside = a.chat("Taxes", "due when?")
        on_a.move_chat(inside, project)
        a.sync()
        b.sync()

        got = on_b.get(project.id)
        assert got is not None
        assert (got.name, got.instructions, got.model) == (
            "Garden", "Answer as a gardener.", "gpt-garden")
        assert got.workspace is None  # a folder of the other machine
        assert [(f.name, f.content) for f in on_b.files(got)] == [
            ("notes.md", "Water the figs on Sundays.")]
        assert on_b.chat_ids(got) == [inside]
        info = b.sessions.get_session(outside)
        assert info is not None and info.project_id is None

        on_b.save(dataclasses.replace(got, instructions="Answer as a botanist."))
        b.sync()
        a.sync()
        again = on_a.get(project.id)
        assert again is not None and again.instructions == "Answer as a botanist."
        assert again.workspace == str(work.resolve())  # its own folder kept

        on_a.delete(again)
        a.sync()
        b.sync()
        assert on_b.get(project.id) is None
        assert b.db.query("SELECT COUNT(*) FROM project_files")[0][0] == 0
        kept = b.sessions.get_session(inside)
        assert kept is not None and kept.project_id is None  # kept, out of the project
    finally:
        a.db.close()
        b.db.close()


def test_a_kind_of_a_newer_app_is_left_alone_and_the_rest_merges(tmp_path: Path) -> None:
    with Database(tmp_path / "assista.sqlite3") as db:
        with db.transaction() as conn:
            clock = load_clock(conn)
            stamp = clock.stamp()
            merger = Merger(conn, clock)
            merger.apply([["f", "zz", "x1", "name", "?", stamp], ["t", "zz", "x2", stamp],
                          ["f", "p", "f" * 32, "name", "Garden", stamp]])
            merger.finish()
        project = ProjectService.on(db).get("f" * 32)
        assert project is not None and project.name == "Garden"
