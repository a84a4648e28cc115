"""The stdio MCP server: tools, resources and a prompt over the memory services.

Migrations run before the event loop starts; the services (hindsight.services.serving)
are opened once in the lifespan and reach the tools through `ctx`. The parts: params (the
parameter types), tools, resources, guidance (instructions and the prompt), boundary
(failures as MCP errors), arguments (strict tool arguments), stdio (the transport).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
from typing import Any, AsyncIterator

from mcp.server.mcpserver import MCPServer

from .. import logs, services, version
from ..config import Settings
from ..data import bootstrap
from ..data import pg_embedded as embedded
from ..errors import HindsightError
from . import protocol, resources
from .arguments import strict_tool
from .boundary import HindsightServer
from .guidance import INSTRUCTIONS, memory_guidance
from .roots import OpenProjects
from .tools import DESCRIBED, TOOLS

log = logging.getLogger("hindsight.server")


def build(settings: Settings, url: str, *, roots: bool = True) -> MCPServer:
    """The server; `roots`: ask the client for its roots (stdio: one client per process;
    stateless HTTP has no back-channel, and its clients name their project per call)."""
    running: dict[str, services.Services] = {}  # the services while the lifespan runs, for the listed resources

    @contextlib.asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[services.Services]:
        async with services.serving(settings, url) as opened:
            running["services"] = opened
            try:
                yield opened
            finally:
                running.pop("services", None)

    mcp = HindsightServer(
        "hindsight",
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level=settings.log_level,
        tools=[strict_tool(fn, *DESCRIBED[fn.__name__]) for fn in TOOLS],
        version=version(),
    )
    mcp.open_projects = OpenProjects(settings.project)
    if roots:
        mcp.open_projects.register(mcp)
    mcp.running = running
    resources.register(mcp, settings.agent_id, running)
    protocol.register(mcp, settings)
    mcp.prompt(
        name="memory_guidance",
        title="When to recall and when to store",
        description=("Instructions for using hindsight's memory tools well (language: en or zh)"),
    )(memory_guidance)
    return mcp


def serve_http(mcp: MCPServer, settings: Settings, host: str, port: int, names: tuple[str, ...] = ()) -> None:
    import uvicorn

    from . import http

    if host not in http.LOOPBACK:
        log.warning("hindsight: listening on %s: put TLS in front of it (tokens travel in every request)", host)
    log.info("hindsight serving streamable HTTP on http://%s:%d/mcp (embedder %s)", host, port, settings.embedder)
    app = http.app(mcp, mcp.running, host, port, names)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")


def _stop_on_signal(signum: int, _frame: Any) -> None:
    """SIGTERM / SIGINT: release the embedded database and exit at once. (An orderly
    shutdown of the event loop would wait forever on the thread blocked reading stdin.)
    Open transactions are rolled back by PostgreSQL when the connections drop."""
    log.info("hindsight-server: %s, stopping", signal.Signals(signum).name)
    try:
        embedded.release()
    finally:
        sys.stderr.flush()
        os._exit(0)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """`--help` and `--version` answer and exit before anything starts (no database is
    created); the server itself takes no arguments: it is configured by the environment."""
    from .. import version

    p = argparse.ArgumentParser(
        prog="hindsight-server",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the lines below as written
        description=(
            "hindsight's MCP server on stdio (an IDE launches it and speaks MCP on its\n"
            "stdin/stdout), or with --transport streamable-http a team's server at /mcp\n"
            "(docs/team.md). Configured by the environment: HINDSIGHT_HOME or\n"
            "HINDSIGHT_DATABASE_URL (the database), HINDSIGHT_AGENT_ID,\n"
            "HINDSIGHT_ALLOWED_AGENTS, HINDSIGHT_EMBEDDER, HINDSIGHT_ENCRYPTION_KEY,\n"
            "HINDSIGHT_TIMEZONE, HINDSIGHT_PROJECT, HINDSIGHT_LOG_LEVEL.\n"
            "`hindsight mcp-config` prints an IDE's configuration."
        ),
    )
    p.add_argument("--version", action="version", version=f"hindsight-server {version()}")
    p.add_argument(
        "--transport",
        choices=("stdio", "streamable-http"),
        default="stdio",
        help="stdio (the default: an IDE launches the server) or streamable-http (a team's server at /mcp; "
        "every request needs a bearer token from `hindsight token create`)",
    )
    p.add_argument("--host", default="127.0.0.1", help="streamable-http: the address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="streamable-http: the port (default 8765)")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="streamable-http: a host name clients reach the server by (a load balancer's; repeatable); "
        "requests for any other Host are refused",
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = arguments(argv)
    logs.setup()  # stderr only; secrets redacted from every record
    signal.signal(signal.SIGTERM, _stop_on_signal)
    signal.signal(signal.SIGINT, _stop_on_signal)
    try:
        settings = Settings.from_env()
        logs.setup(settings.log_level)
        with contextlib.redirect_stdout(sys.stderr):  # nothing but MCP on stdout
            url = bootstrap.prepare(settings, check_role=True)
        if args.transport == "streamable-http":
            serve_http(build(settings, url, roots=False), settings, args.host, args.port, tuple(args.allow_host))
            return
        server = build(settings, url)
        log.info("hindsight serving on stdio (agent %s, embedder %s)", settings.agent_id, settings.embedder)
        server.run("stdio")
    except HindsightError as exc:
        print(f"hindsight-server: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
