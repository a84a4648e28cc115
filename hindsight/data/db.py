"""The one connection pool of a process, and the boundary where asyncpg's errors become
hindsight's. Only the migrations (data/migrate.py) import asyncpg besides."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import uuid
from typing import Any, AsyncIterator, Awaitable, Callable, Protocol

import asyncpg
from pgvector.asyncpg import register_vector

from ..errors import DatabaseError, DatabaseUnavailable
from . import ahead, queries

log = logging.getLogger(__name__)

# Sent in the startup packet of every connection, so they are the session's defaults: the
# pool's RESET ALL on release keeps them (a SET after connecting lasted one acquire).
#   plan_cache_mode  prepared statements must not fall back to a generic plan that skips
#                    the vector index
#   hnsw.*           filtered HNSW scans keep going until enough rows pass the WHERE clause
#                    (pgvector >= 0.8; a placeholder before), over enough of the graph for
#                    recall's 50 vector candidates
SERVER_SETTINGS = {
    "application_name": "hindsight",
    "plan_cache_mode": "force_custom_plan",
    "jit": "off",
    "hnsw.iterative_scan": "relaxed_order",
    "hnsw.ef_search": "64",
    "standard_conforming_strings": "on",  # '...' reads a backslash as itself (hindsight.data.literals)
}
REPLICA_SETTINGS = SERVER_SETTINGS | {"application_name": "hindsight-read"}  # told apart in pg_stat_activity
REPLICA_CONNECT_SECONDS = 5  # a replica that does not answer by then is skipped, not waited for
REPLICA_STATEMENT_SECONDS = 15  # a read that takes longer on a replica is asked of the primary
SCHEMA_LOCK = 7_400_113_001  # advisory lock key: one process at a time changes the schema
MIN_SERVER_VERSION = 150000
MIN_PGVECTOR = (0, 5)


def rows_affected(status: str) -> int:
    """How many rows a command touched, from its status tag ("UPDATE 3", "INSERT 0 1")."""
    return int(status.split()[-1])


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)


def _json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


async def _init_connection(conn: asyncpg.Connection) -> None:
    """Codecs for every pooled connection: pgvector's vector, and jsonb as Python objects."""
    await register_vector(conn)
    await conn.set_type_codec("jsonb", encoder=_json_dumps, decoder=json.loads, schema="pg_catalog")


# The server or the connection went away (restart, crash, network): worth healing and retrying.
UNAVAILABLE = (
    OSError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InternalClientError,
)


@contextlib.asynccontextmanager
async def translated(what: str) -> AsyncIterator[None]:
    """Turn driver and connection errors into DatabaseError. The message is for a client: it
    names neither classes nor SQL; the detail goes to the log under a reference."""
    try:
        yield
    except UNAVAILABLE as exc:
        log.warning("%s: the database is unreachable (%s: %s)", what, exc.__class__.__name__, exc)
        raise DatabaseUnavailable("the database is unreachable; try again in a few seconds") from exc
    except asyncpg.InsufficientPrivilegeError as exc:
        log.warning("%s refused by the database: %s", what, exc)
        raise DatabaseError(
            "the database refused this (the database role may not act for this agent; see docs/sql.md on agent roles)"
        ) from exc
    except asyncpg.PostgresError as exc:
        ref = uuid.uuid4().hex[:8]
        log.error("%s failed (ref %s): %s: %s", what, ref, exc.__class__.__name__, exc)
        raise DatabaseError(f"the database could not complete this (ref {ref} in the server's log)") from exc


class ReplicaFailed(Exception):
    """A read replica could not answer (hindsight.data.replicas sends the read elsewhere; it
    never reaches a client). `unavailable`: the replica or the connection is gone, as opposed
    to an error the server answered with (a recovery conflict, a statement it refused)."""

    def __init__(self, reason: str, unavailable: bool):
        super().__init__(reason)
        self.reason, self.unavailable = reason, unavailable


