"""Codex CLI (`@openai/codex`) and Gemini CLI (`@google/gemini-cli`), pinned in tests/node,
driving `hindsight-server` with the scripted model (model_stub.py) behind them on loopback.

Each session runs non-interactively in a temporary home (the client's settings and logs live
there), started in a project folder, the server configured as `hindsight mcp-config
--client codex|gemini` prints it:
  Codex    `codex exec --json PROMPT` with $CODEX_HOME/config.toml naming a model provider at
           the scripted model (wire_api "responses") and [mcp_servers.hindsight]
  Gemini   `gemini -p PROMPT --output-format json` with GOOGLE_GEMINI_BASE_URL at the scripted
           model, a dummy GEMINI_API_KEY, and mcpServers.hindsight in the user's settings.json
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claude_code import NODE_BIN
from mcp_client import server_command
from model_stub import Script, ScriptedModel

CODEX = NODE_BIN / "codex"
GEMINI = NODE_BIN / "gemini"
ROOT = Path(__file__).resolve().parents[1]


def runs(program: Path) -> bool:
    if not program.exists():
        return False
    done = subprocess.run([str(program), "--version"], capture_output=True, text=True, timeout=120)
    return done.returncode == 0


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    calls: list[dict[str, Any]]  # the tool results the model saw (model_stub.calls)

    def result(self, i: int = -1) -> dict[str, Any]:
        """The JSON object in the i-th tool result's text (clients wrap it in their own words)."""
        shown = self.calls[i]["text"]
        return json.loads(shown[shown.index("{") : shown.rindex("}") + 1])


def mcp_config(client: str, server_env: dict[str, str], cwd: Path) -> str:
    """What `hindsight mcp-config --client CLIENT` prints for this database."""
    env = {**os.environ, **server_env}
    done = subprocess.run(
        [str(Path(server_command()).parent / "hindsight"), "mcp-config", "--client", client],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


class Agent:
    def __init__(self, home: Path, model: ScriptedModel, server_env: dict[str, str]):
        self.home = home
        self.model = model
        self.server_env = server_env
        home.mkdir(parents=True, exist_ok=True)

    def _env(self) -> dict[str, str]:
        scripts = str(Path(server_command()).parent)
        return {"HOME": str(self.home), "PATH": os.pathsep.join([scripts, str(NODE_BIN), "/usr/bin", "/bin"]),
                "LANG": os.environ.get("LANG", "C.UTF-8")}  # fmt: skip

    def _run(self, command: list[str], env: dict, cwd: Path, script: Script, timeout: float) -> Run:
        self.model.play(script)
        since = self.model.mark()
        done = subprocess.run(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)  # fmt: skip
        return Run(done.returncode, done.stdout, done.stderr, self.model.calls(since))


class Codex(Agent):
    """Codex CLI: a custom model provider at the scripted model, the server from mcp-config."""

    def configure(self, cwd: Path) -> Path:
        home = self.home / ".codex"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            "\n".join([
                'model = "scripted"',
                'model_provider = "scripted"',
                'approval_policy = "never"',
                'sandbox_mode = "danger-full-access"',
                "check_for_update_on_startup = false",
                "[analytics]\nenabled = false",
                "[features]\nplugins = false\napps = false",
                "[model_providers.scripted]",
                'name = "Scripted model"',
                f'base_url = "{self.model.url}/v1"',
                'wire_api = "responses"',
                'env_key = "SCRIPTED_MODEL_KEY"',
                "request_max_retries = 0\nstream_max_retries = 0\nsupports_websockets = false",
                "",
                mcp_config("codex", self.server_env, cwd),
            ])
        )  # fmt: skip
        return home / "config.toml"

    def run(self, prompt: str, cwd: Path, script: Script, timeout: float = 300) -> Run:
        env = {**self._env(), "CODEX_HOME": str(self.home / ".codex"), "SCRIPTED_MODEL_KEY": "scripted"}
        command = [str(CODEX), "exec", "--strict-config", "--skip-git-repo-check", "--json", prompt]
        return self._run(command, env, cwd, script, timeout)


class Gemini(Agent):
    """Gemini CLI: GOOGLE_GEMINI_BASE_URL at the scripted model, the server from mcp-config."""

    def configure(self, cwd: Path) -> Path:
        folder = self.home / ".gemini"
        folder.mkdir(exist_ok=True)
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "model": {"name": "gemini-2.5-flash"},
            **json.loads(mcp_config("gemini", self.server_env, cwd)),
        }
        (folder / "settings.json").write_text(json.dumps(settings, indent=2))
        return folder / "settings.json"

    def run(self, prompt: str, cwd: Path, script: Script, timeout: float = 300) -> Run:
        env = {**self._env(), "GEMINI_CLI_HOME": str(self.home), "GEMINI_API_KEY": "scripted",
               "GOOGLE_GEMINI_BASE_URL": self.model.url}  # fmt: skip
        command = [str(GEMINI), "-p", prompt, "--output-format", "json", "--approval-mode", "yolo"]
        return self._run(command, env, cwd, script, timeout)


def show(run: Run, label: str) -> None:
    for call in run.calls:
        print(
            f"  {label}: model -> {call['name']}({json.dumps(call['input'], ensure_ascii=False)[:160]})",
            file=sys.stderr,
        )
        print(f"  {label}: model <- {call['text'][:300]!r}", file=sys.stderr)
