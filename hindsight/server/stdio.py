"""The stdio transport: one JSON-RPC message a line, UTF-8, as the MCP SDK frames it — and an
answer for every line.

The SDK's transport logs and drops a line it cannot use, and the client waits forever. Here
such a line gets a JSON-RPC error: -32700 when it is not UTF-8 or not JSON; -32600 when it is
JSON but not something we take (not one object, a lone surrogate, nested deeper than
MAX_DEPTH, longer than MAX_LINE, not JSON-RPC), with the request's id when it has one. A
leading byte-order mark is dropped. The lines come from the front door (front.py), which
reads the wire from the process's start and may have answered the opening request already.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any, AsyncIterator

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from mcp_types import INVALID_REQUEST, PARSE_ERROR
from pydantic import ValidationError

from .front import BOM, MAX_LINE, OVERLONG, Front

MAX_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


def _error(request_id: Any, code: int, message: str) -> SessionMessage:
    return SessionMessage(
        types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _problem(message: dict) -> str | None:
    """Why a parsed message cannot be taken, or None. Iterative: depth is what it checks."""
    stack: list[tuple[Any, int]] = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the message is nested deeper than {MAX_DEPTH} levels"
        if isinstance(value, str) and _SURROGATE.search(value):
            return "a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is not Unicode text"
        if isinstance(value, dict):
            stack += [(k, depth) for k in value] + [(item, depth + 1) for item in value.values()]
        elif isinstance(value, list):
            stack += [(item, depth + 1) for item in value]
    return None


def _request_id(message: Any) -> Any:
    rid = message.get("id") if isinstance(message, dict) else None
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def parse(line: bytes) -> tuple[types.JSONRPCMessage | None, SessionMessage | None]:
    """(message, None) for a line to serve; (None, error reply) for one that cannot be served;
    (None, None) for a blank line."""
    line = line.rstrip(b"\r\n")
    if line.startswith(BOM):
        line = line[len(BOM) :]
    if not line.strip():
        return None, None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None, _error(None, PARSE_ERROR, "Parse error: the line is not UTF-8 text")
    try:
        message = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return None, _error(None, INVALID_REQUEST, f"Invalid Request: nested deeper than {MAX_DEPTH} levels")
    except ValueError as exc:
        return None, _error(None, PARSE_ERROR, f"Parse error: not JSON ({exc})")
    if not isinstance(message, dict):
        return None, _error(None, INVALID_REQUEST, "Invalid Request: a message is one JSON object (no batches)")
    if "method" in message and "id" in message and _request_id(message) is None:
        return None, _error(None, INVALID_REQUEST, "Invalid Request: a request's id is a string or a number")
    problem = _problem(message)
    if problem:
        return None, _error(_request_id(message), INVALID_REQUEST, f"Invalid Request: {problem}")
    try:
        return types.jsonrpc_message_adapter.validate_python(message), None
    except ValidationError:
        return None, _error(
            _request_id(message),
            INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
        )


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
