"""Synthetic chat content for the chat-view benchmarks and screenshots (no randomness
from outside: a seed gives the same text every run)."""

from __future__ import annotations

import random
import time

from PySide6.QtCore import Qt, QTimer

from desktop.core.messages import (
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Usage,
)

HEARTBEAT_MS = 4


class Heartbeat:
    """A 4 ms timer; its lateness is how long the event loop was blocked."""

    def __init__(self) -> None:
        self.lateness: list[float] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(HEARTBEAT_MS)
        self.timer.timeout.connect(self._beat)

    def start(self) -> None:
        self._last = time.perf_counter()
        self.lateness.clear()
        self.timer.start()

    def _beat(self) -> None:
        now = time.perf_counter()
        self.lateness.append(max(0.0, (now - self._last) * 1000 - HEARTBEAT_MS))
        self._last = now

    def stop(self) -> None:
        self.timer.stop()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


WORDS = (
    "the", "model", "streams", "tokens", "into", "a", "view", "that", "must", "stay",
    "smooth", "while", "it", "renders", "markdown", "incrementally", "and",
    "virtualizes", "long", "history", "so", "cost", "grows", "with", "what", "changed",
    "not", "with", "what", "is", "on", "screen", "latency", "budget", "frame", "event",
    "loop", "layout", "paint", "widget", "document", "parser", "block", "tail", "commit",
)

PY = '''def fibonacci(n: int) -> list[int]:
    """The first n Fibonacci numbers."""
    out = [0, 1]
    while len(out) < n:
        out.append(out[-1] + out[-2])
    return out[:n]


class Cache(dict[str, int]):
    def __missing__(self, key: str) -> int:
        value = len(key) * 31 % 97
        self[key] = value
        return value
'''
JS = '''export async function fetchAll(urls) {
  const results = await Promise.all(urls.map(async (u) => {
    const response = await fetch(u, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status} for ${u}`);
    return response.json();
  }));
  return results.filter(Boolean);
}
'''
RS = '''fn main() {
    let words = vec!["alpha", "beta", "gamma"];
    let total: usize = words.iter().map(|w| w.len()).sum();
    println!("{} words, {} letters", words.len(), total);
}
'''
SNIPPETS = [("python", PY), ("javascript", JS), ("rust", RS), ("bash",
            "for f in *.log; do\n  gzip -9 \"$f\" && echo \"packed $f\"\ndone\n")]


def prose(rng: random.Random, words: int) -> str:
    out = []
    for i in range(words):
        word = rng.choice(WORDS)
        if i % 17 == 5:
            word = f"**{word}**"
        elif i % 23 == 7:
            word = f"`{word}()`"
        elif i % 41 == 13:
            word = f"[{word}](https://example.com/{word})"
        out.append(word)
    text = " ".join(out)
    return text[0].upper() + text[1:] + "."


def table(rng: random.Random, rows: int) -> str:
    lines = ["| Name | Value | Notes |", "|:-----|------:|-------|"]
    for r in range(rows):
        lines.append(f"| item {r} | {rng.randint(1, 9999)} | {rng.choice(WORDS)} "
                     f"{rng.choice(WORDS)} |")
    return "\n".join(lines)


def long_answer(target_chars: int = 80_000, seed: int = 7) -> str:
    """A long markdown answer: headings, prose, code (20+ blocks), tables, lists."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    section = 0
    while size < target_chars:
        section += 1
        kind = section % 4
        if kind == 0:
            extra = table(rng, rng.randint(3, 8))
        elif kind == 1:
            extra = "\n".join(f"- {prose(rng, rng.randint(5, 15))}" for _ in range(4))
        elif kind == 2:
            extra = "\n".join(f"{i}. {prose(rng, rng.randint(5, 12))}" for i in range(1, 4))
        else:
            extra = "> " + prose(rng, 30)
        lang, code = SNIPPETS[(section + seed) % len(SNIPPETS)]
        for part in (f"## {section}. {rng.choice(WORDS).title()} and {rng.choice(WORDS)}",
                     prose(rng, rng.randint(40, 120)), f"```{lang}\n{code}```", extra,
                     prose(rng, rng.randint(30, 80))):
            parts.append(part)
            size += len(part) + 2
            if size >= target_chars:
                break
    return "\n\n".join(parts) + "\n"


def chunks(text: str, seed: int = 3) -> list[str]:
    """Split like a model's stream: ~4 characters a token on average."""
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(text):
        n = rng.choice((1, 2, 3, 3, 4, 4, 4, 5, 5, 6, 7))
        out.append(text[i:i + n])
        i += n
    return out


def history(messages: int = 2000, chars: int = 2_000_000, seed: int = 11) -> list[Message]:
    """A long stored session: alternating user/assistant, about ``chars`` in total."""
    rng = random.Random(seed)
    per_answer = int(chars / (messages // 2) * 0.8)  # answers overshoot by ~20 %
    out: list[Message] = []
    start = time.time() - messages * 60
    for i in range(messages // 2):
        out.append(Message(role="user", parts=[TextPart(text=prose(rng, 20))],
                           created_at=start + i * 120))
        out.append(Message(role="assistant", model="bench-model",
                           parts=[TextPart(text=long_answer(per_answer, seed=i))],
                           created_at=start + i * 120 + 30,
                           usage=Usage(input_tokens=1200 + i, output_tokens=300)))
    return out


SHOWCASE = r"""Here is a summary of the **options**, with code, a table and some math.

### Complexity

The naive re-render costs $O(n^2)$ over a stream of $n$ tokens, while the incremental
one costs $O(n)$. For a geometric series,
\(\sum_{k=0}^{\infty} r^k = \frac{1}{1-r}\) when $|r| < 1$.

$$
\int_{-\infty}^{\infty} e^{-x^2}\,dx = \sqrt{\pi}
$$

| Approach | CPU per update | Smooth at 20k tokens |
|:---------|---------------:|:--------------------:|
| Full re-render | 65 ms | no |
| Incremental | 0.4 ms | yes |

```python
def render(blocks: list[str], tail: str) -> str:
    # finished blocks are rendered once; only the tail changes
    return "".join(blocks) + tail
```

- [x] Stream the tail only
- [ ] Virtualize history

> Raw HTML such as <b>this</b> is shown as text. See [the docs](https://example.com).
"""


def showcase_session() -> list[Message]:
    now = time.time()
    call = ToolCallPart(id="call_1", name="read_file", arguments='{"path": "notes.md"}')
    return [
        Message(role="user", parts=[TextPart(text="Compare the two rendering approaches "
                                                  "and show the math.")], created_at=now - 90),
        Message(role="assistant", model="gpt-4.1", created_at=now - 80,
                parts=[ReasoningPart(text="The user wants a comparison; read the notes.",
                                     duration_s=4.2), call],
                usage=Usage(input_tokens=812, output_tokens=40)),
        Message(role="tool", parts=[ToolResultPart(tool_call_id="call_1", name="read_file",
                                                   content='{"result": "ok"}')],
                created_at=now - 79),
        Message(role="assistant", model="gpt-4.1", created_at=now - 75,
                parts=[TextPart(text=SHOWCASE)],
                usage=Usage(input_tokens=1024, output_tokens=388)),
    ]
