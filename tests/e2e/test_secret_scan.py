"""Every labelled secret (tests/data/secrets_labelled.jsonl) sent through every field a caller
controls, by a server with an encryption key and by one without: none of them is found in
plain text in any table, in pg_dump, in the data directory (WAL included), in an export or in
the log. Identifiers refuse them without echoing them; free text is redacted (and sealed
with the key)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import asyncpg
from cryptography.fernet import Fernet
from mcp_client import server_command
from rawrpc import RawServer, is_tool_error, server_env, structured, tool_text

DATA = Path(__file__).resolve().parents[1] / "data" / "secrets_labelled.jsonl"
CANARY = "zqxcanary-plain-words-7731"  # not a secret: the scans must find it (they can see)


def secrets() -> list[dict]:
    return [r for r in map(json.loads, DATA.read_text(encoding="utf-8").splitlines()) if r["label"] == "secret"]


def fitting(text: str, secret: str, limit: int) -> str:
    """The text with the secret if it fits the field, else the secret under its name; a
    bare password is a word like any other, and only its context tells it apart."""
    for form in (text, f"password={secret}"):
        if len(form.encode("utf-8")) <= limit:
            return form
    return text[: limit + 10]  # too long for the field: refused for its length


# (field, is it refused?, the call that carries the secret: text `t`, secret `s`, marker `m`)
ROUTES = [
    ("metadata value", False, lambda t, s, m: ("store_memory", {"content": f"note {m}", "metadata": {"note": t}})),
    (
        "credential key",
        False,
        lambda t, s, m: ("store_memory", {"content": f"cred {m}", "metadata": {"db_password": s}}),
    ),
    ("metadata key", True, lambda t, s, m: ("store_memory", {"content": f"key {m}", "metadata": {t: 1}})),
    ("tags", True, lambda t, s, m: ("store_memory", {"content": f"tag {m}", "tags": ["ok", fitting(t, s, 64)]})),
    ("slot", True, lambda t, s, m: ("store_memory", {"content": f"slot {m}", "slot": fitting(t, s, 200)})),
    (
        "session_id",
        True,
        lambda t, s, m: ("store_memory", {"content": f"session {m}", "session_id": fitting(t, s, 256)}),
    ),
    (
        "sensitive key",
        False,
        lambda t, s, m: (
            "store_memory",
            {"content": f"sens {m}", "metadata": {"customer": s}, "sensitive": ["customer"]},
        ),
    ),
    ("interaction content", False, lambda t, s, m: ("record_interaction", {"content": f"I prefer this setup: {t}"})),
    ("interaction error", False, lambda t, s, m: ("record_interaction", {"content": f"deploy {m}", "error": t})),
    (
        "tool output",
        False,
        lambda t, s, m: (
            "record_interaction",
            {
                "tool_results": [{"tool": "shell", "arguments": {"cmd": t}, "output": t, "error": t}],
                "task_status": "failed",
            },
        ),
    ),
    (
        "interaction session_id",
        True,
        lambda t, s, m: ("record_interaction", {"content": f"I prefer tabs {m}", "session_id": fitting(t, s, 256)}),
    ),
    (
        "interaction task_type",
        True,
        lambda t, s, m: ("record_interaction", {"content": f"I prefer tabs {m}", "task_type": fitting(t, s, 256)}),
    ),
    (
        "tools_used",
        True,
        lambda t, s, m: ("record_interaction", {"content": f"I prefer tabs {m}", "tools_used": [fitting(t, s, 64)]}),
    ),
]


async def _send_everything(server: RawServer, label: str) -> dict[str, int]:
    """Store each secret as content, then through one more route; invalidate and update with
    secrets too. Returns how many calls each route refused."""
    refused: dict[str, int] = {}
    for n, row in enumerate(secrets()):
        text, secret, marker = row["text"], row["secret"], f"{label}-{n}"
        stored = structured(await server.call("store_memory", {"content": text + f" ({marker})"}))
        assert stored.get("redacted"), row["text"]
        name, must_refuse, make = ROUTES[n % len(ROUTES)]
        tool, args = make(text, secret, marker)
        answer = await server.call(tool, args)
        if must_refuse:
            assert is_tool_error(answer) and secret[:20] not in tool_text(answer), (name, tool_text(answer))
            refused[name] = refused.get(name, 0) + 1
        else:
            assert not is_tool_error(answer), (name, tool_text(answer))
        if n % 3 == 0:
            answer = await server.call("invalidate_memory", {"memory_id": stored["id"], "reason": f"rotated: {text}"})
        elif n % 3 == 1:
            answer = await server.call(
                "update_memory", {"memory_id": stored["id"], "content": f"{text} (updated)", "metadata": {"why": text}}
            )
        else:
            answer = await server.call("store_memory", {"content": "x", "supersedes": secret})  # refused, masked
            assert is_tool_error(answer) and secret[:20] not in tool_text(answer)
            continue
        assert not is_tool_error(answer), tool_text(answer)
    structured(await server.call("store_memory", {"content": f"control: {CANARY}"}))
    return refused


def _fragments(secret: str) -> list[bytes]:
    """The secret, and for long ones a piece of its middle (a scan of raw bytes may meet a
    long value cut by page or line boundaries)."""
    pieces = [secret] + ([secret[len(secret) // 2 - 12 : len(secret) // 2 + 12]] if len(secret) > 40 else [])
    return [p.encode("utf-8") for p in pieces]


def _found(blob: bytes) -> list[str]:
    return [r["secret"][:30] for r in secrets() if any(f in blob for f in _fragments(r["secret"]))]


def _data_dir_bytes(pgdata: Path) -> bytes:
    chunks = []
    for path in pgdata.rglob("*"):
        if path.is_file() and not path.name.startswith(".s.PGSQL"):
            chunks.append(path.read_bytes())
    return b"\n".join(chunks)


async def test_no_labelled_secret_reaches_any_table_dump_data_directory_export_or_log(pg_tmp):
    home = pg_tmp / "home"
    log = pg_tmp / "server.log"
    key = Fernet.generate_key().decode()
    refused = {}
    with log.open("w") as errlog:
        for agent, extra in (("keyless", {}), ("sealed", {"HINDSIGHT_ENCRYPTION_KEY": key})):
            server = RawServer(
                [server_command()],
                server_env(HINDSIGHT_HOME=str(home), HINDSIGHT_AGENT_ID=agent, HINDSIGHT_LOG_LEVEL="DEBUG", **extra),
                stderr=errlog,
            )
            await server.start()
            try:
                refused[agent] = await _send_everything(server, agent)
                url = _url(home)
                tables = await _all_text(url)
                dump = await anyio.to_thread.run_sync(_pg_dump, url)
                exports = b"".join([await anyio.to_thread.run_sync(_export, home, a) for a in ("keyless", "sealed")])
            finally:
                await server.close()
    assert set(refused["keyless"]) == {name for name, must, _ in ROUTES if must}
    datadir = _data_dir_bytes(home / "pgdata")
    text_log = log.read_bytes()
    for name, blob in (
        ("tables", tables),
        ("pg_dump", dump),
        ("export", exports),
        ("data directory", datadir),
        ("log", text_log),
    ):
        # the controls prove each scan looks where plain text would be
        control = b"looks like it holds a" if name == "log" else CANARY.encode()  # the log records refusals
        assert control in blob, f"the {name} scan cannot see plain text"
        assert _found(blob) == [], f"secrets in plain text in the {name}"


def _url(home: Path) -> str:
    lines = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
    return f"postgresql://postgres@/postgres?host={lines[4]}&port={lines[3]}"


async def _all_text(url: str) -> bytes:
    """Every row of every table in the public schema, as text."""
    conn = await asyncpg.connect(url)
    try:
        tables = [r[0] for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        rows = [await conn.fetch(f'SELECT t::text FROM "{t}" t') for t in tables]
    finally:
        await conn.close()
    return "\n".join(r[0] for table in rows for r in table).encode("utf-8")


def _pg_dump(url: str) -> bytes:
    from pgserver._commands import POSTGRES_BIN_PATH

    return subprocess.run(
        [str(POSTGRES_BIN_PATH / "pg_dump"), "--data-only", url], capture_output=True, check=True, timeout=300
    ).stdout


def _export(home: Path, agent: str) -> bytes:
    env = {**os.environ, "HINDSIGHT_HOME": str(home)}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, "-m", "hindsight.cli.main", "export", "--agent", agent],
        capture_output=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
