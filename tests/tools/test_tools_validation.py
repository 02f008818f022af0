"""Argument parsing, nested-JSON repair and structured validation errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.tools.validation import InvalidArguments, build_validator, validate_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "start_line": {"type": "integer"}},
                "required": ["path"],
                "additionalProperties": False,
            },
        },
        "note": {"type": "string"},
    },
    "required": ["files"],
    "additionalProperties": False,
}
VALIDATOR = build_validator(SCHEMA)
OPTIONAL = build_validator({"type": "object", "properties": {"x": {"type": "integer"}}})


def check(raw: str, validator: Any = VALIDATOR) -> dict[str, Any]:
    return validate_arguments(raw, validator, tool_name="read_file")


def invalid(raw: str, validator: Any = VALIDATOR) -> InvalidArguments:
    with pytest.raises(InvalidArguments) as info:
        check(raw, validator)
    assert info.value.code == "invalid_arguments"
    return info.value


def test_valid_arguments_pass_through() -> None:
    args = {"files": [{"path": "a.py", "start_line": 3}]}
    assert check(json.dumps(args)) == args


@pytest.mark.parametrize("raw", ["", "   ", "\n"])
def test_empty_arguments_mean_empty_object(raw: str) -> None:
    assert check(raw, OPTIONAL) == {}


def test_json_string_holding_an_object_is_unwrapped() -> None:
    args = {"files": [{"path": "a.py"}]}
    assert check(json.dumps(json.dumps(args))) == args
    assert check(json.dumps(json.dumps(json.dumps(args)))) == args


def test_field_holding_json_text_is_repaired() -> None:
    raw = json.dumps({"files": json.dumps([{"path": "a.py"}])})
    assert check(raw) == {"files": [{"path": "a.py"}]}


def test_nested_field_holding_json_text_is_repaired() -> None:
    raw = json.dumps({"files": json.dumps([json.dumps({"path": "a.py"})])})
    assert check(raw) == {"files": [{"path": "a.py"}]}


def test_string_fields_that_look_like_json_are_left_alone() -> None:
    raw = json.dumps({"files": json.dumps([{"path": "a.py"}]), "note": '{"keep": "me"}'})
    assert check(raw) == {"files": [{"path": "a.py"}], "note": '{"keep": "me"}'}


def test_valid_json_text_in_string_field_is_not_touched() -> None:
    raw = json.dumps({"files": [{"path": "[1, 2]"}]})
    assert check(raw) == {"files": [{"path": "[1, 2]"}]}


def test_not_json_is_reported() -> None:
    err = invalid('{"files": [')
    assert "not valid JSON" in str(err)
    assert err.received == '{"files": ['


@pytest.mark.parametrize(
    ("raw", "kind"), [("[1, 2]", "an array"), ("42", "a number"), ('"hello"', "a string")]
)
def test_non_object_is_reported(raw: str, kind: str) -> None:
    err = invalid(raw)
    assert kind in str(err)


def test_schema_errors_have_details_with_paths() -> None:
    err = invalid(json.dumps({"files": [{"start_line": "x"}], "extra": 1}))
    paths = {d["path"]: d["message"] for d in err.details}
    assert paths["/files/0/path"] == "'path' is a required property"
    assert "'x' is not of type 'integer'" in paths["/files/0/start_line"]
    assert "'extra' was unexpected" in paths[""]
    assert err.received == {"files": [{"start_line": "x"}], "extra": 1}
    assert "read_file" in str(err)
    assert err.extra["details"] == err.details


def test_failed_repair_reports_remaining_problems_with_a_note() -> None:
    err = invalid(json.dumps({"files": json.dumps([{"pth": "a.py"}])}))
    assert {"path": "/files/0/path", "message": "'path' is a required property"} in err.details
    assert "/files" in err.extra["note"]
    # what was received is reported as sent, not as repaired
    assert err.received == {"files": json.dumps([{"pth": "a.py"}])}


def test_received_is_truncated() -> None:
    raw = json.dumps({"files": "x" * 5000})
    err = invalid(raw)
    assert isinstance(err.received, str)
    assert len(err.received) < 1200
    assert "truncated" in err.received
    assert all(len(d["message"]) <= 301 for d in err.details)


def test_bad_schema_is_rejected() -> None:
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        build_validator({"type": "object", "properties": {"x": {"type": "nonsense"}}})


def test_a_validator_is_made_once_per_schema_and_keeps_its_own_copy() -> None:
    """Tools are made again each time the tool list is: a schema seen before gets the
    validator made for it (not checked against the metaschema again), and changing the
    caller's schema afterwards changes nothing of it."""
    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}},
                              "required": ["n"]}
    first = build_validator(schema)
    assert build_validator(json.loads(json.dumps(schema))) is first
    schema["properties"]["n"]["type"] = "string"
    assert check_errors(first, {"n": "text"}) == ["'text' is not of type 'integer'"]
    assert build_validator(schema) is not first  # (a different schema now)
    assert check_errors(build_validator(schema), {"n": "text"}) == []


def test_a_bad_schema_is_refused_each_time() -> None:
    from jsonschema.exceptions import SchemaError

    for _ in range(2):
        with pytest.raises(SchemaError):
            build_validator({"type": "object", "properties": {"n": {"type": 5}}})


def check_errors(validator: Any, value: dict[str, Any]) -> list[str]:
    return [error.message for error in validator.iter_errors(value)]
