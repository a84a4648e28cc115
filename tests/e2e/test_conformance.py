"""Clients hindsight did not write: the official MCP conformance suite against the HTTP
transport, the TypeScript SDK's client (the one the IDEs build on) and the MCP Inspector's
CLI over stdio and over HTTP with a token (through a proxy adding it, for the suite and the
Inspector, which cannot send one). The Node pieces are pinned in tests/node (package-lock.json); `npm ci
--prefix tests/node` installs them (the README's test command does)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import http_server as hs
import pytest
from mcp_client import server_command, server_env

NODE = Path(__file__).parent.parent / "node"
SUITE = NODE / "node_modules" / ".bin" / "conformance"
EXPECTED = NODE / "expected-failures.txt"
pytestmark = pytest.mark.skipif(
    not SUITE.exists() or shutil.which("node") is None,
    reason="the Node clients are not installed: npm ci --prefix tests/node",
)


def _expected() -> dict[str, str]:
    out = {}
    for line in EXPECTED.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason.strip()
    return out


def _scenarios() -> list[str]:
    listed = subprocess.run([str(SUITE), "list", "--server"], capture_output=True, text=True, timeout=60).stdout
    return re.findall(r"^\s+- (\S+)$", listed, re.MULTILINE)


def _passes(url: str, scenario: str, workdir: Path) -> tuple[bool, str]:
    done = subprocess.run(
        [str(SUITE), "server", "--url", url, "--scenario", scenario], capture_output=True, text=True, timeout=180,
        cwd=workdir,  # the suite writes its results/ folder there
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
    env = {**os.environ, **server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="ts")}
    stdio = subprocess.run(
        ["node", str(NODE / "client.mjs"), "stdio", server_command()], env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert stdio.returncode == 0, stdio.stdout + stdio.stderr
    bearer = hs.token(db_url, "--agent", "ts-http")["token"]
    with hs.servers(db_url, 1) as (bases, _):
        http = subprocess.run(
            ["node", str(NODE / "client.mjs"), "http", f"{bases[0]}/mcp", bearer], capture_output=True, text=True,
            timeout=300,
        )  # fmt: skip
    assert http.returncode == 0, http.stdout + http.stderr
    for out in (stdio.stdout, http.stdout):
        steps = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        assert [s["step"] for s in steps][-1] == "bad input" and all(s["ok"] for s in steps)


INSPECTOR = NODE / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"


def _inspect(target: list[str], *args: str, env: dict | None = None) -> dict:
    done = subprocess.run(
        ["node", str(INSPECTOR), *target, *args], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def test_the_inspector_cli_over_stdio_and_http(db_url):
    env = {**os.environ, **server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="inspector")}
    stdio = [server_command()]
    listed = _inspect(stdio, "--method", "tools/list", env=env)
    assert len(listed["tools"]) == 8 and all(t["annotations"] for t in listed["tools"])
    stored = _inspect(stdio, "--method", "tools/call", "--tool-name", "store_memory", "--tool-arg",
                      "content=The Inspector stored this over stdio.", env=env)  # fmt: skip
    assert stored["structuredContent"]["status"] == "created"
    bearer = hs.token(db_url, "--agent", "inspector")["token"]
    with hs.servers(db_url, 1) as (bases, _), hs.bearer_proxy(bases[0], bearer) as proxy:
        http = [f"{proxy}/mcp", "--transport", "http"]
        assert len(_inspect(http, "--method", "tools/list")["tools"]) == 8
        found = _inspect(http, "--method", "tools/call", "--tool-name", "retrieve_memory", "--tool-arg",
                         "query=What did the Inspector store?")  # fmt: skip
        assert found["structuredContent"]["memories"][0]["id"] == stored["structuredContent"]["id"]
        assert _inspect(http, "--method", "prompts/list")["prompts"][0]["name"] == "memory_guidance"
