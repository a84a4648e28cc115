"""The SQL catalogue (sql/queries, read by hindsight.data.queries): every name the code uses exists, none is unused,
each has a description."""

import inspect
import re
from pathlib import Path

import pytest

from hindsight.data import db, queries

REPO = Path(__file__).resolve().parents[2]

# The calls that take a statement's name as their first argument.
NAMED_CALLS = (
    "fetch",
    "fetchrow",
    "fetchval",
    "execute",
    "executemany",
    "execute_count",
    "execute_sized",
    "queries.get",
    "channel",
)
USE = re.compile(r"(?:%s)\(\s*\"(\w+)\"" % "|".join(re.escape(c) for c in NAMED_CALLS))


def test_every_query_name_used_in_code_exists():
    used = set()
    for path in (REPO / "hindsight").rglob("*.py"):
        used |= set(USE.findall(path.read_text()))
    for path in (REPO / "sql" / "queries").glob("*.sql"):
        used |= set(re.findall(r"--@\s*(\w+)", path.read_text()))  # fragments
    assert used, "no query names found in the code"
    assert used <= set(queries.QUERIES), used - set(queries.QUERIES)
    unused = set(queries.QUERIES) - used
    assert not unused, f"queries defined but never used: {unused}"


def test_every_method_taking_a_query_name_is_searched_for():
    """A new helper on Database or Session that takes a statement name must be in NAMED_CALLS,
    or the names passed to it would go unseen above."""
    for cls in (db.Database, db.Session, db.Tx):
        for name, method in inspect.getmembers(cls, inspect.isfunction):
            params = list(inspect.signature(method).parameters)
            if params[1:2] == ["name"]:
                assert name in NAMED_CALLS, f"{cls.__name__}.{name} takes a query name"


def test_every_query_says_what_it_does():
    for path in (REPO / "sql" / "queries").glob("*.sql"):
        for name, first in re.findall(r"^--\s*name:\s*(\w+)\s*\n(.*)$", path.read_text(), re.MULTILINE):
            assert re.match(r"--\s*\S", first), f"{path.name}: {name} has no description under its name"


def test_query_file_parser():
    parsed = queries.parse("-- name: a\n-- what a does\nSELECT 1;\n\n-- name: b\nSELECT 2\n")
    assert parsed == {"a": "SELECT 1", "b": "SELECT 2"}
    with pytest.raises(ValueError, match="twice"):
        queries.parse("-- name: a\nSELECT 1;\n-- name: a\nSELECT 2;")
