"""The MCP server itself: the tools, resources and prompt over the services, which open in
the lifespan (services.opening) and reach the tools through `ctx`; and the two ways to serve
it. Imported once the front door (front.py) is already answering: this is where the MCP SDK
and the rest of hindsight are loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import sys
from typing import Any, AsyncIterator

from mcp.server.mcpserver import MCPServer

from .. import services, version
from ..config import Settings
from . import hook_socket, hook_tool, protocol, resources
from .arguments import strict_tool
from .boundary import HindsightServer
from .front import Front
from .guidance import INSTRUCTIONS, memory_guidance
from .roots import OpenProjects
from .tools import DESCRIBED, TOOLS

log = logging.getLogger("hindsight.server")


def build(
    settings: Settings,
    url: str | None = None,
    *,
    roots: bool = True,
    launch_dir: str | None = None,
    started_db: Any = None,
) -> MCPServer:
    """The server. `url`: a database already prepared (the HTTP server prepares it before it
    listens); None: prepared in the background while the server answers (stdio). `roots`: ask
    a client of the handshake era for its roots (stdio: one client per process; stateless HTTP
    has no back-channel, and its clients name their project per call). `launch_dir`: the
    folder the client started the server in (stdio), a source of the open project.
    `started_db`: the database's start, already under way (services.start_early)."""

    @contextlib.asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[services.Opening]:
        async with services.opening(settings, url, wait=url is not None, started_db=started_db) as opened:
            mcp.opening = opened
            recording = asyncio.ensure_future(mcp.open_projects.record_folder(opened))
            socket = hook_socket.listening(opened, _open_now) if roots else contextlib.nullcontext()
            try:
                async with socket:  # command hooks (hindsight-hook) reach this server there
                    yield opened
            finally:
                recording.cancel()
                mcp.opening = None

    async def _open_now() -> str | None:
        return next(iter(mcp.open_projects.known()), None)

    mcp = HindsightServer(
        "hindsight",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level=settings.log_level,
        tools=[strict_tool(fn, *DESCRIBED[fn.__name__]) for fn in (*TOOLS, hook_tool.hook)],
        version=version(),
    )
    mcp.local = roots  # stdio: beside the client, on its machine (the hooks may read its transcripts)
    mcp.open_projects = OpenProjects.of_session(settings, launch_dir if roots else None)
    if roots:
        mcp.open_projects.register(mcp)
    resources.register(mcp, settings.agent_id)
    protocol.register(mcp, settings)
    mcp.prompt(
        name="memory_guidance",
        title="When to recall and when to store",
        description=("Instructions for using hindsight's memory tools well (language: en or zh)"),
    )(memory_guidance)
    return mcp


def serve_stdio(front: Front, settings: Settings, launch_dir: str, started_db: Any = None) -> None:
    """Serve the client on the front door's wire until it leaves."""
    server = build(settings, launch_dir=launch_dir, started_db=started_db)
    server.front = front
    log.info("hindsight serving on stdio (agent %s, embedder %s)", settings.agent_id, settings.embedder)
    server.run("stdio")


def serve_http(settings: Settings, host: str, port: int, names: tuple[str, ...] = ()) -> None:
    import uvicorn

    from . import deadlines, http

    with contextlib.redirect_stdout(sys.stderr):  # nothing but MCP on stdout
        url = services.prepare(settings, check_role=True)
    # many clients: the environment's session and project folder are nobody's
    settings = dataclasses.replace(settings, session_id=None, project_dir=None)
    mcp = build(settings, url, roots=False)
    if host not in http.LOOPBACK:
        log.warning("hindsight: listening on %s: put TLS in front of it (tokens travel in every request)", host)
    log.info("hindsight serving streamable HTTP on http://%s:%d/mcp (embedder %s)", host, port, settings.embedder)
    app = http.app(mcp, host, port, names, settings.http_read_timeout)
    protocol = deadlines.protocol(settings.http_read_timeout)  # a request's headers within the deadline
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on", http=protocol)
