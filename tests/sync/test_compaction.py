"""Compaction: a device's small segments become one snapshot a new device reads instead."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.sync.conftest import Device, Place

MakeDevice = Callable[[str], Device]


@pytest.fixture
def place(folder: Place) -> Place:
    return folder


def test_small_segments_are_compacted_and_a_new_device_reads_the_snapshot(
    devices: MakeDevice, place: Place
) -> None:
    a, b = devices("a"), devices("b")
    chat = a.chat("Diary", "day 0")
    doomed = a.chat("Scratch", "temporary")
    for day in range(1, 6):
        a.say(chat, f"day {day}")
        a.sessions.rename_session(chat, f"Diary, {day} days")
        if day == 3:
            a.sessions.delete_session(doomed)
            a.sessions.purge_deleted(session_id=doomed)
        report = a.sync(compact_after=10)
    assert report.compacted
    names = [n for n in place.stored() if "/devices/" in f"/{n}"]
    assert any("/snap-" in n for n in names)
    assert not any("/seg-" in n for n in names)
    b.sync()
    assert [m.text for m in b.sessions.load_messages(chat)] == [f"day {d}" for d in range(6)]
    assert b.sessions.get_session(chat).title == "Diary, 5 days"  # type: ignore[union-attr]
    assert b.sessions.get_session(doomed, include_deleted=True) is None
    # Later segments are read after the snapshot.
    a.say(chat, "day 6")
    a.sync(compact_after=10)
    b.sync()
    assert b.sessions.load_messages(chat)[-1].text == "day 6"
