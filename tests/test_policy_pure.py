"""Pure modules: input checks, text helpers, the SQL catalogue. No database."""

import re
import uuid
from pathlib import Path

import pytest

from hindsight.data import queries
from hindsight.errors import InvalidInput
from hindsight.rules import validate as v
from hindsight.rules.text import content_hash, estimate_tokens, keyword_text

REPO = Path(__file__).resolve().parent.parent


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


def test_keyword_text_segments_chinese_and_keeps_latin():
    out = keyword_text("我喜欢用polars处理数据")
    words = out.split()
    assert "polars" in words
    assert "喜欢" in words and "数据" in words
    assert keyword_text("ERR_SSL_PROTOCOL_ERROR in pip").split() == [
        "ERR_SSL_PROTOCOL_ERROR",
        "in",
        "pip",
        "errsslprotocolerror",
    ]
    assert keyword_text("plain words") == "plain words"


def test_content_hash_folds_whitespace_only():
    assert content_hash("a  b\n") == content_hash("a b")
    assert content_hash("a b") != content_hash("A b")


def test_token_estimate_counts_cjk_per_character():
    assert estimate_tokens("") == 0
    assert estimate_tokens("数据库") == 3
    assert 2 <= estimate_tokens("hello world") <= 4


def test_every_query_name_used_in_code_exists():
    used = set()
    for path in (REPO / "hindsight").rglob("*.py"):
        used |= set(
            re.findall(
                r'(?:fetch|fetchrow|fetchval|execute|executemany|queries\.get|channel)\(\s*"(\w+)"', path.read_text()
            )
        )
    for path in (REPO / "sql" / "queries").glob("*.sql"):
        used |= set(re.findall(r"--@\s*(\w+)", path.read_text()))  # fragments
    assert used, "no query names found in the code"
    assert used <= set(queries.QUERIES), used - set(queries.QUERIES)
    unused = set(queries.QUERIES) - used
    assert not unused, f"queries defined but never used: {unused}"


def test_query_file_parser():
    parsed = queries.parse("-- name: a\n-- what a does\nSELECT 1;\n\n-- name: b\nSELECT 2\n")
    assert parsed == {"a": "SELECT 1", "b": "SELECT 2"}
    with pytest.raises(ValueError, match="twice"):
        queries.parse("-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;")


# ---- scoring helpers ---------------------------------------------------------------------
from hindsight.rules import scoring  # noqa: E402


def test_confidence_is_calibrated_to_the_embedder():
    assert scoring.confidence(0.75, ["vector"]) == 0
    assert scoring.confidence(0.95, ["vector"]) == 1
    assert 0 < scoring.confidence(0.84, ["vector"]) < scoring.confidence(0.84, ["vector", "keyword"]) <= 1


def test_settings_refuse_unknown_values():
    from hindsight.config import Settings
    from hindsight.errors import ConfigError

    assert Settings.from_env({}).agent_id == "default"
    assert (
        Settings.from_env({"HINDSIGHT_DATABASE_URL": "", "DATABASE_URL": "postgresql://x/y"}).database_url
        == "postgresql://x/y"
    )
    for env, name in (
        ({"HINDSIGHT_EMBEDDER": "bert"}, "HINDSIGHT_EMBEDDER"),
        ({"HINDSIGHT_LOG_LEVEL": "loud"}, "HINDSIGHT_LOG_LEVEL"),
        ({"HINDSIGHT_EMBED_THREADS": "0"}, "HINDSIGHT_EMBED_THREADS"),
        ({"HINDSIGHT_TIMEZONE": "Mars/Olympus"}, "HINDSIGHT_TIMEZONE"),
        ({"HINDSIGHT_DATABASE_URL": "sqlite:///x.db"}, "HINDSIGHT_DATABASE_URL"),
    ):
        with pytest.raises(ConfigError, match=name):
            Settings.from_env(env)
