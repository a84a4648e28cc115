"""Claude Code itself (`@anthropic-ai/claude-code`, pinned in tests/node) driving
`hindsight-server`, with the scripted model (model_stub.py) behind it on loopback.

Each session is `claude -p PROMPT --output-format json` in a temporary HOME (its settings,
its `claude mcp add` registrations and its logs live there), started in a project folder,
with the model at ANTHROPIC_BASE_URL, a dummy key and nonessential traffic off. What the
session shows: Claude Code's JSON result, the requests the model got (model_stub), and
Claude Code's own MCP log for the server (~/.cache/claude-cli-nodejs/<project>/mcp-logs-
hindsight/*.jsonl: "Successfully connected … in N ms", probe timeouts, the signals it sent).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp_client import server_command
from model_stub import Script, ScriptedModel

NODE_BIN = Path(__file__).parent / "node" / "node_modules" / ".bin"
TAP = Path(__file__).parent / "wire_tap.py"
CLAUDE = NODE_BIN / "claude"
SERVER = "hindsight"
HINDSIGHT_TOOLS = tuple(
    f"mcp__{SERVER}__{name}"
    for name in (
        "store_memory",
        "record_interaction",
        "retrieve_memory",
        "get_memory",
        "update_memory",
        "invalidate_memory",
        "delete_memory",
        "list_memories",
        "hook",
    )
)


def installed() -> bool:
    if not CLAUDE.exists():
        return False
    done = subprocess.run([str(CLAUDE), "--version"], capture_output=True, text=True, timeout=60)
    return done.returncode == 0 and "Claude Code" in done.stdout


def git_checkout(folder: Path, remote: str) -> Path:
    """A git checkout with `origin` at `remote` (what a cloned repository looks like)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True, timeout=60)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True, timeout=60)
    return folder


FAILING_CHECK = """#!/bin/sh
[ -f .env.test ] || { echo "error: .env.test is missing (the checks read DATABASE_URL from it)" >&2; exit 3; }
echo "all 12 checks passed"
"""


def courier_checkout(folder: Path) -> Path:
    """A checkout whose checks (`sh check.sh`) fail until .env.test is made from .env.example:
    the failure and the fix the hooks' tests capture."""
    project = git_checkout(folder, "https://github.com/team/courier.git")
    (project / "check.sh").write_text(FAILING_CHECK)
    (project / ".env.example").write_text("DATABASE_URL=postgres://localhost/courier_test\n")
    return project


@dataclass
class Session:
    prompt: str
    cwd: Path
    returncode: int
    result: dict[str, Any]
    stderr: str
    mcp_log: list[dict[str, Any]] = field(default_factory=list)  # Claude Code's log of this server

    @property
    def id(self) -> str:
        return self.result.get("session_id", "")

    @property
    def answer(self) -> str:
        return self.result.get("result", "")

    def connected_ms(self) -> int | None:
        """Claude Code's own "Successfully connected (transport: stdio) in N ms"."""
        for entry in self.mcp_log:
            found = re.search(r"Successfully connected.* in (\d+)ms", entry.get("debug", ""))
            if found:
                return int(found.group(1))
        return None

    def log_lines(self) -> list[str]:
        return [entry.get("debug") or entry.get("error") or json.dumps(entry) for entry in self.mcp_log]


