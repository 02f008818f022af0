"""``assista inspect`` after ``assista ask``: real processes, a loopback server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_ask_export import KEY, assista
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse

SECRET = KEY["OPENAI_API_KEY"]


def inspect(data_dir: Path, *args: str) -> tuple[int, str, str]:
    done = assista("inspect", "--data-dir", str(data_dir), *args, data_dir=data_dir)
    return done.returncode, done.stdout, done.stderr


def test_inspect_json_after_ask_shows_body_events_timings_and_no_secret(
        tmp_path: Path) -> None:
    with FakeOpenAIServer(models=["gpt-test"]) as server:
        server.enqueue(ScriptedResponse.error(503, "busy", headers={"Retry-After": "0"}))
        scripted = server.enqueue_text("Inspected answer", chunk_size=3)
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-test",
                       "--tools", "", "what is sent?", data_dir=tmp_path, env=KEY)
        assert done.returncode == 0, done.stderr
        received = server.chat_requests[-1]
    code, out, err = inspect(tmp_path, "--json")
    assert code == 0, err
    assert SECRET not in out
    document = json.loads(out)
    [exchange] = document["exchanges"]
    assert exchange["request"]["body"] == json.loads(received.body)
    assert exchange["request"]["body"]["messages"][-1]["content"] == "what is sent?"
    headers = {h["name"].lower(): h["value"] for h in exchange["request"]["headers"]}
    assert headers["authorization"] == "Bearer «redacted»"
    assert exchange["response"]["status"] == 200
    events = exchange["events"]
    assert "".join(e["data"] for e in events) == b"".join(scripted.chunks).decode()
    assert all(isinstance(e["at_s"], float) for e in events)
    assert [r["reason"] for r in exchange["retries"]] == ["HTTP 503"]
    timings = exchange["timings"]
    assert timings["time_to_headers_s"] is not None
    assert timings["time_to_first_token_s"] is not None
    assert timings["time_to_last_token_s"] >= timings["time_to_first_token_s"]
    assert exchange["message_id"] == document["message_ids"][0]
    assert exchange["answer_text"] == "Inspected answer"

    code, text, err = inspect(tmp_path, "--message", exchange["message_id"])
    assert code == 0, err
    assert "Bearer «redacted»" in text and SECRET not in text
    assert "what is sent?" in text and "Timings" in text and "retry 1" in text

    code, _, _ = inspect(tmp_path, "--session", exchange["session_id"], "--json")
    assert code == 0
    files = [p for p in tmp_path.iterdir() if p.name.startswith("inspector.sqlite")]
    assert files and all(SECRET.encode() not in p.read_bytes() for p in files)


def test_inspect_with_nothing_recorded_fails_clearly(tmp_path: Path) -> None:
    code, out, err = inspect(tmp_path)
    assert code != 0 and out == ""
    assert err.strip() == "assista: error: there are no chats yet"
    code, _, err = inspect(tmp_path, "--message", "msg_nope")
    assert code != 0 and "no recorded request for message msg_nope" in err
    code, _, err = inspect(tmp_path, "--session", "ses_nope")
    assert code != 0 and "no chat with id ses_nope" in err
