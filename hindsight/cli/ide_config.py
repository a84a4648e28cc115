"""`hindsight mcp-config`: the JSON an IDE needs to launch the server on the same database
and embedder as the command line that printed it.

An IDE starts the server with the environment written in its config, not the shell's: so
every setting that selects the database (HINDSIGHT_HOME, or HINDSIGHT_DATABASE_URL) or
changes what is written (the embedder, the dedup thresholds) goes into `env`. Secret
values never do: the encryption key and the embedding API key are left for the user to
provide (VS Code prompts for them and keeps them in its secret storage; Claude Code
expands ${VAR} from its own environment; Claude Desktop and Cursor take literal values,
which the user adds by hand; Codex forwards variables named in `env_vars`; Gemini CLI
expands $VAR in its settings).

The open project: VS Code and Cursor expand ${workspaceFolder} in their configs, so the
server gets HINDSIGHT_PROJECT_DIR from them; Claude Code sets CLAUDE_PROJECT_DIR itself and
starts the server in the project, Codex starts it in the project, and Gemini CLI answers
roots/list: nothing to add for those.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import urlsplit

from ..config import Settings

SECRETS = {
    "HINDSIGHT_ENCRYPTION_KEY": "seals secrets at rest and reveals them; without it they are redacted",
    "HINDSIGHT_EMBED_API_KEY": "the embedding endpoint's API key",
    "PGPASSWORD": "the database password",
}
PASSED_AS_SET = (
    "HINDSIGHT_EMBEDDER",
    "HINDSIGHT_EMBED_URL",
    "HINDSIGHT_EMBED_MODEL",
    "HINDSIGHT_EMBED_INPUT_TYPE",
    "HINDSIGHT_DEDUP_THRESHOLD",
    "HINDSIGHT_CONFLICT_THRESHOLD",
)


def server_env(settings: Settings, environ: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """(the env block without secrets, the names of secrets set here that the server needs)."""
    environ = os.environ if environ is None else environ
    env = {"HINDSIGHT_AGENT_ID": settings.agent_id}
    if settings.database_url:
        env["HINDSIGHT_DATABASE_URL"] = settings.database_url
    else:
        env["HINDSIGHT_HOME"] = str(settings.home.expanduser().resolve())
    for name in PASSED_AS_SET:
        if environ.get(name):
            env[name] = environ[name]
    secrets = [name for name in SECRETS if environ.get(name)]
    return env, secrets


CLIENTS = ("claude-desktop", "cursor", "vscode", "claude-code", "codex", "gemini")
WORKSPACE = {"vscode": "${workspaceFolder}", "cursor": "${workspaceFolder}"}  # the client's own project variable


def config_for(
    client: str, command: str, settings: Settings, environ: dict[str, str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """(the config for `client`, as JSON, or for codex a dict that `toml_for` writes; notes for
    the user on stderr)."""
    env, secrets = server_env(settings, environ)
    if client in WORKSPACE:
        env["HINDSIGHT_PROJECT_DIR"] = WORKSPACE[client]
    server: dict[str, Any] = {"command": command, "args": [], "env": env}
    notes = []
    if settings.database_url and urlsplit(settings.database_url).password:
        notes.append("the config holds HINDSIGHT_DATABASE_URL with its password: keep the file private")
    if client == "codex":
        if secrets:
            server["env_vars"] = secrets  # forwarded from the environment Codex runs in
            notes.append(f"{', '.join(secrets)} is forwarded from the environment Codex runs in: export it there")
        # Codex sends its first model request without waiting for an optional server's tools
        # (about 1.5 s here): required, it waits, and a server that cannot start is an error
        server["required"] = True
        server["startup_timeout_sec"] = 60
        return {"mcp_servers": {"hindsight": server}}, notes
    if client == "gemini":
        for name in secrets:
            env[name] = f"${name}"  # expanded by Gemini CLI from its environment
        if secrets:
            notes.append(f"{', '.join(secrets)} is read from the environment Gemini CLI runs in ($NAME): export it")
        server["timeout"] = 120000  # ms a tool call may take (the first waits for the database to start)
        return {"mcpServers": {"hindsight": server}}, notes
    if client == "vscode":
        inputs = []
        for name in secrets:
            ident = name.lower().replace("_", "-")
            inputs.append(
                {"type": "promptString", "id": ident, "description": f"{name}: {SECRETS[name]}", "password": True}
            )
            env[name] = f"${{input:{ident}}}"
        config: dict[str, Any] = {"servers": {"hindsight": {"type": "stdio", **server}}}
        if inputs:
            config = {"inputs": inputs, **config}
            notes.append(
                f"VS Code will ask for {', '.join(secrets)} when it starts the server "
                "and keep the answer in its secret storage"
            )
        return config, notes
    if client == "claude-code":
        for name in secrets:
            env[name] = f"${{{name}}}"  # expanded by Claude Code from its environment
        if secrets:
            notes.append(
                f"{', '.join(secrets)} is read from the environment Claude Code runs in "
                f"(${{NAME}} in .mcp.json): export it there"
            )
        return {"mcpServers": {"hindsight": {"type": "stdio", **server}}}, notes
    for name in secrets:  # claude-desktop, cursor: literal values only
        notes.append(
            f"{name} is set here but not written into the config ({SECRETS[name]}): add "
            f'"{name}": "<its value>" to the env block yourself'
        )
    return {"mcpServers": {"hindsight": server}}, notes


def entry_of(config: dict[str, Any]) -> dict[str, Any]:
    """The server's own entry in a config (what `claude mcp add-json` takes)."""
    servers = config.get("mcpServers") or config.get("servers") or config.get("mcp_servers")
    return servers["hindsight"]


def toml_for(config: dict[str, Any]) -> str:
    """Codex's config.toml block for the server."""
    server = config["mcp_servers"]["hindsight"]
    lines = ["[mcp_servers.hindsight]"]
    for key, value in server.items():
        if isinstance(value, dict):
            value = "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items()) + " }"
        else:
            value = json.dumps(value)
        lines.append(f"{key} = {value}")
    return "\n".join(lines) + "\n"
