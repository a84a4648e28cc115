"""The embedded database as the product uses it: shared by two servers, stopped cleanly on
SIGTERM, and adopted after a holder was killed with SIGKILL."""

import json
import os
import signal
import subprocess
import time

import anyio
import pytest
from mcp_client import LAUNCH_DIR, mcp_client, server_command, server_env


def _postmaster_alive(home) -> bool:
    pidfile = home / "pgdata" / "postmaster.pid"
    if not pidfile.exists():
        return False
    try:
        os.kill(int(pidfile.read_text().split()[0]), 0)
        return True
    except (ProcessLookupError, ValueError, IndexError):
        return False


def _holders(home) -> list[int]:
    path = home / "pgdata" / ".handle_pids.json"
    return json.loads(path.read_text() or "[]") if path.exists() else []


async def _wait_until(predicate, seconds=30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        await anyio.sleep(0.2)
    return predicate()


def _start_raw(env):
    """A server with a raw pipe, initialized and past a first call (so the database is up:
    the handshake is answered before it opens)."""
    proc = subprocess.Popen(
        [server_command()],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=LAUNCH_DIR,
    )
    proc.stdin.write(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            }
        )
        + "\n"
    )
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == 1 and "result" in answer
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "list_memories", "arguments": {}}}
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.write(json.dumps(call) + "\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    assert answer["id"] == 2 and not answer["result"]["isError"]
    return proc


async def test_two_servers_share_one_data_dir(pg_tmp):
    home = pg_tmp / "home"
    env = server_env(HINDSIGHT_HOME=str(home))
    async with mcp_client(env) as first:
        stored = await first.call("store_memory", content="Window one learned that tests need -x")
        async with mcp_client(env) as second:
            found = await second.call("retrieve_memory", query="what do tests need?")
            assert len(_holders(home)) == 2
            assert found["memories"][0]["id"] == stored["id"]
        # the second window closed; the first still works on the same server
        assert (await first.call("get_memory", memory_id=stored["id"]))["content"].endswith("-x")
        assert _postmaster_alive(home)
    assert await _wait_until(lambda: not _postmaster_alive(home)), "last holder should stop the server"
    assert _holders(home) == []


async def test_sigterm_stops_cleanly(pg_tmp):
    home = pg_tmp / "home"
    proc = await anyio.to_thread.run_sync(_start_raw, server_env(HINDSIGHT_HOME=str(home)))
    assert _postmaster_alive(home)
    proc.send_signal(signal.SIGTERM)
    code = await anyio.to_thread.run_sync(lambda: proc.wait(timeout=60))
    assert code == 0
    assert await _wait_until(lambda: not _postmaster_alive(home))
    assert _holders(home) == []


async def test_server_orphaned_by_kill9_is_adopted(pg_tmp):
    home = pg_tmp / "home"
    env = server_env(HINDSIGHT_HOME=str(home))
    async with mcp_client(env) as c:
        kept = await c.call("store_memory", content="Survives a crash of another window")
    victim = await anyio.to_thread.run_sync(_start_raw, env)
    victim.kill()
    victim.wait(timeout=30)
    assert _postmaster_alive(home) and victim.pid in _holders(home)  # orphaned

    async with mcp_client(env) as c:
        got = await c.call("get_memory", memory_id=kept["id"])
        assert got["content"] == "Survives a crash of another window"
        assert victim.pid not in _holders(home)
    assert await _wait_until(lambda: not _postmaster_alive(home)), "the adopted server is stopped at the end"


def _intruder() -> str:
    """Another local OS user (created once; the tests run as root, as CI does)."""
    import pwd

    try:
        pwd.getpwnam("hsintruder")
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/bin/sh", "hsintruder"], check=True)
    return "hsintruder"


@pytest.mark.skipif(os.geteuid() != 0, reason="acting as another local user needs root")
async def test_a_long_home_gets_a_private_socket_and_other_users_cannot_read(pg_tmp):
    home = pg_tmp / ("a-rather-long-folder-name-" * 5)  # the socket path would pass unix's 107 bytes
    env = server_env(HINDSIGHT_HOME=str(home))
    async with mcp_client(env) as c:
        await c.call("store_memory", content="a private memory nobody else may read")
        lines = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
        sockdir = lines[4]
        assert sockdir.startswith("/tmp/hindsight-") and len(str(home)) > 100
        mode = os.stat(sockdir).st_mode & 0o777
        assert mode == 0o700 and oct(os.stat(os.path.join(sockdir, ".s.PGSQL.5432")).st_mode & 0o777) == "0o700"
        hba = (home / "pgdata" / "pg_hba.conf").read_text()
        rules = [x.split() for x in hba.splitlines() if x.strip() and not x.startswith("#")]
        assert rules == [["local", "all", "all", "peer", "map=hindsight"]]  # no trust, no TCP
        from pgserver._commands import POSTGRES_BIN_PATH

        for where in (sockdir, str(home / "pgdata")):
            tried = subprocess.run(
                [
                    "runuser",
                    "-u",
                    _intruder(),
                    "--",
                    str(POSTGRES_BIN_PATH / "psql"),
                    "-h",
                    where,
                    "-U",
                    "postgres",
                    "-d",
                    "postgres",
                    "-Atc",
                    "SELECT content FROM memories",
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert tried.returncode != 0 and "private memory" not in tried.stdout, tried
        # even with the directory and the socket opened up, peer authentication turns it away
        socket = os.path.join(sockdir, ".s.PGSQL.5432")
        os.chmod(sockdir, 0o755)
        os.chmod(socket, 0o777)
        try:
            tried = subprocess.run(
                [
                    "runuser",
                    "-u",
                    _intruder(),
                    "--",
                    str(POSTGRES_BIN_PATH / "psql"),
                    "-h",
                    sockdir,
                    "-U",
                    "postgres",
                    "-d",
                    "postgres",
                    "-Atc",
                    "SELECT content FROM memories",
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
        finally:
            os.chmod(socket, 0o700)
            os.chmod(sockdir, 0o700)
        assert tried.returncode != 0 and "authentication failed" in tried.stderr, tried
    assert await _wait_until(lambda: not _postmaster_alive(home))


@pytest.mark.skipif(os.geteuid() != 0, reason="as root, PostgreSQL runs as another user")
async def test_as_root_postgres_runs_as_pgserver_without_roots_groups(pg_tmp):
    """Root's group must not decide what PostgreSQL can reach: on a fresh machine /root is
    0700 (group root) and a postmaster that kept group root could not run the programs of
    a Python installed under it."""
    import grp
    import pwd

    home = pg_tmp / "home"
    proc = await anyio.to_thread.run_sync(_start_raw, server_env(HINDSIGHT_HOME=str(home)))
    try:
        pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
        status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status").read().splitlines())
        entry = pwd.getpwnam("pgserver")
        assert int(status["Uid"].split()[0]) == entry.pw_uid
        assert int(status["Gid"].split()[0]) == entry.pw_gid
        assert status["Groups"].split() == [], f"supplementary groups {status['Groups']} (root is {grp.getgrgid(0)})"
    finally:
        proc.stdin.close()
        await anyio.to_thread.run_sync(lambda: proc.wait(timeout=60))
