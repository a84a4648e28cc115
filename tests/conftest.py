"""Shared fixtures: one embedded PostgreSQL for the session, a migrated template database
built once, and a fresh copy of it for every test that touches the database."""

from __future__ import annotations

import io
import os
import shutil
import sys
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import anyio
import asyncpg
import pytest

from hindsight.data import migrate
from hindsight.data import pg_embedded as embedded
from hindsight.data.bootstrap import check_recorded
from hindsight.data.db import Database
from hindsight.embedders.base import AsyncEmbedder
from hindsight.embedders.e5 import E5Small
from hindsight.recall.search import Recall
from hindsight.store.memories import Memories

os.environ.setdefault("OMP_NUM_THREADS", "1")
TEMPLATE = "hindsight_template"


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="session")
def pg_root():
    """A folder for PostgreSQL data dirs, outside pytest's tmp tree: PostgreSQL runs as the
    unprivileged `pgserver` user and needs to traverse the folders above its data dir, and
    pytest resets its own tmp root to mode 0700 whenever another session starts."""
    root = Path(tempfile.mkdtemp(prefix="hindsight-tests-"))
    yield root
    embedded.release()  # this session's embedded server stops before its files go
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_tmp(pg_root) -> Path:
    """A fresh folder under pg_root for one test's data dirs."""
    return Path(tempfile.mkdtemp(dir=pg_root))


@pytest.fixture(scope="session")
def pg_url(pg_root) -> str:
    """The embedded server, started the way the product starts it."""
    return embedded.start(pg_root / "home")


@pytest.fixture(scope="session")
def embedder() -> E5Small:
    return E5Small()


@pytest.fixture(scope="session")
async def template_url(pg_url, embedder) -> str:
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
        await admin.execute(f"CREATE DATABASE {TEMPLATE}")
    finally:
        await admin.close()
    url = with_database(pg_url, TEMPLATE)
    import anyio

    await anyio.to_thread.run_sync(migrate.upgrade, url)  # alembic runs its own event loop
    conn = await asyncpg.connect(url)
    try:
        await check_recorded(conn, embedder.name, embedder.dimension)
    finally:
        await conn.close()
    return url


async def _scratch_database(pg_url: str, prefix: str, template: str | None):
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(pg_url)
    try:
        await admin.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template}" if template else ""))
        yield with_database(pg_url, name)
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await admin.close()


@pytest.fixture
async def db_url(pg_url, template_url) -> str:
    """A fresh, migrated database for one test (a cheap copy of the template)."""
    async for url in _scratch_database(pg_url, "t", TEMPLATE):
        yield url


@pytest.fixture
async def empty_db_url(pg_url) -> str:
    """A database with nothing in it, not even the schema."""
    async for url in _scratch_database(pg_url, "e", None):
        yield url


@pytest.fixture
async def db(db_url) -> Database:
    database = await Database.open(db_url)
    yield database
    await database.close()


@pytest.fixture
def memories(db, embedder) -> Memories:
    return Memories(db, AsyncEmbedder(embedder))


@pytest.fixture
def recall(db, embedder) -> Recall:
    return Recall(db, AsyncEmbedder(embedder))


async def count_rows(db: Database) -> int:
    return await db.pool.fetchval("SELECT count(*) FROM memories")


REPO = Path(__file__).resolve().parent.parent


# ---- a second PostgreSQL over TCP with a password: a real "external" server --------------
PASSWORD = "s3cret-pw"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tcp_url(port, user="postgres", password=PASSWORD, db="postgres") -> str:
    return f"postgresql://{user}:{password}@127.0.0.1:{port}/{db}"


@pytest.fixture(scope="session")
def tcp_postgres(pg_root, pg_url):
    """initdb with scram-sha-256 and start on 127.0.0.1 as the unprivileged `pgserver` user
    (created by the embedded server's start, which pg_url ensures)."""
    import pwd
    import subprocess

    from pgserver._commands import POSTGRES_BIN_PATH
    from pgserver.utils import ensure_prefix_permissions

    user = pwd.getpwnam("pgserver")
    data = pg_root / "tcp" / "data"
    data.mkdir(parents=True)
    ensure_prefix_permissions(data)
    os.chown(data, user.pw_uid, user.pw_gid)
    pwfile = data.parent / "pw"
    pwfile.write_text(PASSWORD + "\n")
    os.chmod(pwfile, 0o644)
    as_user = embedded._as_user("pgserver")  # pgserver's own group, none of root's
    run = dict(check=True, capture_output=True, text=True, timeout=120, **as_user)
    subprocess.run(
        [
            str(POSTGRES_BIN_PATH / "initdb"),
            "-D",
            str(data),
            "-U",
            "postgres",
            "--auth=scram-sha-256",
            f"--pwfile={pwfile}",
            "--encoding=UTF8",
        ],
        **run,
    )
    port = free_port()
    subprocess.run(
        [
            str(POSTGRES_BIN_PATH / "pg_ctl"),
            "-D",
            str(data),
            "-w",
            "-l",
            str(data / "log"),
            "-o",
            f"-h 127.0.0.1 -p {port} -k {data}",
            "start",
        ],
        **run,
    )
    try:
        yield port
    finally:
        subprocess.run(
            [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            timeout=120,
            **as_user,
        )


# ---- the command line, in-process -----------------------------------------------------------

OTHER_VARS = ("DATABASE_URL", "PGPASSWORD")  # read besides every HINDSIGHT_* variable


def _configuration_vars() -> list[str]:
    """The environment variables hindsight reads that are set here: every HINDSIGHT_* one
    (a developer's HINDSIGHT_PROJECT or HINDSIGHT_READ_DATABASE_URL must not leak into a test)."""
    return [name for name in os.environ if name.startswith("HINDSIGHT_") or name in OTHER_VARS]


@dataclass
class Done:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(monkeypatch, capsys, db_url):
    """Run `hindsight ARGS` in this process (cli.main, as the console script does) against
    the test's database, or another one (url=...); returns its exit code, stdout, stderr."""
    from hindsight.cli import main as hindsight_cli

    for name in _configuration_vars():
        monkeypatch.delenv(name, raising=False)

    async def run(*args: str, stdin: str | None = None, url: str | None = None, **env: str) -> Done:
        monkeypatch.setenv("HINDSIGHT_DATABASE_URL", url or db_url)
        monkeypatch.setenv("HINDSIGHT_EMBED_THREADS", "1")
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))

        def call() -> int:
            try:
                hindsight_cli.main(list(args))
            except SystemExit as exc:
                return int(exc.code or 0)
            return 0

        capsys.readouterr()
        try:
            code = await anyio.to_thread.run_sync(call)
        finally:
            for name in env:
                monkeypatch.delenv(name, raising=False)
        captured = capsys.readouterr()
        return Done(code, captured.out, captured.err)

    return run


@pytest.fixture
def model():
    """The scripted stand-in for the model API behind an IDE client, on loopback (model_stub.py)."""
    from model_stub import ScriptedModel

    with ScriptedModel() as m:
        yield m
