"""The services opened and closed (hindsight.services.compose builds them):

opened(...)   the CLI, per command (procrastinate's `execute_command` shape), and the scheduler
serving(...)  the MCP server, for its lifespan: 8 connections, the embedded database
              healed, recall's access counted in the background, the embedder loaded at
              start, and then the heap settled (settle_heap)
opening(...)  serving(...) opened in the background: the stdio server answers its client
              at once and a call waits for the services (Opening.ready, bounded)
showing(...)  the UI, for its process: the embedder loaded at start
prepare(...)  the database a face will open: the embedded one started, the schema migrated
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import logging
import time
from typing import AsyncIterator, Callable

from ..config import Settings
from ..data import lexicon
from ..data import pg_embedded as embedded
from ..data.db import Database, Heal
from ..data.replicas import Reads
from ..embedders import base as embed
from ..embedders.base import Embedder
from ..errors import HindsightError, StillStarting
from ..recall.access import AccessRecorder
from .compose import Services

log = logging.getLogger("hindsight.server")


@contextlib.asynccontextmanager
async def opened(
    settings: Settings,
    url: str,
    *,
    pool_size: int = 4,
    heal: Heal | None = None,
    load_embedder: bool = False,
    count_access: bool = False,
    warm_recall: bool = False,
    embedder: Embedder | None = None,
) -> AsyncIterator[Services]:
    """The services over a pool of `pool_size`. `load_embedder`: before the pool opens, so
    an embedder that cannot load fails first. `count_access`: recall's hits are counted by
    a background task, flushed once more at the end. `warm_recall`: recall's lexicon is
    built beside the embedder's loading and before the services are handed over (about two
    seconds), so that no call waits for it; then the heap is settled (settle_heap)."""
    words = asyncio.ensure_future(asyncio.to_thread(lexicon.load)) if warm_recall else None  # beside the embedder
    if embedder is None and load_embedder:
        embedder = await asyncio.to_thread(embed.create, settings)  # in a thread: the loop keeps serving
    db = await Database.open(url, max_size=pool_size, heal=heal)
    try:
        reads = await _replicas(settings, db, pool_size)
    except BaseException:
        await db.close()
        raise
    access = AccessRecorder(db) if count_access else None
    bookkeeping = asyncio.create_task(access.run()) if access else None
    services = Services(settings, db, url, on_access=access.record if access else None, reads=reads)
    if embedder is not None:
        services.embedder = embedder
    try:
        if words is not None:  # before the first call: a recall must not wait seconds for it
            await words
            await services.recall.warm()
            settle_heap()
        yield services
    finally:
        if bookkeeping is not None and access is not None:
            bookkeeping.cancel()
            with contextlib.suppress(Exception):
                await access.flush()
        for close in services._closers:
            close()
        if reads is not None:
            await reads.close()
        await db.close()


def settle_heap() -> None:
    """What a server holds for its lifetime (the lexicon, the embedder, the modules) moved out
    of the garbage collector's sight, once it is all loaded: Python's full collection walks
    every container it tracks, and the lexicon's alone made one take 15-20 ms in the middle
    of a call, every 60-70 recalls (benchmarks/README.md). What is left to it is what calls
    make and drop. No collection first: at the server's start it found nothing to free and
    took 23 ms of the first call's wait. A frozen object that later becomes garbage is freed
    by reference counting only, never as part of a cycle (a pool connection the healer
    replaces: once per restart of the database)."""
    gc.freeze()


async def _replicas(settings: Settings, db: Database, pool_size: int) -> Reads | None:
    """The read replicas of HINDSIGHT_READ_DATABASE_URL, as many connections each as the primary."""
    if not settings.read_database_urls:
        return None
    return await Reads.open(db, settings.read_database_urls, max_size=pool_size)


def serving(
    settings: Settings, url: str, embedder: Embedder | None = None
) -> contextlib.AbstractAsyncContextManager[Services]:
    """The MCP server's services: recall runs its channels side by side (8 connections), the
    embedded database is healed if it stops under us, recall's hits are counted."""
    heal = embedded.healer(settings.home) if settings.database_url is None else None
    return opened(
        settings,
        url,
        pool_size=8,
        heal=heal,
        load_embedder=True,
        count_access=True,
        warm_recall=True,
        embedder=embedder,
    )


START_SECONDS = 60.0  # how long a call waits for the services still opening before it is told so


