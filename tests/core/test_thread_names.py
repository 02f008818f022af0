"""The app's threads carry their names for the OS too (what ``top -H`` and the
streaming benchmark's CPU per thread read)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from desktop.core import save_queue
from desktop.core.thread_names import name_os_thread


def os_name(native_id: int) -> str:
    return Path(f"/proc/self/task/{native_id}/comm").read_text().strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="names read from /proc")
def test_a_thread_named_for_the_os_shows_its_name() -> None:
    seen: list[str] = []

    def work() -> None:
        name_os_thread()
        seen.append(os_name(threading.get_native_id()))

    thread = threading.Thread(target=work, name="assista-stream-and-more")
    thread.start()
    thread.join()
    assert seen == ["assista-stream-"]  # (Linux keeps 15 bytes)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="names read from /proc")
def test_the_saver_thread_is_named_for_the_os() -> None:
    native = save_queue._SAVER.submit(threading.get_native_id).result()
    assert os_name(native) == "assista-save_0"
