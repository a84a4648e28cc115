"""Every SQL statement lives in sql/queries/*.sql under a `-- name: NAME` header.

    -- name: get_memory
    -- One memory by id, if the agent may see it.
    SELECT ...

They are read once at import; code says `queries.get("get_memory")`. A line
`--@ other_name` inside a query stands for the text of query `other_name` (a shared
fragment, such as the filters every recall channel applies).
"""

from __future__ import annotations

import re
from importlib import resources

_HEADER = re.compile(r"^--\s*name:\s*(\w+)\s*$", re.MULTILINE)
_INCLUDE = re.compile(r"^(\s*)--@\s*(\w+)\s*$", re.MULTILINE)


def parse(text: str) -> dict[str, str]:
    parts = _HEADER.split(text)
    found: dict[str, str] = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        sql = "\n".join(
            line
            for line in body.strip().splitlines()
            if not line.lstrip().startswith("--") or line.lstrip().startswith("--@")
        )
        if name in found:
            raise ValueError(f"query {name!r} is defined twice")
        found[name] = sql.strip().rstrip(";")
    return found


def catalogue(files: dict[str, str]) -> dict[str, str]:
    """Every statement of the files (file name -> text), its fragments expanded."""
    loaded: dict[str, str] = {}
    for file, text in files.items():
        for name, sql in parse(text).items():
            if name in loaded:
                raise ValueError(f"query {name!r} is defined twice ({file})")
            loaded[name] = sql
    return {name: _expand(sql, loaded) for name, sql in loaded.items()}


def _load() -> dict[str, str]:
    folder = resources.files("hindsight.sql") / "queries"
    entries = sorted((e for e in folder.iterdir() if e.name.endswith(".sql")), key=lambda e: e.name)
    return catalogue({e.name: e.read_text(encoding="utf-8") for e in entries})


def _expand(sql: str, known: dict[str, str], depth: int = 0) -> str:
    if depth > 5:
        raise ValueError("query includes nest too deeply")

    def one(m: re.Match) -> str:
        fragment = known[m.group(2)]
        return "\n".join(m.group(1) + line for line in _expand(fragment, known, depth + 1).splitlines())

    return _INCLUDE.sub(one, sql)


QUERIES = _load()


def get(name: str) -> str:
    return QUERIES[name]


def migration_sql(filename: str) -> str:
    return (resources.files("hindsight.sql") / "migrations" / filename).read_text(encoding="utf-8")
