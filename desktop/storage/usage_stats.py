"""What each model was used for: answers, tokens, reported cost and speed, from the
stored messages (every chat, every branch, the trash included: it was all spent).

An *answer* is an assistant message that replies to the user (its parent is a user
message, or it has none); the later rounds of a tool-using answer count as
*responses* only, but their tokens count. Costs are what providers reported; tokens
that came without a reported cost are summed apart (``unpriced_*``) so the caller can
price them with the current price table (:mod:`desktop.chat.answer_figures`). The
median speed is over the responses that have one (``provider_data.generation``).
Qt-free.
"""

from __future__ import annotations

import statistics

import msgspec

from desktop.storage.database import Database

# Each usage is read once (MATERIALIZED: SQLite would otherwise extract it per use).
_TOTALS = """
WITH a AS MATERIALIZED (
    SELECT m.model AS model,
           (p.role IS NULL OR p.role = 'user') AS answer,
           COALESCE(json_extract(m.usage, '$.input_tokens'), 0) AS input,
           COALESCE(json_extract(m.usage, '$.output_tokens'), 0) AS output,
           COALESCE(json_extract(m.usage, '$.cached_tokens'), 0) AS cached,
           json_extract(m.usage, '$.cost') AS cost
    FROM messages m LEFT JOIN messages p ON p.id = m.parent_id
    WHERE m.role = 'assistant' AND m.model IS NOT NULL AND m.model != ''
      AND m.created_at >= :since
)
SELECT model, SUM(answer) AS answers, COUNT(*) AS responses,
       SUM(input) AS input_tokens, SUM(output) AS output_tokens,
       SUM(cached) AS cached_tokens, SUM(COALESCE(cost, 0.0)) AS reported_cost,
       SUM(CASE WHEN cost IS NULL THEN input ELSE 0 END) AS unpriced_input,
       SUM(CASE WHEN cost IS NULL THEN cached ELSE 0 END) AS unpriced_cached,
       SUM(CASE WHEN cost IS NULL THEN output ELSE 0 END) AS unpriced_output
FROM a GROUP BY model
"""

_RATES = """
SELECT model, json_extract(provider_data, '$.generation.tokens_per_s') AS rate
FROM messages
WHERE role = 'assistant' AND model IS NOT NULL AND created_at >= :since
  AND json_extract(provider_data, '$.generation.tokens_per_s') IS NOT NULL
"""


class ModelUsage(msgspec.Struct, frozen=True):
    """What one model was used for: answers, tokens, cost and speed."""

    model: str
    answers: int
    responses: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    reported_cost: float  # US dollars the providers reported
    unpriced_input: int  # tokens of responses without a reported cost
    unpriced_cached: int
    unpriced_output: int
    median_tokens_per_s: float | None


def usage_by_model(db: Database, since: float = 0.0) -> list[ModelUsage]:
    """One row per model used since ``since`` (a Unix time; 0: ever), most tokens first."""
    rates: dict[str, list[float]] = {}
    for row in db.query(_RATES, {"since": since}):
        rates.setdefault(str(row["model"]), []).append(float(row["rate"]))
    rows = [ModelUsage(
        model=str(row["model"]), answers=int(row["answers"]), responses=int(row["responses"]),
        input_tokens=int(row["input_tokens"]), output_tokens=int(row["output_tokens"]),
        cached_tokens=int(row["cached_tokens"]), reported_cost=float(row["reported_cost"]),
        unpriced_input=int(row["unpriced_input"]), unpriced_cached=int(row["unpriced_cached"]),
        unpriced_output=int(row["unpriced_output"]),
        median_tokens_per_s=statistics.median(rates[str(row["model"])])
        if rates.get(str(row["model"])) else None)
        for row in db.query(_TOTALS, {"since": since})]
    return sorted(rows, key=lambda r: (-(r.input_tokens + r.output_tokens), r.model))
