"""``assista image --model M [--size WxH] [--n N] --out FILE.png PROMPT`` (real processes,
loopback servers of each wire API)."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_ask_export import assista
from tests.support.gemini_server import FakeGeminiServer, gemini_image_stream, stream_path
from tests.support.images import huge_png, png_bytes
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse
from tests.support.responses_server import FakeResponsesServer, image_generation_response
from tests.support.sse_builders import image_stream

RED, BLUE = png_bytes(8, 6, (200, 40, 40)), png_bytes(4, 4, (20, 40, 220))
KEY = {"OPENAI_API_KEY": "sk-test-images-000000000"}


def test_images_api_writes_numbered_files(tmp_path: Path) -> None:
    out = tmp_path / "cat.png"
    with FakeOpenAIServer() as server:
        server.enqueue_images([RED, BLUE])
        done = assista("image", "--base-url", server.base_url, "--model", "gpt-image-1",
                       "--size", "1024x1536", "--n", "2", "--out", str(out), "a cat",
                       data_dir=tmp_path / "data", env=KEY)
        body = server.image_requests[0].json
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(out), str(tmp_path / "cat-2.png")]
    assert out.read_bytes() == RED and (tmp_path / "cat-2.png").read_bytes() == BLUE
    assert body["size"] == "1024x1536" and body["n"] == 2 and body["prompt"] == "a cat"
    assert body["model"] == "gpt-image-1"


def test_gemini_image_model(tmp_path: Path) -> None:
    out = tmp_path / "g.png"
    model = "gemini-2.5-flash-image"
    with FakeGeminiServer() as server:
        server.enqueue(ScriptedResponse(chunks=gemini_image_stream("Here:", [BLUE])),
                       path=stream_path(model))
        done = assista("image", "--provider", "gemini", "--base-url", server.base_url,
                       "--model", model, "--out", str(out), "a blue square",
                       data_dir=tmp_path / "data", env={"GOOGLE_API_KEY": "AIza-test-key-0000"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(out)]
    assert out.read_bytes() == BLUE


def test_openrouter_image_model(tmp_path: Path) -> None:
    out = tmp_path / "o.png"
    with FakeOpenAIServer() as server:
        server.enqueue(ScriptedResponse(chunks=image_stream("Sure.", [RED])))
        done = assista("image", "--base-url", server.base_url, "--model",
                       "google/gemini-2.5-flash-image", "--out", str(out), "red",
                       data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == RED


def test_responses_image_generation(tmp_path: Path) -> None:
    out = tmp_path / "r.png"
    with FakeResponsesServer() as server:
        server.enqueue(ScriptedResponse(chunks=image_generation_response([RED], "Made.")))
        done = assista("image", "--provider", "openai-responses", "--base-url",
                       server.base_url, "--model", "gpt-5", "--out", str(out),
                       "red", data_dir=tmp_path / "data", env=KEY)
        body = server.bodies[0]
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == RED
    assert {"type": "image_generation"} in body["tools"]


def test_huge_image_is_a_warning_and_a_failure(tmp_path: Path) -> None:
    out = tmp_path / "h.png"
    with FakeOpenAIServer() as server:
        server.enqueue_images([huge_png()])
        done = assista("image", "--base-url", server.base_url, "--model", "gpt-image-1",
                       "--out", str(out), "big", data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 1
    assert "larger than the app allows" in done.stderr
    assert not out.exists() and done.stdout == ""


def test_bad_arguments_are_one_line(tmp_path: Path) -> None:
    for extra in (["--size", "big"], ["--n", "0"]):
        done = assista("image", "--base-url", "http://127.0.0.1:9/v1", "--model", "gpt-image-1",
                       *extra, "--out", str(tmp_path / "x.png"), "p", data_dir=tmp_path / "d",
                       env=KEY)
        assert done.returncode == 1
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    done = assista("image", "--base-url", "http://127.0.0.1:9/v1", "--model", "gpt-image-1",
                   "--out", str(tmp_path / "missing" / "x.png"), "p", data_dir=tmp_path / "d",
                   env=KEY)
    assert done.returncode == 1 and "does not exist" in done.stderr


def test_server_error_is_reported(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.enqueue(ScriptedResponse.error(400, "prompt rejected by the safety system"),
                       path="/v1/images/generations")
        done = assista("image", "--base-url", server.base_url, "--model", "dall-e-3",
                       "--out", str(tmp_path / "x.png"), "p", data_dir=tmp_path / "d", env=KEY)
    assert done.returncode == 1
    assert "assista: error:" in done.stderr


def test_ask_with_an_image_model_keeps_the_image_with_the_chat(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_images([RED])
        done = assista("ask", "--base-url", server.base_url, "--model", "gpt-image-1",
                       "a red square", data_dir=tmp_path / "data", env=KEY)
    assert done.returncode == 0, done.stderr
    assert "the answer has an image" in done.stderr
    exported = assista("export", "--format", "json", data_dir=tmp_path / "data")
    import base64
    import json

    (session,) = json.loads(exported.stdout)["sessions"]
    images = [p for m in session["messages"] for p in m["parts"] if p["type"] == "image"]
    assert [base64.b64decode(p["data"]) for p in images] == [RED]
