"""The SQL catalogue (sql/queries, read by hindsight.data.queries): every name the code uses exists, none is unused."""

import re
from pathlib import Path

import pytest

from hindsight.data import queries

REPO = Path(__file__).resolve().parents[2]


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
