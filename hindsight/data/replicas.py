"""Reads on PostgreSQL streaming replicas, writes on the primary (docs/replicas.md).

`Reads` offers the read half of Database (fetch, fetchrow, fetchval). Per statement it picks
a replica that is up, not lagging, and has replayed this process's last write; else the
primary. hindsight/services.py hands it to what only reads (Recall; Memories.get, list and
history; the UI's pages); every write, the lookups inside a write's transaction, the access
bookkeeping and maintenance keep the primary's Database.

    read-your-writes  after a write commits, one statement on its connection reads the
                      primary's WAL insert position. A read that follows waits (at most
                      WAIT_FOR_WRITE, polling the replica's replay position) for a replica
                      to pass it, else asks the primary. A replica seen past it is not
                      asked again until the next write.
    health            each replica is checked in the background every CHECK_EVERY seconds:
                      a standby (in recovery), with a replay position and hindsight's
                      schema, not lagging over MAX_LAG. One that fails a check, or whose
                      connection fails, is skipped with one log line and tried again every
                      RETRY_AFTER seconds, quietly, until it passes (one line again).
    failures          a read a replica could not answer is asked of the primary: a client
                      never sees a replica's trouble.

The pure parts (verdict, Health) take the time as an argument.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import DatabaseError
from .db import Database, ReplicaFailed, Session, redact

log = logging.getLogger(__name__)

CHECK_EVERY = 5.0  # seconds between a healthy replica's checks
RETRY_AFTER = 5.0  # seconds before a skipped replica is tried again
MAX_LAG = 10.0  # a replica further behind than this is skipped
WAIT_FOR_WRITE = 1.0  # how long a read after a write waits for a replica to replay it
FIRST_POLL, LAST_POLL = 0.002, 0.05  # the pauses between replay-position polls (doubling)


def verdict(in_recovery: bool, replayed: int | None, has_schema: bool, lag: float) -> str | None:
    """Why a replica is not to be read from (a check's findings), or None when it will do."""
    if not in_recovery:
        return "it is not a standby (pg_is_in_recovery() is false: a primary, or promoted)"
    if replayed is None:
        return "it reports no replay position (pg_last_wal_replay_lsn() is NULL)"
    if not has_schema:
        return "it has no memories table (a replica of another database?)"
    if lag > MAX_LAG:
        return f"it is {lag:.0f} s behind the primary (the limit is {MAX_LAG:.0f} s)"
    return None


@dataclass
class Health:
    """One replica's state, moved by checks and failures. `up`: None until the first check;
    a skipped replica (False) stays skipped until a check begun after its last failure
    passes. The methods that change `up` say whether the change is worth a log line."""

    up: bool | None = None
    reason: str = ""  # why it is skipped
    failed_at: float = -math.inf
    checked_at: float = -math.inf
    replayed: int = 0  # the furthest replay position seen
    behind: tuple[float, int] | None = None  # (when, the primary's position then) not yet replayed
    gave_up: tuple[float, int] = (-math.inf, 0)  # a read stopped waiting: (when, for which position)

    def due(self, now: float) -> bool:
        """Whether a check is due."""
        if self.up is None:
            return True
        if self.up:
            return now - self.checked_at >= CHECK_EVERY
        return now - self.failed_at >= RETRY_AFTER

    def lag(self, read_at: float, now: float, primary: int | None, replayed: int) -> float:
        """Seconds the replica is known to be behind: since when the primary had written what
        it has still not replayed (`primary`: the primary's position, read at `read_at`). A
        lower bound, 0 when it has caught up; never a guess from replay timestamps, which an
        idle primary makes old."""
        if self.behind is not None and replayed >= self.behind[1]:
            self.behind = None
        if self.behind is None and primary is not None and replayed < primary:
            self.behind = (read_at, primary)
        return 0.0 if self.behind is None else max(0.0, now - self.behind[0])

    def saw(self, replayed: int) -> None:
        self.replayed = max(self.replayed, replayed)

    def passed(self, started: float, now: float) -> bool | None:
        """A check begun at `started` found the replica fine. Returns the state before (None:
        first check, False: it comes back), or True when nothing changed. A failure recorded
        after the check began stands."""
        if self.failed_at >= started:
            return True
        before, self.up, self.reason, self.checked_at = self.up, True, "", now
        return before

    def failed(self, now: float, reason: str) -> bool:
        """Skip the replica until RETRY_AFTER from now. True when this is news (it was not
        skipped already): the one log line."""
        news = self.up is not False
        self.up, self.reason, self.failed_at, self.checked_at = False, reason, now, now
        return news

    def worth_waiting(self, target: int, now: float) -> bool:
        """Whether a read should wait for the replica to replay `target`: not when a read gave
        up on that position less than WAIT_FOR_WRITE ago (the next read goes to the primary
        at once, not after another wait)."""
        when, position = self.gave_up
        return not (position >= target and now - when < WAIT_FOR_WRITE)


@dataclass(eq=False)
class Replica:
    url: str
    db: Database
    health: Health = field(default_factory=Health)
    checking: asyncio.Future | None = None

    @property
    def name(self) -> str:
        return redact(self.url)


class Reads:
    """Reads on replicas, the primary when none will do (see the module's docstring).
    Registers itself on the primary to learn where each write left the WAL."""

    def __init__(self, primary: Database, replicas: list[Replica], clock: Callable[[], float] = time.monotonic):
        self.primary, self.replicas, self._clock = primary, replicas, clock
        self._written = 0  # the primary's WAL position after this process's last write
        self._primary_until = -math.inf  # reads go to the primary until then
        self._turn = 0
        primary.committed = self._committed

    @classmethod
    async def open(cls, primary: Database, urls: tuple[str, ...] | list[str], *, max_size: int = 4) -> "Reads":
        """Pools on the replicas (no connection yet) and their first checks, begun."""
        reads = cls(primary, [Replica(url, await Database.replica(url, max_size=max_size)) for url in urls])
        reads._check_due(reads._clock())
        return reads

    async def close(self) -> None:
        self.primary.committed = None
        for replica in self.replicas:
            if replica.checking is not None:
                replica.checking.cancel()
        for replica in self.replicas:
            try:
                await asyncio.wait_for(replica.db.close(), timeout=5)
            except Exception:  # a replica that went away mid-close
                replica.db.pool.terminate()

    async def fetch(self, name: str, *args: Any) -> list:
        return await self._read("fetch", name, args)

    async def fetchrow(self, name: str, *args: Any) -> Any:
        return await self._read("fetchrow", name, args)

    async def fetchval(self, name: str, *args: Any) -> Any:
        return await self._read("fetchval", name, args)

    async def _read(self, method: str, name: str, args: tuple) -> Any:
        replica = await self._choose()
        if replica is not None:
            try:
                return await getattr(replica.db, method)(name, *args)
            except ReplicaFailed as exc:  # down, or failed mid-statement: the primary answers
                self._trouble(replica, exc)
        return await getattr(self.primary, method)(name, *args)

    async def _choose(self) -> Replica | None:
        """A replica for the next read (in turn among the usable ones), or None: the primary."""
        now = self._clock()
        self._check_due(now)
        first = [r.checking for r in self.replicas if r.health.up is None and r.checking and not r.checking.done()]
        if first:  # just opened: give the first checks a moment
            await asyncio.wait(first, timeout=WAIT_FOR_WRITE)
        usable = [r for r in self.replicas if r.health.up]
        if not usable or now < self._primary_until:
            return None
        self._turn = (self._turn + 1) % len(usable)
        usable = usable[self._turn :] + usable[: self._turn]
        target = self._written
        for replica in usable:
            if replica.health.replayed >= target:
                return replica
        replica = usable[0]
        if not replica.health.worth_waiting(target, now):
            return None
        try:
            return replica if await self._caught_up(replica, target) else None
        except ReplicaFailed as exc:
            self._trouble(replica, exc)
            return None

    async def _caught_up(self, replica: Replica, target: int) -> bool:
        """Poll the replica's replay position until it passes `target`, at most WAIT_FOR_WRITE."""
        deadline = self._clock() + WAIT_FOR_WRITE
        pause = FIRST_POLL
        while True:
            replayed = await replica.db.fetchval("replica_replay_lsn")
            if replayed is not None:
                replica.health.saw(replayed)
                if replayed >= target:
                    return True
            now = self._clock()
            if replayed is None or now >= deadline:  # None: promoted; the next check says so
                replica.health.gave_up = (now, target)
                return False
            await asyncio.sleep(min(pause, deadline - now))
            pause = min(pause * 2, LAST_POLL)

    async def _committed(self, session: Session) -> None:
        """After a write, on its connection: where the primary's WAL stands."""
        try:
            position = await session.fetchval("primary_wal_lsn")
        except Exception as exc:  # the write stands; where it ended is unknown
            self._primary_until = self._clock() + MAX_LAG
            log.warning(
                "the primary's WAL position after a write could not be read (%s: %s); reads go to the primary for %g s",
                exc.__class__.__name__,
                exc,
                MAX_LAG,
            )
            return
        self._written = max(self._written, position)

    def _check_due(self, now: float) -> None:
        for replica in self.replicas:
            if (replica.checking is None or replica.checking.done()) and replica.health.due(now):
                replica.checking = asyncio.ensure_future(self._check(replica))

    async def _check(self, replica: Replica) -> None:
        """Is the replica a standby with hindsight's schema, not too far behind the primary?"""
        started = self._clock()
        primary = None
        with contextlib.suppress(DatabaseError):  # the primary's trouble is reported by its own calls
            primary = await self.primary.fetchval("primary_wal_lsn")
        try:
            row = await replica.db.fetchrow("replica_state")
        except ReplicaFailed as exc:
            self._skip(replica, exc.reason)
            return
        now = self._clock()
        lag = replica.health.lag(started, now, primary, row["replayed"] or 0)
        reason = verdict(row["in_recovery"], row["replayed"], row["has_schema"], lag)
        if reason is not None:
            self._skip(replica, reason)
            return
        replica.health.saw(row["replayed"])
        before = replica.health.passed(started, now)
        if before is None:
            log.info("read replica %s in use", replica.name)
        elif before is False:
            log.warning("read replica %s is back: reads go to it again", replica.name)

    def _trouble(self, replica: Replica, exc: ReplicaFailed) -> None:
        if exc.unavailable:
            self._skip(replica, exc.reason)
        else:  # it answered with an error (a recovery conflict, say): this read only
            log.debug("read replica %s could not answer (%s); the primary did", replica.name, exc.reason)

    def _skip(self, replica: Replica, reason: str) -> None:
        if replica.health.failed(self._clock(), reason):
            others = "the primary" if len(self.replicas) == 1 else "the other replicas or the primary"
            log.warning(
                "read replica %s skipped: %s; reads go to %s, and it is tried again every %g s",
                replica.name,
                reason,
                others,
                RETRY_AFTER,
            )
