"""Benchmark: our Chat Completions streaming vs the official openai SDK.

Run: ``.venv/bin/python tests/bench/bench_openai_stream.py [--mb 5] [--latency-runs 300]``
(not collected by pytest). Prints each figure with its target and PASS/MISS:

a. our SSE decoding + event parsing + assembly of the final message (text + tool
   calls), fed through ``httpx.MockTransport``, in MB/s;
b. the openai SDK's accumulating ``chat.completions.stream`` fed the same chunks
   through ``httpx2.MockTransport``, in MB/s (the faster of its sync/async clients);
c. the ratio a/b (target >= 10x);
d. time from the first byte of the response body to our first TextDelta (target
   < 2 ms), over a MockTransport and over the loopback fake server.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from desktop.core.events import TextDelta, ToolCallComplete  # noqa: E402
from desktop.core.messages import Message  # noqa: E402
from desktop.core.provider import ChatRequest  # noqa: E402
from desktop.providers.openai_chat import OpenAIChatProvider  # noqa: E402
from desktop.providers.openai_chat_stream import OpenAIChatStreamParser  # noqa: E402
from desktop.providers.retry import RetryPolicy  # noqa: E402
from desktop.providers.sse import SSEDecoder  # noqa: E402
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse  # noqa: E402

REQUEST = ChatRequest(model="gpt-4o-mini", messages=[Message.user("Write a lot.")])
_VOCABULARY = """the of and to in is that for it as with was on be by this are from or an at
which not stream token model provider assistant function argument café naïve über résumé
東京 データ 😀 — “quoted” code() {x: 1} path/to/file.py"""
WORDS = [*_VOCABULARY.split(), "\n", "\n\n"]


# ---------------------------------------------------------------- the recording


def _chunk(cid: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1735689600,
        "model": "gpt-4o-mini-2024-07-18",
        "service_tier": "default",
        "system_fingerprint": "fp_b376dfbbd5",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "usage": None,
    }


def _event(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode() + b"\n\n"


def make_recording(target_bytes: int, seed: int = 7) -> tuple[list[bytes], str, list[str]]:
    """~target_bytes of SSE, one event per network read: 60% text, 40% tool arguments
    split over three calls. Returns (chunks, expected text, expected arguments)."""
    rng = random.Random(seed)
    cid = "chatcmpl-BenchBenchBenchBenchBench01"
    chunks = [_event(_chunk(cid, {"role": "assistant", "content": "", "refusal": None}))]
    size = len(chunks[0])
    text: list[str] = []
    while size < target_bytes * 0.6:
        token = rng.choice(WORDS) + (" " if rng.random() < 0.8 else "")
        text.append(token)
        chunks.append(_event(_chunk(cid, {"content": token})))
        size += len(chunks[-1])
    arguments: list[str] = []
    for index in range(3):
        first = {"index": index, "id": f"call_bench{index:02d}", "type": "function",
                 "function": {"name": f"write_file_{index}", "arguments": ""}}  # fmt: skip
        chunks.append(_event(_chunk(cid, {"tool_calls": [first]})))
        body = json.dumps({"path": f"out/{index}.md", "content": "x"})[:-2]
        pieces = [body[i : i + 4] for i in range(0, len(body), 4)]
        while size < target_bytes * (0.6 + 0.4 * (index + 1) / 3):
            pieces.append(json.dumps(rng.choice(WORDS))[1:-1] + " ")
            size += 230
        pieces.append('"}')
        for piece in pieces:
            frag = {"index": index, "function": {"arguments": piece}}
            chunks.append(_event(_chunk(cid, {"tool_calls": [frag]})))
        arguments.append("".join(pieces))
        size = sum(len(c) for c in chunks)
    chunks.append(_event(_chunk(cid, {}, "tool_calls")))
    usage = {"prompt_tokens": 20, "completion_tokens": len(chunks), "total_tokens": 20}
    chunks.append(_event({**_chunk(cid, {}), "choices": [], "usage": usage}))
    chunks.append(b"data: [DONE]\n\n")
    return chunks, "".join(text), arguments


# ---------------------------------------------------------------- ours


def _async_client(chunks: list[bytes], marks: dict[str, float] | None = None) -> httpx.AsyncClient:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            if marks is not None and "first_byte" not in marks:
                marks["first_byte"] = time.perf_counter()
            yield chunk

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


async def ours_assemble(chunks: list[bytes]) -> tuple[str, list[str]]:
    async with _async_client(chunks) as client:
        provider = OpenAIChatProvider("http://bench/v1", "sk-bench", client=client)
        text: list[str] = []
        arguments: list[str] = []
        async for event in provider.stream(REQUEST):
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ToolCallComplete):
                arguments.append(event.arguments)
        return "".join(text), arguments


def ours_core(chunks: list[bytes]) -> tuple[str, list[str]]:
    """Decoder + parser only (no HTTP stack)."""
    decoder, parser = SSEDecoder(), OpenAIChatStreamParser("bench")
    text: list[str] = []
    arguments: list[str] = []
    for chunk in chunks:
        for sse in decoder.feed(chunk):
            for event in parser.feed(sse):
                if isinstance(event, TextDelta):
                    text.append(event.text)
                elif isinstance(event, ToolCallComplete):
                    arguments.append(event.arguments)
    return "".join(text), arguments


# ---------------------------------------------------------------- the SDK


def _sdk_result(completion: Any) -> tuple[str, list[str]]:
    message = completion.choices[0].message
    return message.content or "", [c.function.arguments for c in message.tool_calls or []]


def sdk_sync(chunks: list[bytes]) -> tuple[str, list[str]]:
    import httpx2
    import openai

    def handler(request: Any) -> Any:
        def body() -> Iterator[bytes]:
            yield from chunks

        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    client = openai.OpenAI(
        api_key="sk-bench",
        base_url="http://bench/v1",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    with client.chat.completions.stream(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Write a lot."}]
    ) as stream:
        for _event in stream:
            pass
        result = _sdk_result(stream.get_final_completion())
    client.close()
    return result


async def sdk_async(chunks: list[bytes]) -> tuple[str, list[str]]:
    import httpx2
    import openai

    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body())

    client = openai.AsyncOpenAI(
        api_key="sk-bench",
        base_url="http://bench/v1",
        max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)),
    )
    async with client.chat.completions.stream(
        model="gpt-4o-mini", messages=[{"role": "user", "content": "Write a lot."}]
    ) as stream:
        async for _event in stream:
            pass
        result = _sdk_result(await stream.get_final_completion())
    await client.close()
    return result


# ---------------------------------------------------------------- first-byte latency


async def latency_mock(chunks: list[bytes], runs: int) -> list[float]:
    first = [chunks[0] + chunks[1], *chunks[2:40], b"data: [DONE]\n\n"]  # role + first token
    samples = []
    for _ in range(runs):
        marks: dict[str, float] = {}
        async with _async_client(first, marks) as client:
            provider = OpenAIChatProvider("http://bench/v1", client=client)
            async for event in provider.stream(REQUEST):
                if isinstance(event, TextDelta):
                    samples.append(time.perf_counter() - marks["first_byte"])
                    break
    return samples


async def latency_loopback(chunks: list[bytes], runs: int) -> list[float]:
    samples = []
    with FakeOpenAIServer() as server:
        provider = OpenAIChatProvider(server.base_url, retry=RetryPolicy.disabled())
        for _ in range(runs):
            scripted = ScriptedResponse(chunks=[chunks[0], *chunks[1:40], b"data: [DONE]\n\n"])
            server.enqueue(scripted)
            async for event in provider.stream(REQUEST):
                if isinstance(event, TextDelta):
                    assert scripted.first_byte_at is not None
                    samples.append(time.perf_counter() - scripted.first_byte_at)
                    break
        await provider.aclose()
    return samples


# ---------------------------------------------------------------- driver


def timed(fn: Any, *args: Any, repeat: int = 1) -> tuple[float, Any]:
    best = float("inf")
    result = None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def line(label: str, value: str, target: str, ok: bool | None) -> None:
    verdict = "" if ok is None else ("PASS" if ok else "MISS")
    print(f"  {label:<58} {value:>14}   target {target:<10} {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, default=5.0, help="size of the recorded stream")
    parser.add_argument("--latency-runs", type=int, default=300)
    args = parser.parse_args()

    chunks, text, arguments = make_recording(int(args.mb * 1_000_000))
    total = sum(len(c) for c in chunks)
    mb = total / 1e6
    print(f"Recorded stream: {mb:.2f} MB in {len(chunks)} SSE events "
          f"(text {len(text):,} chars, {len(arguments)} tool calls "
          f"with {sum(map(len, arguments)):,} argument chars)")  # fmt: skip

    t_core, core = timed(ours_core, chunks, repeat=3)
    t_ours, ours = timed(lambda c: asyncio.run(ours_assemble(c)), chunks, repeat=3)
    assert core == ours == (text, arguments), "our assembly is wrong"
    t_sdk_sync, sdk_a = timed(sdk_sync, chunks)
    t_sdk_async, sdk_b = timed(lambda c: asyncio.run(sdk_async(c)), chunks)
    assert sdk_a == sdk_b == (text, arguments), "SDK assembly differs"
    t_sdk = min(t_sdk_sync, t_sdk_async)
    ratio = t_sdk / t_ours

    lat_mock = asyncio.run(latency_mock(chunks, args.latency_runs))
    lat_loop = asyncio.run(latency_loopback(chunks, max(50, args.latency_runs // 3)))

    def ms(values: list[float], q: float) -> float:
        return statistics.quantiles(values, n=100)[int(q) - 1] * 1000 if q < 100 else 0.0

    print("\nThroughput (best of runs, same bytes, same chunking):")
    line("(a) ours: httpx MockTransport -> events -> final message", f"{mb / t_ours:.1f} MB/s",
         "", None)  # fmt: skip
    line("    ours, decoder + parser only (no HTTP stack)", f"{mb / t_core:.1f} MB/s", "", None)
    line("(b) openai SDK stream + get_final_completion, sync", f"{mb / t_sdk_sync:.2f} MB/s",
         "", None)  # fmt: skip
    line("    openai SDK stream + get_final_completion, async", f"{mb / t_sdk_async:.2f} MB/s",
         "", None)  # fmt: skip
    line("(c) ratio ours / SDK (vs the faster SDK client)", f"{ratio:.1f}x", ">= 10x",
         ratio >= 10)  # fmt: skip
    print(f"\nFirst body byte -> first TextDelta ({len(lat_mock)} / {len(lat_loop)} runs):")
    med_mock = statistics.median(lat_mock) * 1000
    med_loop = statistics.median(lat_loop) * 1000
    line("(d) MockTransport, median", f"{med_mock:.3f} ms", "< 2 ms", med_mock < 2)
    line("    MockTransport, p95", f"{ms(lat_mock, 95):.3f} ms", "< 2 ms", ms(lat_mock, 95) < 2)
    line("    loopback TCP fake server, median", f"{med_loop:.3f} ms", "< 2 ms", med_loop < 2)
    line("    loopback TCP fake server, p95", f"{ms(lat_loop, 95):.3f} ms", "", None)
    ok = ratio >= 10 and med_mock < 2
    print(f"\nOverall: {'PASS' if ok else 'MISS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
