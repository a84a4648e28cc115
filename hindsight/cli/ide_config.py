"""`hindsight mcp-config`: the JSON an IDE needs to launch the server on the same database
and embedder as the command line that printed it.

An IDE starts the server with the environment written in its config, not the shell's: so
every setting that selects the database (HINDSIGHT_HOME, or HINDSIGHT_DATABASE_URL) or
changes what is written (the embedder, the dedup thresholds) goes into `env`. Secret
values never do: the encryption key and the embedding API key are left for the user to
provide (VS Code prompts for them and keeps them in its secret storage; Claude Code
expands ${VAR} from its own environment; Claude Desktop and Cursor take literal values,
which the user adds by hand).
"""

from __future__ import annotations

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


def config_for(
    client: str, command: str, settings: Settings, environ: dict[str, str] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """(the config JSON for `client`, notes for the user on stderr)."""
    env, secrets = server_env(settings, environ)
    server: dict[str, Any] = {"command": command, "args": [], "env": env}
    notes = []
    if settings.database_url and urlsplit(settings.database_url).password:
        notes.append("the config holds HINDSIGHT_DATABASE_URL with its password: keep the file private")
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