class ClaudeCode:
    """Claude Code sessions in one temporary HOME, against `model`."""

    def __init__(self, home: Path, model: ScriptedModel, server_env: dict[str, str], transcripts: bool = False):
        self.home = home
        self.model = model
        self.server_env = server_env  # what the MCP config gives the server
        self.transcripts = transcripts  # keep each session's transcript (~/.claude/projects/…), as users have it
        home.mkdir(parents=True, exist_ok=True)

    def env(self) -> dict[str, str]:
        """Claude Code's environment: its own HOME, the model on loopback, no other traffic;
        PATH with this Python's scripts (hindsight, hindsight-server) and Node's."""
        scripts = str(Path(server_command()).parent)
        env = {
            "HOME": str(self.home),
            "PATH": os.pathsep.join([scripts, str(NODE_BIN), os.environ.get("PATH", "")]),
            "LANG": os.environ.get("LANG", "C.UTF-8"),
            "ANTHROPIC_BASE_URL": self.model.url,
            "ANTHROPIC_API_KEY": "sk-ant-scripted-model",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
        }
        if not self.transcripts:
            env["CLAUDE_CODE_SKIP_PROMPT_HISTORY"] = "1"
        return env

    def mcp_config(self, folder: Path, tap: Path | None = None) -> Path:
        """A --mcp-config file launching this checkout's hindsight-server; `tap`: through
        wire_tap.py, which records every message in that file (see `wire`) and the server's
        stderr beside it (.stderr)."""
        path = folder / "mcp.json"
        server: dict[str, Any] = {"type": "stdio", "command": server_command(), "env": self.server_env}
        if tap is not None:
            errlog = tap.with_suffix(".stderr")
            server.update(command=sys.executable, args=[str(TAP), str(tap), str(errlog), "--", server_command()])
        path.write_text(json.dumps({"mcpServers": {SERVER: server}}, indent=2))
        return path

    def shell(self, command: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
        """A command line run as a user would type it (the README's), in Claude Code's environment."""
        env = {**self.env(), **{k: v for k, v in self.server_env.items() if k.startswith("HINDSIGHT_")}}
        return subprocess.run(
            ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
        )  # fmt: skip

    def run(
        self,
        prompt: str,
        cwd: Path,
        script: Script,
        *,
        mcp_config: Path | None = None,
        allowed: tuple[str, ...] = (f"mcp__{SERVER}",),
        timeout: float = 300,
    ) -> Session:
        """One `claude -p` session in `cwd`, the model playing `script`."""
        self.model.play(script)
        command = [str(CLAUDE), "-p", prompt, "--output-format", "json", "--allowedTools", ",".join(allowed)]
        if mcp_config is not None:
            command += ["--mcp-config", str(mcp_config), "--strict-mcp-config"]
        started = time.time()
        done = subprocess.run(command, cwd=cwd, env=self.env(), capture_output=True, text=True, timeout=timeout)
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}
        except ValueError:
            result = {"unparsed": done.stdout[-2000:]}
        session = Session(prompt, cwd, done.returncode, result, done.stderr)
        session.mcp_log = self._log(cwd, session.id, started)
        return session

    def _log(self, cwd: Path, session_id: str, since: float) -> list[dict[str, Any]]:
        """Claude Code's MCP log entries for the server in this session."""
        folder = self.home / ".cache" / "claude-cli-nodejs" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd.resolve()))
        entries = []
        for path in sorted((folder / f"mcp-logs-{SERVER}").glob("*.jsonl")) if folder.exists() else ():
            if path.stat().st_mtime < since - 1:
                continue
            for line in path.read_text().splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if not session_id or entry.get("sessionId") == session_id:
                    entries.append(entry)
        return entries


def wire(tap: Path) -> list[dict[str, Any]]:
    """What a tap recorded: {"t", "dir": "in" (client to server) | "out", "msg"}, and {"exit"}."""
    return [json.loads(line) for line in tap.read_text().splitlines()] if tap.exists() else []


def answer_to(records: list[dict[str, Any]], method: str) -> dict[str, Any] | None:
    """The server's answer to the first request of `method` the client sent."""
    asked = next((r["msg"]["id"] for r in records if r.get("dir") == "in" and r["msg"].get("method") == method), None)
    return next((r["msg"] for r in records if r.get("dir") == "out" and r["msg"].get("id") == asked), None)


def transcript(session: Session, model: ScriptedModel) -> str:
    """What the scripted model was sent and what it answered, for a test's output (-s): the
    prompt, then for each of its turns the tool it called and the result it was shown."""
    lines = [f"$ claude -p {session.prompt!r}   (in {session.cwd.name}/, session {session.id[:8]})"]
    for result in model.tool_results(session.id):
        lines.append(f"  model -> {result['name']}({json.dumps(result['input'], ensure_ascii=False)[:160]})")
        shown = result["text"].replace("\n", " ")
        lines.append(f"  model <- {'ERROR ' if result['is_error'] else ''}{shown[:220]}")
    lines.append(f"  answer: {session.answer!r}; Claude Code: connected in {session.connected_ms()} ms")
    print("\n".join(lines), file=sys.stderr)
    return "\n".join(lines)
