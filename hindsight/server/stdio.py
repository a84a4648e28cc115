"""The stdio transport: one JSON-RPC message a line, UTF-8, as the MCP SDK frames it — and an
answer for every line.

The SDK's transport logs and drops a line it cannot use, and the client waits forever. Here
such a line gets a JSON-RPC error (messages.check): -32700 when it is not UTF-8 or not JSON;
-32600 when it is JSON but not something we take (not one object, a lone surrogate, nested
deeper than messages.MAX_DEPTH, longer than MAX_LINE, not JSON-RPC), with the request's id
when it has one. A leading byte-order mark is dropped. The lines come from the front door
(front.py), which reads the wire from the process's start and may have answered the opening
request already.
"""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST

from . import messages
from .front import BOM, MAX_LINE, OVERLONG, Front


def _error(request_id: Any, code: int, message: str) -> SessionMessage:
    return SessionMessage(
        types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    )


def parse(line: bytes) -> tuple[types.JSONRPCMessage | None, SessionMessage | None]:
    """(message, None) for a line to serve; (None, error reply) for one that cannot be served;
    (None, None) for a blank line. The rules are messages.check's, the HTTP transport's too."""
    line = line.rstrip(b"\r\n")
    if line.startswith(BOM):
        line = line[len(BOM) :]
    message, refusal = messages.check(line, "line")
    return message, (SessionMessage(refusal.error()) if refusal else None)


@contextlib.asynccontextmanager
async def serve(front: Front) -> AsyncIterator[tuple[Any, Any]]:
    """(read_stream, write_stream) for the SDK's low-level server, over the front door's wire
    (front.py: the lines it read, the opening request perhaps answered already)."""
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    replies = write_send.clone()

    async def reader() -> None:
        front.handover()
        async with read_send, replies:
            # abandon_on_cancel: at shutdown the thread may stay waiting for a line; it holds nothing
            while (line := await anyio.to_thread.run_sync(front.lines.get, abandon_on_cancel=True)) is not None:
                if line is OVERLONG:
                    await replies.send(_error(None, INVALID_REQUEST, f"Invalid Request: longer than {MAX_LINE} bytes"))
                    continue
                message, error = parse(line)
                if message is not None:
                    await read_send.send(SessionMessage(message))
                elif error is not None:
                    await replies.send(error)

    async def writer() -> None:
        async with write_recv:
            async for item in write_recv:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                if front.answered(data):
                    continue
                await anyio.to_thread.run_sync(front.write, data)

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            yield read_recv, write_send
    finally:
        front.close()
