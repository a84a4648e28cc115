"""Probe a `hindsight-server` build as a hostile client and as an operator would, one figure
per trust boundary of issue 11, so two builds can be compared in the same session:

    python benchmarks/trust_probe.py [--server PATH] [--points 1,2,4,5,6,7,8]

1 agents      cross-agent calls a server pinned to agent B answers for agent A
2 fields      caller fields whose secret reaches the database in plain text; refused
              calls whose error echoes the secret
4 bounded     time to store 32 KB; latency of a recall sent 1 s into it; a cancelled store
5 heals       calls answered in the 20 s after the embedded postmaster is killed; then a
              second server starts; what is left running after both exit
6 socket      with a ~100-character HINDSIGHT_HOME: the socket directory's mode and owner,
              and whether another local user can read memories with psql
7 internals   answers that leak internals (class names, SQL, $n, tracebacks, library wording)
8 transport   malformed lines answered within 5 s; unknown arguments and "null" / "true"
              strings accepted with another meaning

(Point 3, the detector and the guard, is measured by benchmarks/secrets_detector.py.)
--server runs another build (e.g. an older commit installed in its own virtualenv); the
database for points 1, 2, 4, 7 and 8 is an embedded PostgreSQL started by this Python.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncpg

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from rawrpc import NoAnswer, RawServer, is_tool_error, server_env, structured, tool_text  # noqa: E402

from hindsight.data import pg_embedded as embedded  # noqa: E402

SECRET = "ghp_" + "Zq8R2mT5vX1wY7uP3sK9dL4fH6jN0bC2aE5g"
LEAKS = re.compile(
    r"Traceback|Error executing|asyncpg|DataError|OverflowError|\$\d|Input should be|"
    r"validation error|pydantic|UniqueViolation|invalid input for query",
    re.I,
)


def with_database(url: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


async def fresh_database(admin_url: str) -> str:
    name = f"probe_{uuid.uuid4().hex[:10]}"
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f"CREATE DATABASE {name}")
    finally:
        await conn.close()
    return with_database(admin_url, name)


async def server(command: str, **env: str) -> RawServer:
    s = RawServer([command], server_env(**env))
    await s.start()
    return s


# ---- 1 ----------------------------------------------------------------------------------
async def probe_agents(command: str, url: str) -> dict:
    a = await server(command, HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID="A")
    ids = [
        structured(
            await a.call(
                "store_memory", {"content": f"A's private note {i}: the vault code is 7731", "memory_type": "semantic"}
            )
        )["id"]
        for i in range(4)
    ]
    await a.close()
    b = await server(command, HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID="B")
    calls = {
        "list_memories": ("list_memories", {"agent_id": "A"}),
        "retrieve_memory": ("retrieve_memory", {"query": "vault code", "agent_id": "A"}),
        "get_memory": ("get_memory", {"memory_id": ids[0], "agent_id": "A"}),
        "update_memory": ("update_memory", {"memory_id": ids[1], "importance": 5, "agent_id": "A"}),
        "invalidate_memory": ("invalidate_memory", {"memory_id": ids[2], "reason": "x", "agent_id": "A"}),
        "delete_memory": ("delete_memory", {"memory_id": ids[3], "agent_id": "A"}),
        "store_memory": ("store_memory", {"content": "planted by B", "agent_id": "A"}),
        "record_interaction": ("record_interaction", {"content": "I prefer tabs, planted by B", "agent_id": "A"}),
    }
    answered = {}
    for name, (tool, args) in calls.items():
        answer = await b.call(tool, args)
        answered[name] = not is_tool_error(answer)
    for kind in ("profile", "recent"):
        answer = await b.request("resources/read", {"uri": f"memory://A/{kind}"})
        answered[f"memory://A/{kind}"] = "result" in answer and "vault" in json.dumps(answer["result"])
    same = tool_text(await b.call("list_memories", {"agent_id": "A"})) == tool_text(
        await b.call("list_memories", {"agent_id": "nobody-like-this"})
    )
    await b.close()
    return {
        "cross-agent calls answered": f"{sum(answered.values())}/{len(answered)}",
        "answered": sorted(k for k, v in answered.items() if v),
        "refusal identical for existing and unknown agent": same,
    }


# ---- 2 ----------------------------------------------------------------------------------
async def probe_fields(command: str, url: str) -> dict:
    s = await server(command, HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID="A")
    fields = {
        "tags": {"content": "note with a tag", "tags": [SECRET]},
        "slot": {"content": "note with a slot", "slot": f"cred:{SECRET}"},
        "session_id": {"content": "note with a session", "session_id": SECRET},
        "metadata key": {"content": "note with a metadata key", "metadata": {SECRET: 1}},
        "metadata value": {"content": "note with a metadata value", "metadata": {"db_password": "Tr0ub4dor&3x"}},
    }
    for args in fields.values():
        await s.call("store_memory", args)
    target = structured(await s.call("store_memory", {"content": "to be invalidated"}))["id"]
    await s.call("invalidate_memory", {"memory_id": target, "reason": f"rotated {SECRET}"})
    await s.call(
        "record_interaction",
        {"content": "deploy failed", "task_status": "failed", "session_id": SECRET + "x", "task_type": SECRET + "y"},
    )
    echoes = 0
    for args in (
        {"content": "x", "supersedes": SECRET},
        {"content": "x", "tags": [SECRET + "z" * 80]},
        {"content": "x", "memory_type": SECRET},
    ):
        echoes += SECRET in tool_text(await s.call("store_memory", args))
    await s.close()
    conn = await asyncpg.connect(url)
    try:
        dump = "\n".join(
            r[0] or ""
            for r in await conn.fetch(
                "SELECT concat_ws(' ', content, metadata::text, tags::text, slot, session_id, invalidation_reason) "
                "FROM memories UNION ALL "
                "SELECT concat_ws(' ', content, metadata::text, reason, slot) FROM memory_history"
            )
        )
    finally:
        await conn.close()
    leaked = [
        name
        for name, probe in (
            ("tags", SECRET),
            ("slot", f"cred:{SECRET}"),
            ("session_id", SECRET),
            ("metadata key", f'"{SECRET}"'),
            ("metadata value", "Tr0ub4dor&3x"),
            ("invalidate reason", f"rotated {SECRET}"),
            ("record_interaction session_id", SECRET + "x"),
            ("record_interaction task_type", SECRET + "y"),
        )
        if probe in dump
    ]
    return {
        "fields with plaintext secret in the database": f"{len(leaked)}/8",
        "leaked": leaked,
        "refused calls echoing the secret": f"{echoes}/3",
    }


# ---- 4 ----------------------------------------------------------------------------------
async def probe_bounded(command: str, url: str) -> dict:
    s = await server(command, HINDSIGHT_DATABASE_URL=url)
    big = " ".join(f"word{i % 997} log line {i} of the build output;" for i in range(4000))[: 32 * 1024 - 64]
    big += " the end marker zebracorn"
    t0 = time.monotonic()
    _, store = s.send("tools/call", {"name": "store_memory", "arguments": {"content": big}})
    await asyncio.sleep(1.0)
    t1 = time.monotonic()
    recall = await s.call("retrieve_memory", {"query": "deploy"}, timeout=300)
    recall_s = time.monotonic() - t1
    stored = await asyncio.wait_for(store, 300)
    store_s = time.monotonic() - t0
    found = structured(await s.call("retrieve_memory", {"query": "zebracorn"}))["memories"]
    # a store the client cancels at once
    rid, fut = s.send(
        "tools/call", {"name": "store_memory", "arguments": {"content": big.replace("zebracorn", "cancelcorn")}}
    )
    await s.notify("notifications/cancelled", {"requestId": rid, "reason": "probe"})
    try:
        await asyncio.wait_for(fut, 8)
        cancelled_answered = True
    except asyncio.TimeoutError:
        cancelled_answered = False
    await asyncio.sleep(1)
    await s.close()
    conn = await asyncpg.connect(url)
    try:
        cancelled_rows = await conn.fetchval("SELECT count(*) FROM memories WHERE content LIKE '%cancelcorn%'")
    finally:
        await conn.close()
    return {
        "32 KB store s": round(store_s, 2),
        "store ok": not is_tool_error(stored),
        "recall sent 1 s later waited s": round(recall_s, 2),
        "recall ok": not is_tool_error(recall),
        "last word of 32 KB found by keyword": bool(found and "zebracorn" in found[0]["content"]),
        "cancelled store answered": cancelled_answered,
        "cancelled store rows": cancelled_rows,
    }


# ---- 5 ----------------------------------------------------------------------------------
def postmaster_pid(home: Path) -> int | None:
    try:
        pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
        os.kill(pid, 0)
        return pid
    except (FileNotFoundError, ValueError, IndexError, ProcessLookupError):
        return None


def postgres_processes(home: Path) -> list[int]:
    out = subprocess.run(["pgrep", "-f", f"postgres -D {home / 'pgdata'}"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


async def probe_heals(command: str, seconds: float = 20) -> dict:
    home = Path(tempfile.mkdtemp(prefix="hs-probe-"))
    s = await server(command, HINDSIGHT_HOME=str(home / "h"))
    structured(await s.call("store_memory", {"content": "before the crash"}))
    os.kill(postmaster_pid(home / "h"), signal.SIGKILL)
    t0 = time.monotonic()
    ok = errors = 0
    first_ok = None
    while time.monotonic() - t0 < seconds:
        try:
            answer = await s.call("list_memories", {}, timeout=10)
            if is_tool_error(answer):
                errors += 1
            else:
                ok += 1
                first_ok = first_ok or round(time.monotonic() - t0, 2)
        except NoAnswer:
            errors += 1
        await asyncio.sleep(0.5)
    second = await server(command, HINDSIGHT_HOME=str(home / "h"))  # a new window opens
    second_ok = not is_tool_error(await second.call("list_memories", {}))
    first_ok_after_second = not is_tool_error(await s.call("list_memories", {}))
    await second.close()
    await s.close()
    await asyncio.sleep(3)
    left = postgres_processes(home / "h")
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(home, ignore_errors=True)
    return {
        f"calls in {seconds:.0f} s after kill: ok": ok,
        "errors": errors,
        "first ok after s": first_ok,
        "a new server then answers": second_ok,
        "the first server then answers": first_ok_after_second,
        "postgres processes left after both exit": len(left),
    }


# ---- 6 ----------------------------------------------------------------------------------
async def probe_socket(command: str) -> dict:
    base = Path(tempfile.mkdtemp(prefix="hs-probe-"))
    home = base / ("long-folder-name-" * 6)[: 100 - len(str(base))]
    s = await server(command, HINDSIGHT_HOME=str(home))
    structured(await s.call("store_memory", {"content": "socket probe private memory"}))
    lines = (home / "pgdata" / "postmaster.pid").read_text().splitlines()
    sockdir = Path(lines[4])
    st = sockdir.stat()
    result = {
        "HINDSIGHT_HOME length": len(str(home)),
        "socket dir": str(sockdir),
        "socket dir mode": oct(st.st_mode & 0o777),
        "socket dir owner": pwd.getpwuid(st.st_uid).pw_name,
    }
    result["another local user read memories"] = other_user_reads(sockdir, lines[3])
    await s.close()
    await asyncio.sleep(2)
    shutil.rmtree(base, ignore_errors=True)
    return result


def other_user_reads(sockdir: Path, port: str) -> str:
    if os.geteuid() != 0:
        return "not measured (needs root to act as another user)"
    user = "hsprobe"
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "-M", "-s", "/bin/sh", user], check=True)
    from pgserver._commands import POSTGRES_BIN_PATH

    psql = POSTGRES_BIN_PATH / "psql"
    done = subprocess.run(
        [
            "runuser",
            "-u",
            user,
            "--",
            str(psql),
            "-h",
            str(sockdir),
            "-p",
            port,
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-Atc",
            "SELECT count(*) FROM memories",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return "yes" if done.returncode == 0 else f"no ({(done.stderr.strip().splitlines() or ['?'])[-1][:90]})"


# ---- 7 ----------------------------------------------------------------------------------
async def probe_internals(command: str, url: str) -> dict:
    s = await server(command, HINDSIGHT_DATABASE_URL=url)
    structured(await s.call("store_memory", {"content": "a memory to recall"}))
    cases = [
        ("tools/call", {"name": "retrieve_memory", "arguments": {"query": "what happened 3000 years ago"}}),
        ("tools/call", {"name": "retrieve_memory", "arguments": {"query": "9999999天前发生了什么"}}),
        ("tools/call", {"name": "retrieve_memory", "arguments": {"query": "x", "as_of": "9999-12-31T23:59:59-05:00"}}),
        ("tools/call", {"name": "retrieve_memory", "arguments": {"query": "x", "as_of": "0001-01-01T00:00:00+05:00"}}),
        (
            "tools/call",
            {
                "name": "retrieve_memory",
                "arguments": {"query": "x", "time_range": {"start": "0001-01-01T00:00:00+14:00"}},
            },
        ),
        (
            "tools/call",
            {"name": "retrieve_memory", "arguments": {"query": "yesterday", "as_of": "9999-12-31T23:59:59"}},
        ),
        ("tools/call", {"name": "store_memory", "arguments": {"content": "x", "importance": "high"}}),
        ("tools/call", {"name": "store_memory", "arguments": {"content": 5}}),
        ("tools/call", {"name": "list_memories", "arguments": {"limit": "many"}}),
        ("resources/read", {"uri": "memory://has space/profile"}),
        ("resources/read", {"uri": "memory://" + "a" * 300 + "/recent"}),
        ("prompts/get", {"name": "memory_guidance", "arguments": {"language": "fr"}}),
    ]
    leaks = []
    for method, params in cases:
        answer = await s.request(method, params)
        text = json.dumps(answer)
        bad = LEAKS.search(tool_text(answer)) or ("error" in answer and answer["error"].get("code") in (0, -32603))
        if bad:
            leaks.append(f"{method} {json.dumps(params)[:70]} -> {tool_text(answer)[:90]!r}")
        del text
    await s.close()
    return {"answers leaking internals": f"{len(leaks)}/{len(cases)}", "examples": leaks[:12]}


# ---- 8 ----------------------------------------------------------------------------------
async def probe_transport(command: str, url: str) -> dict:
    s = await server(command, HINDSIGHT_DATABASE_URL=url, HINDSIGHT_AGENT_ID="me")
    lines = {
        "bad JSON": b'{"jsonrpc": "2.0", "id": 901, "method": "tools/list"',
        "lone surrogate": b'{"jsonrpc":"2.0","id":902,"method":"tools/call","params":{"name":"store_memory",'
        b'"arguments":{"content":"bad \\ud800 text"}}}',
        "BOM": b'\xef\xbb\xbf{"jsonrpc":"2.0","id":903,"method":"tools/list"}',
        "nesting 200": (
            '{"jsonrpc":"2.0","id":904,"method":"tools/call","params":{"name":"store_memory",'
            '"arguments":{"content":"deep","metadata":{"a":' + "[" * 200 + "]" * 200 + "}}}}"
        ).encode(),
        "invalid UTF-8": b'{"jsonrpc":"2.0","id":905,"method":"tools/list","x":"\xff\xfe"}',
        "not an object": b"[1, 2, 3]",
    }
    answered = {}
    for name, line in lines.items():
        m = re.search(rb'"id":\s*(\d+)', line)
        answered[name] = await s.raw_answer(line, int(m.group(1)) if m else None, timeout=5) is not None
    coerced = {}
    checks = {
        "agentId (unknown argument)": ("store_memory", {"content": "misspelled agent", "agentId": "other"}),
        'shared: "true"': ("store_memory", {"content": "string true", "shared": "true"}),
        'importance: "4"': ("store_memory", {"content": "string four", "importance": "4"}),
        'session_id: "null"': ("store_memory", {"content": "null session", "session_id": "null"}),
        "include_shared: 1": ("list_memories", {"include_shared": 1}),
        "top_k: 3.0": ("retrieve_memory", {"query": "x", "top_k": 3.0}),
    }
    for name, (tool, args) in checks.items():
        answer = await s.call(tool, args)
        ok = not is_tool_error(answer) and "error" not in answer
        if ok and name.startswith("session_id"):
            memory = structured(answer).get("memory", {})
            ok = memory.get("session_id") != "null"  # accepted but changed into another meaning
        coerced[name] = ok
    await s.close()
    return {
        "malformed lines answered within 5 s": f"{sum(answered.values())}/{len(answered)}",
        "unanswered": [k for k, v in answered.items() if not v],
        "accepted with another meaning": f"{sum(coerced.values())}/{len(coerced)}",
        "accepted": [k for k, v in coerced.items() if v],
    }


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", help="hindsight-server executable (default: the one beside this Python)")
    ap.add_argument("--points", default="1,2,4,5,6,7,8")
    args = ap.parse_args()
    exe = Path(sys.executable).parent / "hindsight-server"
    command = args.server or str(exe if exe.exists() else "hindsight-server")
    points = {int(p) for p in args.points.split(",")}
    root = Path(tempfile.mkdtemp(prefix="hs-probe-db-"))
    admin = embedded.start(root / "home") if points & {1, 2, 4, 7, 8} else None
    print(f"trust probe of {command}")
    try:
        for n, name, probe in (
            (1, "agents", probe_agents),
            (2, "fields", probe_fields),
            (4, "bounded", probe_bounded),
            (7, "internals", probe_internals),
            (8, "transport", probe_transport),
        ):
            if n in points:
                print(
                    f"{n} {name}: {json.dumps(await probe(command, await fresh_database(admin)), ensure_ascii=False)}",
                    flush=True,
                )
        if 5 in points:
            print(f"5 heals: {json.dumps(await probe_heals(command))}", flush=True)
        if 6 in points:
            print(f"6 socket: {json.dumps(await probe_socket(command))}", flush=True)
    finally:
        embedded.release()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
