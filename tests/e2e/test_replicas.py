"""Read replicas for real: a primary and a hot standby streaming from it, both started from the
PostgreSQL binaries the embedded database ships (initdb, a replication role and its pg_hba
line, pg_basebackup -R), on loopback TCP ports, run as the `pgserver` user like conftest's
tcp_postgres. `hindsight-server` runs over stdio with HINDSIGHT_DATABASE_URL=primary and
HINDSIGHT_READ_DATABASE_URL=standby: every memory it stores is found by the very next get,
list and recall; the standby answers the reads; killed mid-run, no call fails and the
server's stderr says so once. `pytest -s` shows the summary."""

from __future__ import annotations

import asyncio
import logging
import os
import pwd
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import asyncpg
import pytest
from conftest import PASSWORD, free_port, tcp_url
from mcp_client import mcp_client, server_env

from hindsight.data import migrate, replicas
from hindsight.data import pg_embedded as embedded
from hindsight.data.db import Database, ensure_pgvector
from hindsight.data.replicas import Reads

REPLICATOR = "replicator"
REPLICATOR_PASSWORD = "r3plica-pw"
DB = "hs"
ROUNDS_BEFORE = 20  # store, then get / list / retrieve it, before the standby dies
AFTER_KILL = replicas.RETRY_AFTER + 2  # and this long after, so that a retry fails too (quietly)


def _pg(tool: str, *args: str, env: dict | None = None) -> str:
    from pgserver._commands import POSTGRES_BIN_PATH

    done = subprocess.run(
        [str(POSTGRES_BIN_PATH / tool), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        **embedded._as_user("pgserver"),  # pgserver's own group, none of root's
    )
    assert done.returncode == 0, f"{tool} {' '.join(args)}: {done.stderr or done.stdout}"
    return done.stdout


@dataclass
class Pair:
    base: Path
    primary_port: int
    standby_port: int
    primary_url: str = field(init=False)
    standby_url: str = field(init=False)

    def __post_init__(self):
        self.primary_url = tcp_url(self.primary_port, db=DB)
        self.standby_url = tcp_url(self.standby_port, db=DB)

    def start(self, name: str, port: int) -> None:
        data = self.base / name
        _pg(
            "pg_ctl",
            "-D",
            str(data),
            "-w",
            "-l",
            str(self.base / f"{name}.log"),
            "-o",
            f"-h 127.0.0.1 -p {port} -k {data}",
            "start",
        )

    def running(self, name: str) -> bool:
        from pgserver._commands import POSTGRES_BIN_PATH

        status = subprocess.run(
            [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.base / name), "status"],
            capture_output=True,
            timeout=60,
            **embedded._as_user("pgserver"),
        )
        return status.returncode == 0

    def stop(self, name: str, mode: str = "fast") -> None:
        _pg("pg_ctl", "-D", str(self.base / name), "-m", mode, "-w", "stop")

    async def ensure_standby(self) -> None:
        """The standby running and streaming (a test before may have killed it)."""
        if not self.running("standby"):
            await anyio.to_thread.run_sync(self.start, "standby", self.standby_port)
        await _until(lambda: _standby_streams(self.standby_url), "the standby to stream from the primary")


