"""A statement planned before one of its arguments is known, then run with it: recall's one
statement after the embedding is planned while the query is being embedded, so that what
follows the embedding is the statement's execution alone.

PostgreSQL plans a prepared statement when it runs it (a custom plan, for the values given:
hindsight.data.db sets plan_cache_mode = force_custom_plan, since a generic plan of recall's
statements does not know which filters are off and skips the vector index). Here every
argument but the late one is written into the text (hindsight.data.literals), so a generic
plan of that text is the custom plan; it is made on a connection held for the purpose, by
EXPLAIN EXECUTE with the late argument unknown (NULL: a generic plan does not read it), and
kept by that prepared statement; the connection runs it under force_generic_plan when the
value comes, so it is not planned again. The pool's RESET ALL gives the connection back
with the pool's settings.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import Any

import asyncpg

from . import literals, queries

_TYPES: dict[str, tuple[str, ...]] = {}  # statement name -> its parameters' types, as PostgreSQL names them


class Planned:
    """A statement planned and waiting for its last argument, on a connection of its own."""

    def __init__(self, stack: contextlib.AsyncExitStack, statement: asyncpg.prepared_stmt.PreparedStatement):
        self._stack, self._statement = stack, statement

    async def fetch(self, value: Any) -> list[asyncpg.Record]:
        """Run it with the late argument; the connection goes back to the pool."""
        try:
            rows = await self._statement.fetch(value)
        except BaseException:
            await self._stack.__aexit__(*sys.exc_info())  # the pool's context translates it, or
            raise  # it stands as it is
        await self._stack.aclose()
        return rows

    async def abandon(self) -> None:
        """Give the connection back without running it (the caller failed or was cancelled)."""
        await self._stack.aclose()


async def plan(
    connection: contextlib.AbstractAsyncContextManager[asyncpg.Connection], name: str, args: Sequence[Any], late: int
) -> Planned | None:
    """The named statement planned with `args` (args[late - 1] a placeholder, passed later to
    Planned.fetch), or None when an argument cannot be written as a literal: the caller then
    runs the statement as usual, with parameters."""
    stack = contextlib.AsyncExitStack()
    conn = await stack.enter_async_context(connection)  # a pooled one (Database.plan_ahead)
    try:
        if conn.get_settings().standard_conforming_strings != "on":
            raise literals.Unwritable("standard_conforming_strings is off")
        types = _TYPES.get(name) or await _types(conn, name)
        text = literals.inline(queries.get(name), types, args, late)
        statement = await conn.prepare(text)
        await conn.execute(f'SET plan_cache_mode = force_generic_plan; EXPLAIN EXECUTE "{statement.get_name()}"(NULL)')
    except literals.Unwritable:
        await stack.aclose()
        return None
    except BaseException:
        await stack.__aexit__(*sys.exc_info())
        raise
    return Planned(stack, statement)


async def _types(conn: asyncpg.Connection, name: str) -> tuple[str, ...]:
    params = (await conn.prepare(queries.get(name))).get_parameters()
    named = await conn.fetch(queries.get("type_names"), [t.oid for t in params])
    _TYPES[name] = tuple(r["name"] for r in named)
    return _TYPES[name]