@contextlib.asynccontextmanager
async def replica_errors(what: str) -> AsyncIterator[None]:
    """A replica's failures as ReplicaFailed, not logged here: the router logs a replica's
    trouble once, and the client sees the primary's answer instead."""
    try:
        yield
    except UNAVAILABLE as exc:  # refused, gone, shutting down, timed out
        raise ReplicaFailed(f"{exc.__class__.__name__}: {exc}", unavailable=True) from exc
    except asyncpg.PostgresError as exc:
        raise ReplicaFailed(f"{what}: {exc.__class__.__name__}: {exc}", unavailable=False) from exc
    except Exception as exc:  # a URL it cannot use, say: skip the replica
        raise ReplicaFailed(f"{exc.__class__.__name__}: {exc}", unavailable=True) from exc


async def connect_once(url: str, timeout: float = 10) -> asyncpg.Connection:
    """A single connection (no pool, no codec), for checks and migrations' helpers."""
    try:
        return await asyncpg.connect(url, timeout=timeout, server_settings=SERVER_SETTINGS)
    except asyncpg.InvalidPasswordError as exc:
        raise DatabaseError(f"cannot log in to {redact(url)}: {exc}") from exc
    except asyncpg.InvalidCatalogNameError as exc:
        raise DatabaseError(f"database in {redact(url)} does not exist: {exc}") from exc
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
        raise DatabaseError(f"cannot connect to {redact(url)}: {exc.__class__.__name__}: {exc}") from exc


async def ensure_pgvector(url: str) -> str:
    """Check server version and pgvector; create the extension if allowed. Returns its version."""
    conn = await connect_once(url)
    session = Session(conn)
    try:
        async with translated("checking the server"):
            version = await session.fetchval("server_version_num")
            if int(version) < MIN_SERVER_VERSION:
                raise DatabaseError(f"{redact(url)} runs PostgreSQL {version}; hindsight needs 15 or newer")
            installed = await session.fetchval("pgvector_version")
        if installed is None:
            try:
                # CREATE EXTENSION IF NOT EXISTS still fails when two processes race to it
                async with session.transaction() as tx:
                    await tx.execute("schema_lock", SCHEMA_LOCK)
                    await tx.execute("create_pgvector")
            except asyncpg.PostgresError as exc:
                raise DatabaseError(
                    f"pgvector is not installed in {redact(url)} and could not be created "
                    f"({exc.__class__.__name__}: {exc}). Install pgvector >= 0.5 on the server and "
                    "run CREATE EXTENSION vector as a superuser, or point HINDSIGHT_DATABASE_URL "
                    "at a server that has it"
                ) from exc
            installed = await session.fetchval("pgvector_version")
        parts = tuple(int(p) for p in re.findall(r"\d+", installed)[:2])
        if parts < MIN_PGVECTOR:
            raise DatabaseError(
                f"pgvector {installed} in {redact(url)} is too old; hindsight needs >= 0.5 "
                "(ALTER EXTENSION vector UPDATE)"
            )
        return installed
    finally:
        await conn.close()


Heal = Callable[[], Awaitable[None]]


class Reader(Protocol):
    """What the read path needs: a Database, or hindsight.data.replicas.Reads (a replica
    first, the primary when none will do)."""

    async def fetch(self, name: str, *args: Any) -> list[asyncpg.Record]: ...

    async def fetchrow(self, name: str, *args: Any) -> asyncpg.Record | None: ...

    async def fetchval(self, name: str, *args: Any) -> Any: ...