async def _until(probe, what: str, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while True:
        found = await probe()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def _standby_streams(url: str) -> bool:
    try:
        conn = await asyncpg.connect(url, timeout=5)
    except (OSError, asyncpg.PostgresError):
        return False
    try:
        return await conn.fetchval(
            "SELECT pg_is_in_recovery() AND EXISTS (SELECT FROM pg_stat_wal_receiver WHERE status = 'streaming')"
        )
    finally:
        await conn.close()


async def _value(url: str, sql: str):
    conn = await asyncpg.connect(url, timeout=5)
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


@pytest.fixture(scope="module")
async def replication(pg_root, pg_url):
    """A primary with a replication role, migrated; a standby from pg_basebackup -R, streaming."""
    from pgserver.utils import ensure_prefix_permissions

    user = pwd.getpwnam("pgserver")
    base = pg_root / "replication"
    base.mkdir()
    ensure_prefix_permissions(base)
    os.chown(base, user.pw_uid, user.pw_gid)
    pwfile = base / "pw"
    pwfile.write_text(PASSWORD + "\n")
    os.chmod(pwfile, 0o644)
    primary = base / "primary"
    _pg("initdb", "-D", str(primary), "-U", "postgres", "--auth=scram-sha-256", f"--pwfile={pwfile}", "--encoding=UTF8")
    with open(primary / "postgresql.conf", "a") as conf:
        conf.write("wal_level = replica\nmax_wal_senders = 4\nhot_standby = on\n")
    with open(primary / "pg_hba.conf", "a") as hba:
        hba.write(f"host replication {REPLICATOR} 127.0.0.1/32 scram-sha-256\n")
    ports = [free_port()]
    while len(ports) < 2:
        ports += [p for p in [free_port()] if p != ports[0]]
    pair = Pair(base, *ports)
    pair.start("primary", pair.primary_port)
    try:
        admin = tcp_url(pair.primary_port)
        for sql in (
            f"CREATE ROLE {REPLICATOR} REPLICATION LOGIN PASSWORD '{REPLICATOR_PASSWORD}'",
            f"CREATE DATABASE {DB}",
        ):
            _pg("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", admin, "-c", sql)
        await ensure_pgvector(pair.primary_url)
        await anyio.to_thread.run_sync(migrate.upgrade, pair.primary_url)  # alembic runs its own loop
        env = dict(os.environ, PGPASSWORD=REPLICATOR_PASSWORD)
        _pg(
            "pg_basebackup",
            *("-D", str(base / "standby"), "-h", "127.0.0.1", "-p", str(pair.primary_port)),
            *("-U", REPLICATOR, "-R", "-X", "stream", "-c", "fast"),
            env=env,
        )
        await pair.ensure_standby()
        yield pair
    finally:
        for name in ("standby", "primary"):
            if (base / name).exists() and pair.running(name):
                pair.stop(name, "immediate" if name == "standby" else "fast")


class Lines(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


async def test_a_replica_down_or_not_a_standby_is_skipped_with_one_line(replication, monkeypatch):
    """In-process: three replicas, of which one has nothing listening and one is the primary
    itself. Every read is answered, by the standby; each bad one is named once in the log,
    however often it is retried."""
    await replication.ensure_standby()
    monkeypatch.setattr(replicas, "RETRY_AFTER", 0.2)
    monkeypatch.setattr(replicas, "CHECK_EVERY", 0.2)
    lines = Lines()
    logger = logging.getLogger(replicas.__name__)
    logger.addHandler(lines)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    primary = await Database.open(replication.primary_url)
    nowhere = tcp_url(free_port(), db=DB)
    reads = await Reads.open(primary, [nowhere, replication.primary_url, replication.standby_url])
    try:
        answered = []
        deadline = time.monotonic() + 1.5  # several retries of the two bad ones
        while time.monotonic() < deadline:
            answered.append((await reads.fetchrow("replica_state"))["in_recovery"])
            await asyncio.sleep(0.02)
    finally:
        await reads.close()
        await primary.close()
        logger.removeHandler(lines)
        logger.setLevel(old_level)
    skipped = [line for line in lines.lines if "skipped" in line]
    print(f"\n{len(answered)} reads, {sum(answered)} answered by the standby; log: {lines.lines}")
    assert sum(answered) >= len(answered) - 1, "the reads go to the standby once its first check passed"
    assert len(skipped) == 2, lines.lines
    assert any(nowhere.split("@")[1] in s for s in skipped), "the one with nothing listening, by its address"
    assert any("not a standby" in s for s in skipped)
    assert not any(PASSWORD in line for line in lines.lines)


async def test_a_read_the_standby_fails_mid_statement_is_answered_by_the_primary(replication):
    """In-process, made certain: a lock taken on the primary (and replayed by the standby)
    holds a read on the standby mid-statement; the standby is killed under it; the read is
    asked of the primary, waits there for the lock, and is answered once it goes."""
    await replication.ensure_standby()
    lines = Lines()
    logger = logging.getLogger(replicas.__name__)
    logger.addHandler(lines)
    primary = await Database.open(replication.primary_url)
    reads = await Reads.open(primary, [replication.standby_url])
    locker = await asyncpg.connect(replication.primary_url)
    read = None
    try:
        assert (await reads.fetchrow("replica_state"))["in_recovery"], "the standby answers"
        lock = locker.transaction()
        await lock.start()
        await locker.execute("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")
        await _until(lambda: _value(replication.standby_url, LOCK_REPLAYED), "the standby to replay the lock")
        read = asyncio.ensure_future(reads.fetchrow("get_memory", "nobody", uuid.uuid4()))
        await _until(
            lambda: _value(replication.standby_url, WAITING % "hindsight-read"), "the read to wait on the standby"
        )
        await anyio.to_thread.run_sync(replication.stop, "standby", "immediate")
        await _until(lambda: _value(replication.primary_url, WAITING % "hindsight"), "the read to wait on the primary")
        await lock.rollback()
        assert await asyncio.wait_for(read, 30) is None, "answered (no such memory), by the primary"
    finally:
        if read is not None and not read.done():
            read.cancel()
        await locker.close()
        await reads.close()
        await primary.close()
        logger.removeHandler(lines)
    skipped = [line for line in lines.lines if "skipped" in line]
    print(f"\nmid-statement: {skipped}")
    assert len(skipped) == 1, lines.lines


LOCK_REPLAYED = """SELECT EXISTS (SELECT FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                             WHERE c.relname = 'memories' AND l.mode = 'AccessExclusiveLock')"""
WAITING = """SELECT EXISTS (SELECT FROM pg_stat_activity
                            WHERE application_name = '%s' AND wait_event_type = 'Lock')"""


@dataclass
class Tally:
    calls: int = 0
    failed: list[str] = field(default_factory=list)
    checks: int = 0
    missed: list[str] = field(default_factory=list)

    async def call(self, c, tool: str, **arguments):
        self.calls += 1
        try:
            result = await c.session.call_tool(tool, arguments)
        except Exception as exc:  # the session itself failed
            self.failed.append(f"{tool}: {exc!r}")
            return None
        if result.is_error:
            self.failed.append(f"{tool}: {result.content[0].text}")
            return None
        return result.structured_content

    def check(self, ok: bool, what: str) -> None:
        self.checks += 1
        if not ok:
            self.missed.append(what)

    async def round(self, c, i: int) -> None:
        """Store one memory, then find it at once: get, list (newest first), retrieve."""
        content = f"Replica round {i}: the {COLOURS[i % len(COLOURS)]} deploy of service-{i} listens on port {4000 + i}"
        stored = await self.call(c, "store_memory", content=content, tags=["replica-test"])
        if stored is None:
            return
        mid = stored["id"]
        got = await self.call(c, "get_memory", memory_id=mid)
        self.check(got is not None and got["id"] == mid, f"get {i}")
        listed = await self.call(c, "list_memories", limit=3)
        self.check(listed is not None and mid in [m["id"] for m in listed["memories"]], f"list {i}")
        found = await self.call(c, "retrieve_memory", query=content, top_k=5)
        self.check(found is not None and mid in [m["id"] for m in found["memories"]], f"retrieve {i}")


COLOURS = ("amber", "teal", "crimson", "violet", "olive", "indigo", "coral")


async def _standby_reads(url: str) -> tuple[int, int]:
    """(transactions committed in the database, hindsight-read connections) on the standby."""
    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        commits = await conn.fetchval("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        readers = await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hindsight-read'")
        return commits, readers
    finally:
        await conn.close()


async def test_reads_go_to_the_standby_and_survive_its_death(replication, tmp_path):
    await replication.ensure_standby()
    errlog_path = tmp_path / "server.err"
    env = server_env(
        HINDSIGHT_DATABASE_URL=replication.primary_url,
        HINDSIGHT_READ_DATABASE_URL=replication.standby_url,
        HINDSIGHT_HOME=str(tmp_path / "unused-home"),
        HINDSIGHT_AGENT_ID="replica-test",
    )
    tally = Tally()
    with errlog_path.open("w") as errlog:
        async with mcp_client(env, errlog=errlog) as c:
            before, _ = await _standby_reads(replication.standby_url)
            for i in range(ROUNDS_BEFORE):
                await tally.round(c, i)
            reads_before = 3 * ROUNDS_BEFORE
            # the standby's statistics reach pg_stat_database within a second or so
            commits, readers = await _until(
                lambda: _served(replication.standby_url, before, reads_before), "the standby's counts", timeout=20
            )
            calls_before = tally.calls

            kill = asyncio.ensure_future(anyio.to_thread.run_sync(replication.stop, "standby", "immediate"))
            i = ROUNDS_BEFORE
            killed_at = None
            while killed_at is None or time.monotonic() - killed_at < AFTER_KILL:
                await tally.round(c, i)
                i += 1
                if killed_at is None and kill.done():
                    await kill
                    killed_at = time.monotonic()
            rounds_after = i - ROUNDS_BEFORE
    log = errlog_path.read_text()
    about = [line for line in log.splitlines() if "read replica" in line]
    summary = (
        f"replicas e2e: {tally.calls} calls, {len(tally.failed)} failed; "
        f"{tally.checks} read-your-writes checks (store, then get / list / retrieve at once), "
        f"{len(tally.missed)} missed; "
        f"before the kill the standby committed {commits - before} read transactions for {reads_before} reads "
        f"over {readers} hindsight-read connections; standby killed (pg_ctl stop -m immediate) after "
        f"{calls_before} calls; {tally.calls - calls_before} calls in {rounds_after} rounds during and after it; "
        f"log lines about the replica: {len(about)}: {about}"
    )
    print("\n" + summary)
    assert not tally.failed, summary + f"\nfailed: {tally.failed[:5]}"
    assert not tally.missed, summary + f"\nmissed: {tally.missed[:5]}"
    assert len(about) == 1 and "skipped" in about[0], summary
    assert "Traceback" not in log, log[-3000:]
    assert PASSWORD not in log


async def _served(url: str, before: int, reads: int):
    """The standby's counts once it has committed at least as many transactions as the server
    answered read calls (each call is one statement or more: a recall is three or four)."""
    commits, readers = await _standby_reads(url)
    return (commits, readers) if commits - before >= reads and readers >= 1 else None
