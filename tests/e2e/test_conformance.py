"""Clients hindsight did not write: the official MCP conformance suite (0.1.16, the latest)
against the HTTP transport, the TypeScript SDK's client (the one the IDEs build on) and the
MCP Inspector's CLI (2.12, the latest) over stdio and over HTTP with a token (through a
proxy adding it, for the suite), each on protocol 2026-07-28 and on 2025-11-25 where it
speaks both. They run on Node 26 from the npm registry (the package `node`), pinned with
them in tests/node (package-lock.json); `npm ci --prefix tests/node` installs them (the
README's test command does). The suite 0.1.16 knows protocols up to 2025-11-25 only
(`conformance list --spec-version 2026-07-28`: "Unknown spec version"); 2026-07-28 is
checked by the Inspector (--protocol-era modern) and by Claude Code (test_claude_code.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import http_server as hs
import pytest
from claude_code import TAP, wire
from mcp_client import LAUNCH_DIR, server_command, server_env

NODE = Path(__file__).parent.parent / "node"
BIN = NODE / "node_modules" / ".bin"
SUITE = BIN / "conformance"
EXPECTED = NODE / "expected-failures.txt"
pytestmark = pytest.mark.skipif(
    not SUITE.exists() or not (BIN / "node").exists(),
    reason="the Node clients are not installed: npm ci --prefix tests/node",
)


def _node_env(env: dict | None = None) -> dict:
    """The environment with tests/node's Node first on PATH (the suite and the Inspector need 22+)."""
    env = dict(os.environ if env is None else env)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    return env


def _expected() -> dict[str, str]:
    out = {}
    for line in EXPECTED.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    return out


def _scenarios() -> list[str]:
    listed = subprocess.run(
        [str(SUITE), "list", "--server", "--spec-version", "2025-11-25"], capture_output=True, text=True, timeout=60,
        env=_node_env(),
    ).stdout  # fmt: skip
    return re.findall(r"^\s+- (\S+)(?: \[[^\]]*\])?$", listed, re.MULTILINE)  # "  - ping [2025-06-18,2025-11-25]"


def _passes(url: str, scenario: str, workdir: Path) -> tuple[bool, str]:
    done = subprocess.run(
        [str(SUITE), "server", "--url", url, "--scenario", scenario], capture_output=True, text=True, timeout=180,
        cwd=workdir, env=_node_env(),  # the suite writes its results/ folder there
    )  # fmt: skip
    text = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    failures = [line for line in text.splitlines() if re.search(r"\bFAILURE\b", line)]
    failed = bool(failures) or done.returncode != 0
    print(f"{scenario}: {'FAILED' if failed else 'passed'} {failures[0][-200:] if failures else ''}")
    return not failed, text[-2000:]


def test_the_conformance_suite_passes_what_applies_to_a_memory_server(db_url, tmp_path):
    expected = _expected()
    assert all(reason for reason in expected.values()), "every expected failure says why"
    scenarios = _scenarios()
    assert len(scenarios) >= 20 and set(expected) <= set(scenarios)
    bearer = hs.token(db_url, "--agent", "conformance")["token"]
    with hs.servers(db_url, 1) as (bases, _), hs.bearer_proxy(bases[0], bearer) as proxy:
        results = {name: _passes(f"{proxy}/mcp", name, tmp_path) for name in scenarios}
    passed = sorted(n for n, (ok, _) in results.items() if ok)
    print(json.dumps({"passed": passed, "expected_failures": sorted(expected)}, indent=1))
    unexpected = {n: out for n, (ok, out) in results.items() if not ok and n not in expected}
    assert unexpected == {}, "failing and not listed in tests/node/expected-failures.txt"
    assert [n for n in passed if n in expected] == [], "these pass now: remove them from expected-failures.txt"
    assert {"server-initialize", "ping", "tools-list", "logging-set-level", "completion-complete"} <= set(passed)