class Database:
    """Owns the pool. Query helpers take a statement name from sql/queries.

    `heal` (the embedded database's restart, when that is what we use) runs when a
    connection cannot be had; the call then tries once more. A statement that fails midway
    is not repeated (it may have taken effect): its call fails, and the next one finds the
    database back."""

    def __init__(self, pool: asyncpg.Pool, heal: Heal | None = None, errors: Callable = translated):
        self.pool = pool
        self._heal = heal
        self._healing: asyncio.Task | None = None
        self._releasing: set[asyncio.Task] = set()  # connections on their way back to the pool
        self._errors = errors
        # After a write commits, on its connection (hindsight.data.replicas notes the WAL
        # position there, for read-your-writes); None without read replicas.
        self.committed: Callable[[Session], Awaitable[None]] | None = None

    @classmethod
    async def open(cls, url: str, *, min_size: int = 1, max_size: int = 4, heal: Heal | None = None) -> "Database":
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=min_size,
                max_size=max_size,
                init=_init_connection,
                server_settings=SERVER_SETTINGS,
                command_timeout=60,
            )
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as exc:
            raise DatabaseError(f"cannot connect to {redact(url)}: {exc}") from exc
        return cls(pool, heal)

    @classmethod
    async def replica(cls, url: str, *, max_size: int = 4) -> "Database":
        """A pool on a read replica: opened without connecting (a replica that is down must
        not stop a start), quick to give up, its failures raised as ReplicaFailed."""
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=0,
                max_size=max_size,
                init=_init_connection,
                server_settings=REPLICA_SETTINGS,
                command_timeout=REPLICA_STATEMENT_SECONDS,
                timeout=REPLICA_CONNECT_SECONDS,
            )
        except Exception as exc:  # only a URL it cannot parse: nothing connects yet
            raise DatabaseError(f"cannot use the read replica {redact(url)}: {exc}") from exc
        return cls(pool, errors=replica_errors)

    async def close(self) -> None:
        await asyncio.gather(*self._releasing, return_exceptions=True)
        await self.pool.close()

    async def healed(self) -> None:
        """Run the heal hook once for all callers waiting on it."""
        if self._heal is None:
            return
        if self._healing is None or self._healing.done():
            self._healing = asyncio.ensure_future(self._heal())
        await asyncio.shield(self._healing)

    @contextlib.asynccontextmanager
    async def _connection(self, what: str) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection; errors translated; one heal-and-retry if none can be had."""
        async with self._errors(what):
            try:
                conn = await self.pool.acquire()
            except UNAVAILABLE:
                if self._heal is None:
                    raise
                await self.healed()
                conn = await self.pool.acquire()
            try:
                yield conn
            except BaseException as exc:
                try:
                    if isinstance(exc, UNAVAILABLE):
                        await self.pool.expire_connections()  # the others are as dead as this one
                        if self._heal is not None:  # the next call should find the database back
                            asyncio.ensure_future(self.healed())
                finally:
                    await self.pool.release(conn)  # given back before the error is raised
                raise
            self._release_soon(conn)

    async def plan_ahead(self, name: str, args: list[Any], late: int) -> ahead.Planned | None:
        """The statement planned now, to run with args[late - 1] later (hindsight.data.ahead)."""
        return await ahead.plan(self._connection(name), name, args, late)

    def _release_soon(self, conn: asyncpg.Connection) -> None:
        """Give a connection back without keeping its caller waiting: asyncpg resets it on
        release (advisory locks, cursors, settings: one more round trip, ~0.4 ms after a
        recall), and the caller has its answer already. close() waits for these."""
        task = asyncio.ensure_future(self.pool.release(conn))
        self._releasing.add(task)
        task.add_done_callback(self._released)

    def _released(self, task: asyncio.Task) -> None:
        self._releasing.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a connection could not be given back to the pool: %s", task.exception())

    # One statement on a pooled connection, named after it in errors.
    async def fetch(self, name: str, *args: Any) -> list[asyncpg.Record]:
        async with self.session(name) as session:
            return await session.fetch(name, *args)

    async def fetchrow(self, name: str, *args: Any) -> asyncpg.Record | None:
        async with self.session(name) as session:
            return await session.fetchrow(name, *args)

    async def fetchval(self, name: str, *args: Any) -> Any:
        async with self.session(name) as session:
            return await session.fetchval(name, *args)

    async def execute(self, name: str, *args: Any) -> str:
        async with self.session(name) as session:
            status = await session.execute(name, *args)
            if self.committed is not None:
                await self.committed(session)
            return status

    async def executemany(self, name: str, rows: list[tuple]) -> None:
        if rows:
            async with self.session(name) as session:
                await session.executemany(name, rows)
                if self.committed is not None:
                    await self.committed(session)

    async def execute_count(self, name: str, *args: Any) -> int:
        """Run a statement; how many rows it touched."""
        return rows_affected(await self.execute(name, *args))

    @contextlib.asynccontextmanager
    async def session(self, what: str) -> AsyncIterator["Session"]:
        """One connection held for a while (a session-level lock, a loop of batches), outside
        any transaction; Session.transaction starts one on it."""
        async with self._connection(what) as conn:
            yield Session(conn)

    @contextlib.asynccontextmanager
    async def transaction(self, what: str, call: str | None = None, reason: str | None = None) -> AsyncIterator["Tx"]:
        """One connection, one transaction; `call` and `reason` name it in memory_history."""
        async with self._connection(what) as conn:
            async with conn.transaction():
                if call is not None:
                    await conn.execute(queries.get("call_context"), call, reason)
                yield Tx(conn)
            if self.committed is not None:
                await self.committed(Session(conn))


class Session:
    """Named queries on one connection (Database.session; or a single connection of
    connect_once, for checks before a pool exists)."""

    def __init__(self, conn: asyncpg.Connection):
        self._conn = conn

    async def execute(self, name: str, *args: Any, timeout: float | None = None) -> str:
        return await self._conn.execute(queries.get(name), *args, timeout=timeout)

    async def execute_count(self, name: str, *args: Any) -> int:
        """Run a statement; how many rows it touched."""
        return rows_affected(await self.execute(name, *args))

    async def execute_sized(self, name: str, dimension: int) -> str:
        """A schema statement whose {dimension} (a vector column's) is filled with an integer."""
        return await self._conn.execute(queries.get(name).format(dimension=int(dimension)))

    async def execute_built(self, name: str, *args: Any, timeout: float | None = None) -> str:
        """Run the statement that the named query builds (a SELECT format(...) whose %I and %L
        let the server quote names and values): DDL, which takes no parameters."""
        built = await self._conn.fetchval(queries.get(name), *args)
        return await self._conn.execute(built, timeout=timeout)

    async def executemany(self, name: str, rows: list[tuple]) -> None:
        if rows:
            await self._conn.executemany(queries.get(name), rows)

    async def fetch(self, name: str, *args: Any) -> list[asyncpg.Record]:
        return await self._conn.fetch(queries.get(name), *args)

    async def fetchrow(self, name: str, *args: Any) -> asyncpg.Record | None:
        return await self._conn.fetchrow(queries.get(name), *args)

    async def fetchval(self, name: str, *args: Any) -> Any:
        return await self._conn.fetchval(queries.get(name), *args)

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator["Tx"]:
        async with self._conn.transaction():
            yield Tx(self._conn)


class Tx(Session):
    """Named queries inside a transaction (Database.transaction, Session.transaction)."""


async def settings_in_force(url: str) -> dict[str, str | None]:
    """The vector search settings as a pooled connection sees them after it was used and
    given back once (the pool resets a connection when it is released)."""
    db = await Database.open(url, min_size=1, max_size=1)
    try:
        await db.fetchrow("vector_settings")
        return dict(await db.fetchrow("vector_settings"))
    finally:
        await db.close()


def settings_expected() -> dict[str, str]:
    """What settings_in_force must read for recall to work as measured."""
    return {
        "iterative_scan": SERVER_SETTINGS["hnsw.iterative_scan"],
        "ef_search": SERVER_SETTINGS["hnsw.ef_search"],
        "plan_cache_mode": SERVER_SETTINGS["plan_cache_mode"],
    }
