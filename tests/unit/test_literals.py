"""hindsight.data.literals: a statement's arguments written into its text, as PostgreSQL reads
them back (the database side: tests/db/test_plan_ahead.py)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from hindsight.data import literals, queries
from hindsight.data.literals import Unwritable, inline, literal


def test_each_parameter_but_the_kept_one_becomes_a_typed_literal_and_the_kept_one_is_1():
    sql = "SELECT $1 AS a, $3 AS c, $2 AS b WHERE $1 IS NOT NULL"
    assert inline(sql, ["text", "vector", "integer"], ["x", None, 7], keep=2) == (
        "SELECT 'x'::text AS a, '7'::integer AS c, $1 AS b WHERE 'x'::text IS NOT NULL"
    )


def test_a_parameter_number_is_read_whole():
    types = ["integer"] * 12
    assert inline("SELECT $1, $12", types, list(range(1, 13)), keep=12) == "SELECT '1'::integer, $1"


def test_quotes_backslashes_and_comment_marks_inside_a_value_stay_inside_its_literal():
    hostile = "it's -- not a comment\n'); DROP TABLE memories; -- \\' */ 中文"
    written = literal(hostile, "text")
    assert written == "'" + hostile.replace("'", "''") + "'::text"
    assert written[1:-7].replace("''", "").count("'") == 0  # every quote inside is doubled


def test_comments_are_dropped_so_a_value_with_a_line_break_cannot_end_one():
    sql = "SELECT $2 -- the agent $1\n, 1"
    assert inline(sql, ["text", "vector"], ["a\nDROP TABLE memories", None], keep=2) == "SELECT $1 \n, 1"


def test_quoted_strings_and_names_in_the_text_are_left_as_they_are():
    sql = """SELECT '$1 -- kept', "odd $1 name", 'it''s', $1"""
    assert inline(sql, ["text", "vector"], [None, None], keep=2) == (
        """SELECT '$1 -- kept', "odd $1 name", 'it''s', NULL::text"""
    )


def test_values_of_each_kind():
    at = datetime(2026, 12, 4, 9, 30, tzinfo=timezone(timedelta(hours=8)))
    key = uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert literal(None, "text[]") == "NULL::text[]"
    assert literal(True, "boolean") == "true::boolean"
    assert literal(at, "timestamp with time zone") == "'2026-12-04T09:30:00+08:00'::timestamp with time zone"
    assert literal([key], "uuid[]") == "ARRAY['12345678-1234-5678-1234-567812345678'::uuid]::uuid[]"
    assert literal([], "boolean[]") == "'{}'::boolean[]"
    assert literal([True, None], "boolean[]") == "ARRAY[true::boolean, NULL::boolean]::boolean[]"
    assert literal({"k": "it's 中文"}, "jsonb") == """'{"k": "it''s 中文"}'::jsonb"""
    assert literal(-3, "integer") == "'-3'::integer"
    assert literal(float("nan"), "double precision") == "'NaN'::double precision"
    assert literal(float("-inf"), "real") == "'-Infinity'::real"


def test_a_real_is_written_as_the_single_precision_value_the_driver_would_send():
    assert literal(0.1, "real") == "'0.10000000149011612'::real"
    assert literal(0.1, "double precision") == "'0.1'::double precision"


@pytest.mark.parametrize(
    "value, typ",
    [
        (datetime(2026, 1, 1), "timestamp with time zone"),  # no zone: the driver would pick one
        ("a\x00b", "text"),
        ("\ud800", "text"),  # a lone surrogate is no UTF-8
        (b"bytes", "bytea"),
        ("not a list", "text[]"),
        ([["nested"]], "text[]"),
        (object(), "text"),
    ],
)
def test_what_it_does_not_write_it_refuses(value, typ):
    with pytest.raises(Unwritable):
        literal(value, typ)


@pytest.mark.parametrize(
    "sql", ["SELECT E'\\n', $1", "SELECT $$x$$, $1", "SELECT $tag$x$tag$, $1", "SELECT /* c */ $1", "SELECT 'open, $1"]
)
def test_text_it_cannot_read_safely_is_refused(sql):
    with pytest.raises(Unwritable):
        inline(sql, ["vector"], [None], keep=1)


def test_a_parameter_without_an_argument_is_refused():
    with pytest.raises(Unwritable):
        inline("SELECT $1, $3", ["text", "vector"], ["a", None], keep=2)


def test_recalls_statements_after_the_embedding_can_be_written():
    """The statements recall plans ahead read no string form this module refuses."""
    for name in ("recall_vector", "recall_vector_hinted"):
        code, slots = literals._compiled(queries.get(name))
        assert 12 in slots and len(code) == len(slots) + 1
