"""Slow clients over HTTP. uvicorn bounds the size of what it buffers, not the time: a request
whose headers or body never finish arriving would hold its connection open for ever. Here a
request's headers are due within `seconds` of the connection opening (or of the previous
answer on it: keep-alive), and its body within `seconds` of its headers; one that is late
is answered 408 and its connection closed. No worker waits meanwhile: one event loop serves
every connection, so other requests are answered while one dribbles.

    protocol(seconds)      the uvicorn HTTP/1.1 protocol with the headers' deadline
    read_body(...)         a request's body, within the deadline and a size bound, or Unread
    replay(body, receive)  the body read, handed on to the MCP transport as if unread
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable

from mcp_types import INVALID_REQUEST
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..config import HTTP_READ_TIMEOUT
from .messages import Refusal

log = logging.getLogger("hindsight.server")

Receive = Callable[[], Awaitable[dict]]


def timeout_text(what: str, seconds: float) -> str:
    return f"Request Timeout: the request's {what} did not arrive within {seconds:g} s; the connection is closed"


class HeaderDeadline(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose next request's headers are not all
    there `seconds` after the connection opened or its previous answer was sent."""

    seconds: float = HTTP_READ_TIMEOUT
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        self._arm()  # before uvicorn reads a pipelined request: its headers may be there already
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(self.seconds, self._expired, self.cycle)

    def _expired(self, awaited: Any) -> None:
        """Still the cycle of the previous request (or none): the next one's headers are late."""
        if self.cycle is not awaited or self.transport.is_closing():
            return
        client = (self.client or ("?", 0))[0]
        log.warning("closed a connection from %s: a request's headers did not arrive within %g s", client, self.seconds)
        body = Refusal(None, INVALID_REQUEST, timeout_text("headers", self.seconds)).json().encode()
        head = f"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        self.transport.write(head.encode() + b"connection: close\r\n\r\n" + body)
        self.transport.close()


def protocol(seconds: float) -> type[HeaderDeadline]:
    """The protocol class for uvicorn's `http=`, with this server's deadline."""
    return type("HeaderDeadline", (HeaderDeadline,), {"seconds": seconds})


class Unread(Exception):
    """A body that could not be read: `status` 408 (late) or 413 (too large), and why."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


async def read_body(scope: dict, receive: Receive, limit: int, seconds: float) -> bytes | None:
    """The request's body, all of it within `seconds` and at most `limit` bytes; None when the
    client left first."""
    too_large = Unread(413, f"Request body too large: at most {limit} bytes")
    declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
    if declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks, size = [], 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return None
                chunks.append(message.get("body", b""))
                size += len(chunks[-1])
                if size > limit:
                    raise too_large
                if not message.get("more_body", False):
                    return b"".join(chunks)
    except TimeoutError:
        client = (scope.get("client") or ("?", 0))[0]
        log.warning("closed a request from %s: its body did not arrive within %g s", client, seconds)
        raise Unread(408, timeout_text("body", seconds)) from None


def replay(body: bytes, receive: Receive) -> Receive:
    """`receive` for the next app: the body read, then what the client sends (its leaving)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> dict:
        return pending.pop() if pending else await receive()

    return again
