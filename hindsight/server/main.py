"""`hindsight-server`: the entry point. It imports little on purpose: on stdio the front door
(front.py) takes the wire and answers the client's opening request within a fraction of a
second, and only then are the MCP SDK and the server (app.py) loaded; the database, the
embedder and recall's lexicon open in the background after that (services.opening), and a
call that comes first waits for them. SIGINT and SIGTERM end the process at once.

The parts: app (the server and the two ways to serve it), front and handshake (the wire and
the opening answer), params (the parameter types), tools, resources, guidance (instructions
and the prompt), boundary (failures as MCP errors), arguments (strict tool arguments), stdio
(the transport), roots (the open project).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

from .. import logs, version
from ..config import Settings
from ..errors import HindsightError
from . import front, handshake
from .guidance import INSTRUCTIONS

log = logging.getLogger("hindsight.server")


def _stop_on_signal(signum: int, _frame: Any) -> None:
    """SIGTERM / SIGINT: give up the embedded database and exit at once — Claude Code waits
    100 ms after SIGINT before it escalates. An orderly shutdown would wait on the thread
    blocked reading stdin. Nothing is left half done: a write is one transaction, and
    PostgreSQL rolls back whatever a dropped connection had open; a last holder of the
    embedded database asks it to stop without waiting for it."""
    log.info("hindsight-server: %s, stopping", signal.Signals(signum).name)
    try:
        from ..data import pg_embedded as embedded

        embedded.release(wait=False)
    finally:
        sys.stderr.flush()
        os._exit(0)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    """`--help` and `--version` answer and exit before anything starts (no database is
    created); the server itself takes no arguments: it is configured by the environment."""
    p = argparse.ArgumentParser(
        prog="hindsight-server",
        formatter_class=argparse.RawDescriptionHelpFormatter,  # the lines below as written
        description=(
            "hindsight's MCP server on stdio (an IDE launches it and speaks MCP on its\n"
            "stdin/stdout), or with --transport streamable-http a team's server at /mcp\n"
            "(docs/team.md). Configured by the environment: HINDSIGHT_HOME or\n"
            "HINDSIGHT_DATABASE_URL (the database), HINDSIGHT_AGENT_ID,\n"
            "HINDSIGHT_ALLOWED_AGENTS, HINDSIGHT_EMBEDDER, HINDSIGHT_ENCRYPTION_KEY,\n"
            "HINDSIGHT_TIMEZONE, HINDSIGHT_PROJECT_DIR, HINDSIGHT_PROJECT,\n"
            "HINDSIGHT_LOG_LEVEL; for streamable-http HINDSIGHT_HTTP_READ_TIMEOUT.\n"
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
        if args.transport == "streamable-http":
            from .app import serve_http

            serve_http(settings, args.host, args.port, tuple(args.allow_host))
            return
        door = front.Front(handshake.Door("hindsight", version(), INSTRUCTIONS))
        from ..services import start_early

        started_db = start_early(settings)  # PostgreSQL starts on the other core meanwhile
        from .app import serve_stdio  # the MCP SDK and the rest: about a second, while the door answers

        serve_stdio(door, settings, os.getcwd(), started_db)
    except Exception as exc:
        known = _known(exc)
        if known is None:
            raise
        print(f"hindsight-server: error: {known}", file=sys.stderr)
        raise SystemExit(2) from None


def _known(exc: BaseException) -> HindsightError | None:
    """The HindsightError in `exc`, also inside the exception groups of the SDK's task groups."""
    if isinstance(exc, HindsightError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        if (found := _known(inner)) is not None:
            return found
    return None
