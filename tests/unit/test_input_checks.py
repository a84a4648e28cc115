"""Input checks (hindsight.rules.validate): every refusal names the field and what is allowed."""

import uuid

import pytest

from hindsight.errors import InvalidInput
from hindsight.rules import validate as v


@pytest.mark.parametrize(
    "value, problem",
    [
        (None, "required"),
        ("", "empty"),
        ("   \n", "empty"),
        ("a\x00b", "NUL"),
        (42, "string"),
        ("x" * (32 * 1024 + 1), "at most 32768 bytes"),
    ],
)
def test_content_rejections_name_the_field(value, problem):
    with pytest.raises(InvalidInput) as err:
        v.content(value)
    assert err.value.field == "content"
    assert problem in str(err.value)


def test_content_limit_counts_utf8_bytes():
    assert v.content("记" * 10_000)  # 30,000 bytes
    with pytest.raises(InvalidInput, match="bytes"):
        v.content("记" * 11_000)  # 33,000 bytes


@pytest.mark.parametrize("bad", [0, 6, -1, "3", 2.5, True])
def test_importance_is_a_whole_number_from_1_to_5(bad):
    with pytest.raises(InvalidInput, match="importance"):
        v.importance(bad)


def test_memory_type_lists_what_is_allowed():
    with pytest.raises(InvalidInput, match="working, episodic, semantic, procedural"):
        v.memory_type("long-term")
    assert v.memory_type(None, required=False) is None


def test_memory_id_must_be_a_uuid():
    mid = uuid.uuid4()
    assert v.memory_id(str(mid)) == mid
    with pytest.raises(InvalidInput, match="memory_id.*UUID"):
        v.memory_id("42")


@pytest.mark.parametrize(
    "bad, problem",
    [
        ([1, 2], "JSON object"),
        ("{}", "JSON object"),
        ({"a": "x\x00"}, "NUL"),
        ({"a": float("nan")}, "NaN"),
        ({"a": "x" * 20_000}, "bytes"),
        ({"a": {1, 2}}, "only JSON"),
    ],
)
def test_metadata_must_be_a_small_json_object(bad, problem):
    with pytest.raises(InvalidInput) as err:
        v.metadata(bad)
    assert err.value.field == "metadata" and problem in str(err.value)


def test_tags_checked_and_repeats_dropped():
    assert v.tags(["a", "b", "a"]) == ["a", "b"]
    for bad in ("a", [""], ["x" * 65], [3], ["t"] * 33):
        with pytest.raises(InvalidInput, match="tags"):
            v.tags(bad)


@pytest.mark.parametrize("bad", ["", "two words", "x" * 129, "tab\there", None, 7])
def test_agent_id_shape(bad):
    with pytest.raises(InvalidInput, match="agent_id"):
        v.agent_id(bad)
    assert v.agent_id("支持-agent_1@team") == "支持-agent_1@team"