def test_the_typescript_sdk_client_over_stdio_and_http(db_url):
    env = _node_env({**os.environ, **server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="ts")})
    stdio = subprocess.run(
        [str(BIN / "node"), str(NODE / "client.mjs"), "stdio", server_command()], env=env, capture_output=True,
        text=True, timeout=300, cwd=LAUNCH_DIR,
    )  # fmt: skip
    assert stdio.returncode == 0, stdio.stdout + stdio.stderr
    bearer = hs.token(db_url, "--agent", "ts-http")["token"]
    with hs.servers(db_url, 1) as (bases, _):
        http = subprocess.run(
            [str(BIN / "node"), str(NODE / "client.mjs"), "http", f"{bases[0]}/mcp", bearer], capture_output=True,
            text=True, timeout=300, env=_node_env(),
        )  # fmt: skip
    assert http.returncode == 0, http.stdout + http.stderr
    for out in (stdio.stdout, http.stdout):
        steps = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert [s["step"] for s in steps][-1] == "bad input" and all(s["ok"] for s in steps)


INSPECTOR = BIN / "mcp-inspector"


def _passed(env: dict | None) -> list[str]:
    """The Inspector starts a stdio server with a minimal environment: ours go with -e."""
    return [f"-e{k}={v}" for k, v in (env or {}).items() if k.startswith(("HINDSIGHT_", "OMP_"))]


def _inspect(target: list[str], era: str, *args: str, env: dict | None = None) -> dict:
    done = subprocess.run(
        [str(INSPECTOR), "--cli", "--protocol-era", era, "--format", "json", "--quiet", *_passed(env), *args, *target],
        capture_output=True, text=True, timeout=300, env=_node_env(env), cwd=LAUNCH_DIR,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    said = json.loads(done.stdout)
    return said.get("result", said)


@pytest.mark.parametrize("era", ["modern", "legacy"])
def test_the_inspector_cli_over_stdio_and_http(db_url, era, tmp_path):
    """modern: protocol 2026-07-28 (server/discover, the per-request envelope); legacy:
    the initialize handshake (2025-11-25)."""
    env = {**os.environ, **server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID=f"inspector-{era}")}
    env.pop("HINDSIGHT_HOME", None)  # the database is the URL's: a home would never be touched
    tap = tmp_path / "wire.jsonl"
    tapped = [sys.executable, str(TAP), str(tap), server_command()]
    listed = _inspect(tapped, era, "--method", "tools/list", env=env)
    assert len(listed["tools"]) == 9 and all(t["annotations"] and t["title"] for t in listed["tools"])
    opening = next(r["msg"] for r in wire(tap) if r.get("dir") == "in" and "id" in r["msg"])
    if era == "modern":
        assert opening["method"] == "server/discover"
        assert opening["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    else:
        assert opening["method"] == "initialize" and opening["params"]["protocolVersion"] == "2025-11-25"
    stdio = [server_command()]
    content = json.dumps({"content": f"The Inspector stored this over stdio ({era})."})
    stored = _inspect(stdio, era, "--method", "tools/call", "--tool-name", "store_memory", "--tool-args-json", content,
                      env=env)  # fmt: skip
    assert stored["structuredContent"]["status"] == "created", stored
    bad = subprocess.run(
        [str(INSPECTOR), "--cli", "--protocol-era", era, "--format", "json", "--method", "tools/call",
         "--tool-name", "store_memory", "--tool-args-json", '{"content": "x", "importance": 9}', *_passed(env),
         *stdio],
        capture_output=True, text=True, timeout=300, env=_node_env(env), cwd=LAUNCH_DIR,
    )  # fmt: skip
    assert "importance: must be a whole number from 1 to 5" in bad.stdout + bad.stderr
    bearer = hs.token(db_url, "--agent", f"inspector-{era}")["token"]
    with hs.servers(db_url, 1) as (bases, _):
        http = [f"{bases[0]}/mcp", "--transport", "http", "--header", f"Authorization: Bearer {bearer}"]
        assert len(_inspect(http, era, "--method", "tools/list")["tools"]) == 9
        query = json.dumps({"query": f"What did the Inspector store over stdio ({era})?"})
        found = _inspect(http, era, "--method", "tools/call", "--tool-name", "retrieve_memory", "--tool-args-json",
                         query)  # fmt: skip
        assert found["structuredContent"]["memories"], found
        assert found["structuredContent"]["memories"][0]["id"] == stored["structuredContent"]["id"]
        assert _inspect(http, era, "--method", "prompts/list")["prompts"][0]["name"] == "memory_guidance"
