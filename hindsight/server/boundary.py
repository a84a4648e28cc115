"""The boundary: `HindsightServer` turns whatever a call raises into what a client should
see: a HindsightError's message, a refused argument in our words, and for anything
unexpected a generic message with a reference to the full detail in the stderr log."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError, UnexpectedToolError
from mcp.server.runner import serve_dual_era_loop
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError

from ..errors import HindsightError
from ..services import vocabulary as v
from . import stdio
from .arguments import explain

log = logging.getLogger("hindsight.server")


def _internal(what: str, exc: BaseException) -> str:
    """Log an unexpected failure in full; the client gets a reference, not the detail."""
    ref = uuid.uuid4().hex[:8]
    log.error("%s failed unexpectedly (ref %s)", what, ref, exc_info=exc)
    return f"{what} failed because of an internal error in hindsight (ref {ref} in the server's log)"


class HindsightServer(MCPServer):
    """MCPServer whose tools, resources and prompts answer every failure cleanly, and
    whose stdio transport answers every line it reads (hindsight.server.stdio)."""

    open_projects: Any = None  # hindsight.server.roots.OpenProjects, set by app.build
    opening: Any = None  # services.Opening while the lifespan runs (its .services once open)
    front: Any = None  # front.Front on stdio, set by app.serve_stdio

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Context | None = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError):
                raise ToolError(explain(self._tool(name), cause)) from None
            if isinstance(cause, HindsightError):
                raise ToolError(str(cause)) from None
            if isinstance(exc, UnexpectedToolError):
                raise ToolError(_internal(name, cause or exc)) from None
            raise

    def _tool(self, name: str):
        return self._tool_manager.get_tool(name)

    async def read_resource(self, uri: Any, context: Context | None = None) -> Any:
        try:
            return await super().read_resource(uri, context)
        except MCPError:
            raise
        except ResourceNotFoundError:
            raise MCPError(
                INVALID_PARAMS, "uri: no such resource; read memory://{agent_id}/profile or memory://{agent_id}/recent"
            ) from None
        except Exception as exc:
            cause = exc.__cause__
            if isinstance(cause, HindsightError):
                raise MCPError(INVALID_PARAMS, str(cause)) from None
            raise MCPError(INTERNAL_ERROR, _internal("reading a resource", cause or exc)) from None

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Context | None = None
    ) -> Any:
        prompt = self._prompt_manager.get_prompt(name)
        if prompt is None:
            raise MCPError(INVALID_PARAMS, f"name: no prompt {v.shown(name)}; the prompt is memory_guidance")
        known = [a.name for a in prompt.arguments or ()]
        unknown = [k for k in arguments or {} if k not in known]
        if unknown:
            raise MCPError(
                INVALID_PARAMS,
                f"{', '.join(v.shown(k) for k in unknown)}: not an argument of {name}; "
                f"its arguments are {', '.join(known)}",
            )
        try:
            return await super().get_prompt(name, arguments, context)
        except MCPError:
            raise
        except Exception as exc:
            chain = [exc.__cause__, getattr(exc.__cause__, "__cause__", None)]
            known = next((c for c in chain if isinstance(c, HindsightError)), None)
            if known is not None:
                raise MCPError(INVALID_PARAMS, str(known)) from None
            raise MCPError(INTERNAL_ERROR, _internal(f"prompt {name}", exc)) from None

    async def run_stdio_async(self) -> None:
        """The SDK's `Server.run` (the lifespan around its dual-era loop) on the front door's
        wire, ended by a failure to open the services: the calls waiting are told why, and
        the lifespan raises it (the process exits 2, as it did when nothing had started)."""
        server = self._lowlevel_server
        async with stdio.serve(self.front) as (read_stream, write_stream):
            async with server.lifespan(server) as opening:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_end_if_failed, opening, tg.cancel_scope)
                    await serve_dual_era_loop(
                        server,
                        read_stream,
                        write_stream,
                        lifespan_state=opening,
                        init_options=server.create_initialization_options(),
                    )
                    tg.cancel_scope.cancel()


FAILED_GRACE = 0.5  # seconds for the calls waiting on a failed start to be answered before the end


async def _end_if_failed(opening: Any, scope: anyio.CancelScope) -> None:
    await opening.settled()
    if opening.error is not None:
        await anyio.sleep(FAILED_GRACE)
        scope.cancel()
