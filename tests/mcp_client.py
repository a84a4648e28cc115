"""Drive `hindsight-server` as a subprocess with the MCP SDK's own stdio client."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, AsyncIterator

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

# Where servers are started unless a test says otherwise: a folder in no git checkout, so
# that no project comes from the launch folder (the tests run inside this repository's).
LAUNCH_DIR = tempfile.mkdtemp(prefix="hindsight-launch-")


def server_command() -> str:
    beside = Path(sys.executable).parent / "hindsight-server"
    found = str(beside) if beside.exists() else shutil.which("hindsight-server")
    assert found, "hindsight-server is not installed (pip install -e .)"
    return found


def server_env(**extra: str) -> dict[str, str]:
    env = {"OMP_NUM_THREADS": "1", "HINDSIGHT_LOG_LEVEL": "WARNING"}
    for key in ("PATH", "HOME", "LANG", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if key in os.environ:
            env[key] = os.environ[key]
    env.update(extra)
    return env


class Client:
    def __init__(self, session: ClientSession):
        self.session = session

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """Call a tool that must succeed; return its structured result."""
        result = await self.session.call_tool(tool, arguments)
        assert not result.is_error, f"{tool} failed: {result.content[0].text}"
        if result.structured_content is not None:
            return result.structured_content
        return json.loads(result.content[0].text)

    async def error(self, tool: str, **arguments: Any) -> str:
        """Call a tool that must fail; return the error text."""
        result = await self.session.call_tool(tool, arguments)
        assert result.is_error, f"{tool} unexpectedly succeeded: {result.structured_content}"
        return result.content[0].text


def roots_callback(roots: list[str], asked: list[int] | None = None):
    """A list_roots_callback answering with the URIs in `roots` as they are when asked (a
    test may change the list, then send roots/list_changed); counts the requests in `asked`."""
    from mcp.types import ListRootsResult, Root

    async def list_roots(_context):
        if asked is not None:
            asked.append(1)
        return ListRootsResult(roots=[Root(uri=uri, name=uri.rstrip("/").rsplit("/", 1)[-1]) for uri in roots])

    return list_roots


@contextlib.asynccontextmanager
async def mcp_client(
    env: dict[str, str], errlog=None, list_roots=None, cwd: str | None = None
) -> AsyncIterator[Client]:
    """A client of a fresh server process; `list_roots` (see roots_callback): it declares
    roots; `cwd`: the folder it is started in (default LAUNCH_DIR)."""
    params = StdioServerParameters(command=server_command(), env=env, cwd=cwd or LAUNCH_DIR)
    errlog = errlog or sys.stderr
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots) as session:
            await session.initialize()
            yield Client(session)
