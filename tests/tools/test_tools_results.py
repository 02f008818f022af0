"""Result encoding and the size cap."""

from __future__ import annotations

import json

from desktop.tools.results import capped, error_content, success_content


def test_small_results_are_untouched() -> None:
    text = success_content({"a": [1, 2], "b": "é"})
    assert text == '{"status":"success","result":{"a":[1,2],"b":"é"}}'
    assert error_content({"code": "x", "message": "m"}) == (
        '{"status":"error","error":{"code":"x","message":"m"}}'
    )


def test_long_strings_are_cut_evenly_and_stay_valid_json() -> None:
    payload = {"status": "success", "result": {"a": "a" * 50_000, "b": "b" * 50_000, "c": "c"}}
    text = capped(payload, 20_000)
    assert len(text) <= 20_000
    data = json.loads(text)
    assert data["truncated"] is True
    assert data["result"]["c"] == "c"
    a, b = data["result"]["a"], data["result"]["b"]
    assert a.startswith("aaaa") and b.startswith("bbbb")
    assert abs(len(a) - len(b)) < 10
    assert len(a) > 5_000  # uses most of the budget


def test_long_lists_are_shortened() -> None:
    payload = {"status": "success", "result": {"items": [{"n": i} for i in range(10_000)]}}
    text = capped(payload, 5_000)
    assert len(text) <= 5_000
    items = json.loads(text)["result"]["items"]
    assert items[0] == {"n": 0}
    assert items[-1].endswith("more items truncated]")
    dropped = int(items[-1].split("[")[1].split()[0])
    assert dropped + len(items) - 1 == 10_000


def test_escaping_heavy_strings() -> None:
    payload = {"status": "success", "result": '"\n' * 100_000}
    assert len(capped(payload, 10_000)) <= 10_000
