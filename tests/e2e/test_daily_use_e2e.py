"""What a newcomer does first, end to end with the installed scripts: fill a custom
HINDSIGHT_HOME from the CLI, paste `hindsight mcp-config` into an IDE, and find the same
memories from the server the config launches; the server's --help and --version; the
resources a client lists; a long tool output handed to record_interaction."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import anyio
from cryptography.fernet import Fernet
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_client import mcp_client, server_command, server_env

BIN = Path(sys.executable).parent


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "hindsight"), *args], capture_output=True, text=True, env=env, timeout=300)


async def test_the_server_mcp_config_names_finds_the_cli_memories(pg_tmp):
    home = pg_tmp / "my-memories"
    key = Fernet.generate_key().decode()
    shell = server_env(HINDSIGHT_HOME=str(home), HINDSIGHT_AGENT_ID="me", HINDSIGHT_ENCRYPTION_KEY=key)
    stored = await anyio.to_thread.run_sync(
        lambda: _run("store", "The user prefers polars over pandas", "--type", "semantic", env=shell)
    )
    assert stored.returncode == 0, stored.stderr
    config = await anyio.to_thread.run_sync(lambda: _run("mcp-config", "--client", "cursor", env=shell))
    assert config.returncode == 0, config.stderr
    assert key not in config.stdout and key not in config.stderr  # the key's value is never written
    assert "HINDSIGHT_ENCRYPTION_KEY is set here but not written" in config.stderr
    server = json.loads(config.stdout)["mcpServers"]["hindsight"]
    assert server["env"] == {
        "HINDSIGHT_AGENT_ID": "me",
        "HINDSIGHT_HOME": str(home.resolve()),
        "HINDSIGHT_PROJECT_DIR": "${workspaceFolder}",  # Cursor fills in the folder it has open
    }

    # An IDE launches exactly what the config says, with only the config's environment
    # (plus what any process has: PATH, HOME), its variables expanded.
    workspace = pg_tmp / "workspace"
    workspace.mkdir()
    ide_env = {
        **server_env(),
        **server["env"],
        "HINDSIGHT_ENCRYPTION_KEY": key,
        "HINDSIGHT_PROJECT_DIR": str(workspace),
    }
    params = StdioServerParameters(command=server["command"], args=server["args"], env=ide_env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        found = await session.call_tool("retrieve_memory", {"query": "which dataframe library?"})
        assert found.structured_content["memories"][0]["id"] == stored.stdout.strip()
        listed = await session.list_resources()
        assert {str(r.uri) for r in listed.resources} == {"memory://me/profile", "memory://me/recent"}
        profile = await session.read_resource("memory://me/profile")
        assert "- The user prefers polars over pandas" in profile.contents[0].text


async def test_mcp_config_carries_the_database_url_and_embedder(db_url):
    env = server_env(
        HINDSIGHT_DATABASE_URL=db_url,
        HINDSIGHT_AGENT_ID="a",
        HINDSIGHT_EMBEDDER="openai",
        HINDSIGHT_EMBED_URL="http://localhost:9/v1",
        HINDSIGHT_EMBED_MODEL="m",
        HINDSIGHT_EMBED_API_KEY="sk-test-not-a-real-key-0000000000",
    )
    for client in ("vscode", "claude-code", "claude-desktop", "gemini", "codex"):
        done = await anyio.to_thread.run_sync(lambda client=client: _run("mcp-config", "--client", client, env=env))
        assert done.returncode == 0, done.stderr
        assert "sk-test" not in done.stdout + done.stderr
        config = tomllib.loads(done.stdout) if client == "codex" else json.loads(done.stdout)
        block = (config.get("servers") or config.get("mcpServers") or config.get("mcp_servers"))["hindsight"]["env"]
        assert block["HINDSIGHT_DATABASE_URL"] == db_url and "HINDSIGHT_HOME" not in block
        assert (block["HINDSIGHT_EMBEDDER"], block["HINDSIGHT_EMBED_URL"], block["HINDSIGHT_EMBED_MODEL"]) == (
            "openai",
            "http://localhost:9/v1",
            "m",
        )
        if client == "vscode":  # VS Code asks for the key and keeps it in its secret storage
            assert block["HINDSIGHT_EMBED_API_KEY"] == "${input:hindsight-embed-api-key}"
            assert config["inputs"][0]["password"] is True
        elif client == "claude-code":  # expanded from the environment Claude Code runs in
            assert block["HINDSIGHT_EMBED_API_KEY"] == "${HINDSIGHT_EMBED_API_KEY}"
        elif client == "gemini":  # so is Gemini CLI's
            assert block["HINDSIGHT_EMBED_API_KEY"] == "$HINDSIGHT_EMBED_API_KEY"
        elif client == "codex":  # Codex forwards the variables env_vars names
            assert config["mcp_servers"]["hindsight"]["env_vars"] == ["HINDSIGHT_EMBED_API_KEY"]
            assert config["mcp_servers"]["hindsight"]["required"] is True and "HINDSIGHT_EMBED_API_KEY" not in block
        else:
            assert "HINDSIGHT_EMBED_API_KEY" not in block


def test_server_help_and_version_start_nothing(tmp_path):
    home = tmp_path / "never-created"
    env = server_env(HINDSIGHT_HOME=str(home))
    helped = subprocess.run([server_command(), "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert helped.returncode == 0 and "usage: hindsight-server" in helped.stdout
    assert "HINDSIGHT_DATABASE_URL" in helped.stdout and "mcp-config" in helped.stdout
    version = subprocess.run([server_command(), "--version"], capture_output=True, text=True, env=env, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("hindsight-server ")
    wrong = subprocess.run([server_command(), "--bind", "8000"], capture_output=True, text=True, env=env, timeout=60)
    assert wrong.returncode == 2 and "unrecognized arguments" in wrong.stderr
    bad = subprocess.run([server_command(), "--transport", "sse"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "invalid choice: 'sse'" in bad.stderr and "streamable-http" in bad.stderr
    assert not home.exists()


async def test_a_tool_output_over_32_kb_is_cut_not_refused(db_url):
    lines = [f"[{i:05d}] compiling module_{i}.py" for i in range(4000)]
    lines[2000] = "[02000] ERROR: module_2000.py: cannot import name 'Config' from 'settings'"
    output = "\n".join(lines)
    assert len(output.encode()) > 100_000
    async with mcp_client(server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="dev")) as c:
        answer = await c.call(
            "record_interaction",
            content="Built the project.",
            session_id="s1",
            tool_results=[{"tool": "make", "arguments": {"target": "all"}, "output": output}],
        )
        assert answer["stored"] and answer["memory_type"] == "working"
        assert len(answer["cut"]) == 1 and answer["cut"][0].startswith("tool_results[0].output: ")
        assert "head, tail and error lines kept" in answer["cut"][0]
        kept = (await c.call("get_memory", memory_id=answer["id"]))["content"]
    assert "[00000] compiling" in kept and "[03999] compiling" in kept
    assert "cannot import name 'Config'" in kept and "characters cut" in kept
