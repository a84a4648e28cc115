"""The SQL catalogue (sql/queries, read by hindsight.data.queries): every name the code uses exists, none is unused,
each has a description."""

import inspect
import re
from pathlib import Path

import pytest

from hindsight.data import columns, db, queries
from hindsight.recall.request import Filters, Hints

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
    "execute_built",
    "plan_ahead",
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


# ---- statements with many parameters take them from one named row -------------------------


def _split(text: str) -> list[str]:
    """Comma-separated parts at the top level (not inside parentheses or quotes)."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        elif not quoted and depth == 0 and ch == ",":
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _parenthesised(text: str, at: int) -> str:
    """The text inside the parentheses opening at text[at]."""
    depth = 0
    for i in range(at, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[at + 1 : i]
    raise ValueError("unbalanced parentheses")


def _parameter_columns(sql: str) -> dict[int, str]:
    """$n -> the column it fills (INSERT ... VALUES) or sets or matches (UPDATE)."""
    found: dict[int, str] = {}

    def note(column: str, expr: str) -> None:
        for n in re.findall(r"\$(\d+)", expr):
            assert found.setdefault(int(n), column) == column, f"${n} is used for two columns"

    insert = re.match(r"\s*INSERT INTO \w+\s*\(", sql)
    if insert:
        columns = _split(_parenthesised(sql, insert.end() - 1))
        values_at = sql.index("(", re.search(r"\bVALUES\b", sql).end())
        values = _split(_parenthesised(sql, values_at))
        assert len(columns) == len(values), "columns and values differ in number"
        for column, expr in zip(columns, values):
            note(column, expr)
    else:
        update = re.match(r"\s*UPDATE \w+\s+SET\s+(.*?)\s+WHERE\s+(.*?)(?:\s+RETURNING\b.*)?$", sql, re.DOTALL)
        assert update, "neither an INSERT nor an UPDATE"
        for assignment in _split(update.group(1)):
            column, expr = assignment.split("=", 1)
            note(column.strip(), expr)
        for condition in re.split(r"\s+AND\s+", update.group(2)):
            column, expr = condition.split("=", 1)
            note(column.strip(), expr)
    return found


# A field that is not a column's name: the column whose clause it drives.
FIELD_FOR = {("update_memory", "reseal"): "sealed"}


@pytest.mark.parametrize("statement", sorted(columns.STATEMENTS))
def test_the_row_of_a_statement_names_its_columns_in_order(statement):
    row = columns.STATEMENTS[statement]
    by_number = _parameter_columns(queries.get(statement))
    assert sorted(by_number) == list(range(1, len(by_number) + 1)), "parameters are not $1..$n"
    expected = [by_number[n] for n in range(1, len(by_number) + 1)]
    fields = [FIELD_FOR.get((statement, f), f) for f in row._fields]
    assert fields == expected


def test_every_statement_with_many_parameters_has_a_row():
    """Past this many parameters a positional wall is easy to get wrong: the INSERTs and
    UPDATEs take a named row (recall's statements take request.Filters and Hints)."""
    for name, sql in queries.QUERIES.items():
        numbers = {int(n) for n in re.findall(r"\$(\d+)", sql)}
        if len(numbers) > 8 and re.match(r"\s*(INSERT|UPDATE)\b", sql):
            assert name in columns.STATEMENTS, f"{name} takes {len(numbers)} parameters positionally"


def test_the_column_check_notices_a_swap():
    sql = "INSERT INTO t (a, b, c) VALUES ($1, COALESCE($3, now()), to_tsvector('english', $2))"
    assert _parameter_columns(sql) == {1: "a", 3: "b", 2: "c"}
    sql = "UPDATE t SET x = COALESCE($3, x), y = CASE WHEN $4 THEN $5 ELSE y END WHERE agent_id = $1 AND id = $2"
    assert _parameter_columns(sql) == {1: "agent_id", 2: "id", 3: "x", 4: "y", 5: "y"}


# Where each parameter of recall's shared rows shows in its statement ({n}: its number).
RECALL_USES = {
    "agent_id": r"agent_id = \${n}\b",
    "include_shared": r"\(?\${n} AND shared\b",
    "as_of": r"created_at <= \${n}\b",
    "memory_type": r"memory_type = \${n}\b",
    "tags": r"tags @> \${n}\b",
    "metadata": r"metadata @> \${n}\b",
    "start": r"created_at >= \${n}\b",
    "end": r"created_at < \${n}\b",
    "min_decay": r">= \${n}::real",
    "project": r"project IS NOT DISTINCT FROM nullif\(\${n}\b",
    "window_start": r"created_at >= \${n}\b",
    "window_end": r"created_at < \${n}\b",
    "tools": r"unnest\(\${n}::text\[\]\) AS q\(tool\)",
    "session_id": r"session_id = \${n}\b",
    "task_type": r"'task_type' = \${n}\b",
    "window_by_index": r"AND \${n}::boolean AND agent_id = \$1",
}


@pytest.mark.parametrize(
    "row, statement, first",
    [(Filters, "candidate_vector", 1), (Hints, "recall_vector_hinted", 17)],
)
def test_recall_rows_match_the_recall_statements(row, statement, first):
    sql = queries.get(statement)
    for offset, field in enumerate(row._fields):
        pattern = RECALL_USES[field].format(n=first + offset)
        assert re.search(pattern, sql), f"{row.__name__}.{field} is not ${first + offset} of {statement}"


@pytest.mark.parametrize("name", ["recall_vector", "recall_vector_hinted"])
def test_the_vector_statements_call_strong_what_recall_does(name):
    from hindsight.recall.search import STRONG_RANK

    assert f"rank <= {STRONG_RANK} AS strong" in queries.get(name)


def test_the_window_channel_orders_as_many_of_a_windows_latest_rows_as_recall_counts():
    from hindsight.rules.plans import WINDOW_LATEST

    hinted = queries.get("recall_vector_hinted")
    assert hinted.count(f"LIMIT {WINDOW_LATEST})") == 2 and hinted.count(f"LIMIT {WINDOW_LATEST}\n") == 1