class Opening:
    """The services of a face while they open in the background, and then once open.
    `ready()` hands them over, waiting up to START_SECONDS for them; a failure to open (the
    database unreachable, the embedder missing) is raised to every caller."""

    def __init__(self) -> None:
        self._settled = asyncio.Event()
        self.services: Services | None = None
        self.error: BaseException | None = None
        self.stage = "starting"  # what the opening is doing, for the message of a call that waits too long

    def _open(self, services: Services) -> None:
        self.services = services
        self._settled.set()

    def _fail(self, error: BaseException) -> None:
        self.error = error
        self._settled.set()

    async def settled(self) -> None:
        await self._settled.wait()

    async def ready(self) -> Services:
        if not self._settled.is_set():
            try:
                await asyncio.wait_for(self._settled.wait(), START_SECONDS)
            except TimeoutError:
                raise StillStarting(
                    f"hindsight is still starting ({self.stage}) and not ready after "
                    f"{START_SECONDS:.0f} s; try again in a moment "
                    "(the server's log on stderr says what it waits for)"
                ) from None
        if self.error is not None:
            raise (
                self.error
                if isinstance(self.error, HindsightError)
                else StillStarting("hindsight could not start; the server's log on stderr says why")
            )
        assert self.services is not None
        return self.services


def start_early(settings: Settings) -> "concurrent.futures.Future[str]":
    """Start the database (the embedded PostgreSQL, or the external URL as it is) in a thread
    now, before the server's own imports: PostgreSQL starts in a subprocess, on the other
    core, while this one imports the MCP SDK. Its checks and migrations come later, in
    `opening` (they import alembic and would slow the SDK's import down)."""
    import threading
    from concurrent.futures import Future

    done: Future[str] = Future()

    def run() -> None:
        from ..data import bootstrap

        try:
            done.set_result(bootstrap.resolve_url(settings))
        except BaseException as exc:  # handed to whoever awaits it
            done.set_exception(exc)

    threading.Thread(target=run, name="hindsight-database", daemon=True).start()
    return done


@contextlib.asynccontextmanager
async def opening(
    settings: Settings,
    url: str | None = None,
    *,
    wait: bool = False,
    started_db: "concurrent.futures.Future[str] | None" = None,
) -> AsyncIterator[Opening]:
    """`serving` in the background: the database chosen, started and migrated (when `url`
    is None), the pool, the embedder and recall's lexicon, while the face already answers.
    `started_db`: the database's start already under way (start_early). `wait`: yield only
    once they are open (the HTTP server's start fails as it did). On leaving, an opening
    still under way is waited for (its steps run in threads that cannot be interrupted
    safely) and then closed; a failure to open is raised there too."""
    handle = Opening()
    close = asyncio.Event()

    async def run() -> None:
        # The lexicon and the embedder load while the database starts and migrates: that is
        # a subprocess and SQL, so the two cores are both at work (about 1.5 s sooner here).
        started = time.monotonic()
        words = asyncio.ensure_future(asyncio.to_thread(lexicon.load))
        loading = asyncio.ensure_future(asyncio.to_thread(embed.create, settings))
        for future in (words, loading):  # a failure to load is reported by whoever awaits it, once
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
        try:
            if url is None:
                from ..data import bootstrap

                handle.stage = "starting the database"
                begun = await asyncio.wrap_future(started_db or start_early(settings))
                handle.stage = "checking and migrating the database"
                target = await asyncio.to_thread(bootstrap.make_ready, settings, begun, check_role=True)
                log.info("database ready in %.1f s", time.monotonic() - started)
            else:
                target = url
            handle.stage = "loading the embedder and recall's lexicon"
            embedder = await loading
            await words
            handle.stage = "opening the pool"
            async with serving(settings, target, embedder) as services:
                log.info("ready in %.1f s", time.monotonic() - started)
                handle._open(services)
                await close.wait()
        except Exception as exc:
            if not handle._settled.is_set():
                handle._fail(exc)
            else:
                raise

    task = asyncio.create_task(run(), name="hindsight-opening")
    try:
        if wait:
            await handle.settled()
            await handle.ready()
        yield handle
    finally:
        close.set()
        await asyncio.shield(task)
        if handle.error is not None:
            raise handle.error


def showing(settings: Settings, url: str) -> contextlib.AbstractAsyncContextManager[Services]:
    """The UI's services: 4 connections, the embedder loaded at start, no access counting."""
    return opened(settings, url, load_embedder=True)


def prepare(
    settings: Settings,
    *,
    check_embedder: bool = True,
    check_role: bool = False,
    progress: Callable[[str], None] | None = None,
) -> str:
    """The database URL a face opens: the embedded server started (or the external URL as
    given), the schema checked and migrated (hindsight.data.bootstrap); `progress` hears of
    the slow steps."""
    from ..data import bootstrap

    return bootstrap.prepare(settings, check_embedder=check_embedder, check_role=check_role, progress=progress)
