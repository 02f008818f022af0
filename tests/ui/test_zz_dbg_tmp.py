import os
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
import asyncio, qasync, pytest

@pytest.fixture
def qt_loop(qapp):
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    for task in asyncio.all_tasks(loop):
        task.cancel()
    qapp.processEvents()
    if os.environ.get("STOP"): loop.stop()
    asyncio.events._set_running_loop(None)
    qapp.aboutToQuit.disconnect(loop._after_run_forever)
    if os.environ.get("CLOSE"): loop.close()
    asyncio.set_event_loop(None)

@pytest.mark.parametrize("i", range(3))
def test_x(qtbot, qt_loop, i):
    done = []
    async def job():
        done.append(1)
        await asyncio.sleep(0.01)
        done.append(2)
    t = asyncio.ensure_future(job())
    qtbot.waitUntil(lambda: t.done(), timeout=2000)
