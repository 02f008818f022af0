from __future__ import annotations

from collections.abc import Callable

import pytest

from desktop.core.conversation import SessionRecorder, auto_title
from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.save_queue import SaveError, SaveQueue


class MemoryStore:
    def __init__(self) -> None:
        self.saved: list[tuple[str, Message]] = []

    def save_message(self, session_id: str, message: Message) -> None:
        self.saved.append((session_id, message.model_copy(deep=True)))

    def latest(self) -> dict[str, Message]:
        return {m.id: m for _, m in self.saved}


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class CountingQueue(SaveQueue):
    """Records what the recorder asks to save (the saves themselves run in a thread)."""

    def __init__(self, store: MemoryStore) -> None:
        super().__init__(store, "s1")
        self.asked: list[Message] = []

    def put_latest(self, message_id: str, item: Message | Callable[[], Message]) -> None:
        self.asked.append(item if isinstance(item, Message) else item())
        super().put_latest(message_id, item)


async def test_recorder_saves_streaming_snapshots_at_most_once_per_interval() -> None:
    from desktop.core.accumulator import MessageBuilder
    from desktop.core.agent_events import AssistantFinished, AssistantStarted

    store = MemoryStore()
    clock = FakeClock()
    queue = CountingQueue(store)
    recorder = SessionRecorder(store, "s1", save_interval=1.0, clock=clock, queue=queue)
    builder = MessageBuilder(model="m", provider="p")
    recorder(AssistantStarted(message_id=builder.id, round=1, model="m",
                              snapshot=builder.snapshot))
    assert len(queue.asked) == 1 and queue.asked[0].status == "streaming"
    for i in range(10):
        event = TextDelta(f"t{i} ")
        builder.feed(event)
        clock.now += 0.25
        recorder(event)
    # 2.5 s of streaming -> two interval saves after the initial one
    assert len(queue.asked) == 3
    assert queue.asked[-1].text.startswith("t0 t1 t2 t3")
    recorder(AssistantFinished(message=builder.finish("complete")))
    await recorder.close()
    assert store.saved[-1][1].status == "complete"
    assert store.saved[-1][1].text.count("t") == 10
    assert queue.pending == []


async def test_recorder_keeps_going_when_a_save_fails_and_says_so_at_the_end() -> None:
    class Broken:
        def save_message(self, session_id: str, message: Message) -> None:
            raise OSError("disk full")

    seen: list[object] = []
    broken = Broken()
    recorder = SessionRecorder(broken, "s", seen.append,
                               queue=SaveQueue(broken, "s", stream_delays=(),
                                               final_delays=(0.0,)))
    from desktop.core.agent_events import ToolResultsMessage

    message = Message(role="tool")
    recorder(ToolResultsMessage(message=message))
    assert len(seen) == 1  # the event went on at once
    with pytest.raises(SaveError, match="could not be saved: disk full") as caught:
        await recorder.close()
    assert caught.value.messages == [message]  # whole, in memory
    assert recorder.save_errors == 3  # once while streaming, twice at the end


def test_auto_title() -> None:
    title = auto_title("\n\n# Read notes.txt and summarise it\nmore")
    assert title == "Read notes.txt and summarise it"
    assert auto_title("x" * 100).endswith("…") and len(auto_title("x" * 100)) == 60
    assert auto_title("   ") == "New chat"
