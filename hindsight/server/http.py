"""The streamable HTTP transport, for a team's server: `/mcp`, stateless (any replica answers
any request: no session affinity) with JSON responses, every request carrying a bearer token
(`hindsight token create`) that pins the agent it acts for (services.CALLER); `/healthz` for
load balancers. Only POST: a stateless server has no event stream to open (GET and DELETE
answer 405). A body is read within the deadline and MAX_BODY (deadlines.py), and must be one
JSON-RPC message (messages.py), else it gets a one-line JSON-RPC error with its id. The SDK
checks Host and Origin (DNS-rebinding protection); tools, arguments and errors are the stdio
server's own.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from typing import Any

from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import INVALID_REQUEST, PARSE_ERROR
from starlette.responses import JSONResponse, Response

from .. import services
from ..config import HTTP_READ_TIMEOUT
from . import deadlines, messages

log = logging.getLogger("hindsight.server")

HEALTH_SECONDS = 5
MAX_BODY = 4 * 1024 * 1024  # bytes of one request; a tool's largest argument is far below
PATH = "/mcp"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
REFUSAL = {"error": "unauthorized", "error_description": "send Authorization: Bearer <token> (hindsight token create)"}


def security(host: str, port: int, names: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """Host and Origin the server answers: loopback names on a loopback bind, else the host
    bound, plus the names clients use (--allow-host: a load balancer's, a compose service's);
    browsers' Origin only from those."""
    bound = LOOPBACK if host in LOOPBACK else (host,)
    hosts = [f"[{h}]:{port}" if ":" in h else f"{h}:{port}" for h in bound]  # an IPv6 address in brackets
    hosts += [f"{n}:{port}" for n in names] + list(names)  # behind a proxy on its default port, no port
    allowed = [f"http://{h}" for h in hosts] + [f"https://{h}" for h in hosts]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=allowed)


def app(
    mcp: Any, host: str, port: int, names: tuple[str, ...] = (), read_seconds: float = HTTP_READ_TIMEOUT
) -> "Guard":
    inner = mcp.streamable_http_app(
        streamable_http_path=PATH,
        json_response=True,
        stateless_http=True,
        transport_security=security(host, port, names),
        host=host,
        max_request_body_size=MAX_BODY,
    )
    return Guard(inner, mcp, read_seconds)


class Guard:
    """ASGI: /healthz answered here, and a method other than POST on /mcp; every other
    request needs a usable token, whose caller is set for the request (the tools'
    acting_for reads it), and on /mcp a body that is one JSON-RPC message."""

    def __init__(self, inner: Any, mcp: Any, read_seconds: float = HTTP_READ_TIMEOUT):
        self.inner = inner
        self.mcp = mcp  # its `opening` holds the services once they are open
        self.read_seconds = read_seconds  # for a request's body, once its headers are in

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # lifespan: the services open once for the process
            return await self.inner(scope, receive, send)
        s = getattr(self.mcp.opening, "services", None)
        if scope["path"] == "/healthz":
            return await _health(s, scope, receive, send)
        if scope["path"] == PATH and scope["method"] != "POST":
            return await _not_allowed(scope, receive, send)
        presented = _bearer(scope)
        caller = None
        if presented and s is not None:
            try:
                caller = await s.caller(presented, datetime.now(timezone.utc))
            except Exception as exc:
                log.warning("could not check a token: %s", exc)
                return await JSONResponse({"error": "unavailable"}, 503)(scope, receive, send)
        if caller is None:
            client = (scope.get("client") or ("?", 0))[0]
            log.warning(
                "refused %s %s from %s: %s", scope["method"], scope["path"], client,
                "no bearer token" if not presented else "unknown, expired or revoked token",
            )  # fmt: skip
            headers = {
                "WWW-Authenticate": 'Bearer realm="hindsight"' + ("" if not presented else ', error="invalid_token"')
            }
            return await JSONResponse(REFUSAL, 401, headers=headers)(scope, receive, send)
        if scope["path"] == PATH and (receive := await self._checked(scope, receive, send)) is None:
            return None  # answered already, or the client left
        token = services.CALLER.set(caller)
        try:
            await self.inner(scope, receive, send)
        finally:
            services.CALLER.reset(token)

    async def _checked(self, scope: dict, receive: Any, send: Any) -> Any:
        """`receive` handing on a body that is one JSON-RPC message; None once a late, too
        large or unusable one is answered (a late one's connection closed; the rest of a large
        one is read and dropped by uvicorn, within the headers' deadline), or the client left."""
        try:
            body = await deadlines.read_body(scope, receive, MAX_BODY, self.read_seconds)
        except deadlines.Unread as exc:
            refusal = messages.Refusal(None, INVALID_REQUEST, str(exc))
            return await _rpc_error(refusal, exc.status, scope, receive, send, close=exc.status == 408)
        if body is None:
            return None
        message, refusal = messages.check(body, "body")
        if message is None:
            empty = messages.Refusal(None, PARSE_ERROR, "Parse error: the body is empty; POST one JSON-RPC message")
            return await _rpc_error(refusal or empty, 400, scope, receive, send)
        return deadlines.replay(body, receive)


def _bearer(scope: dict) -> str | None:
    for name, value in scope.get("headers") or ():
        if name == b"authorization":
            kind, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if kind.lower() == "bearer" else None
    return None


async def _not_allowed(scope: dict, receive: Any, send: Any) -> None:
    text = f"Method Not Allowed: this server is stateless and opens no event stream; POST JSON-RPC to {PATH}"
    refusal = messages.Refusal(None, INVALID_REQUEST, text)
    await _rpc_error(refusal, 405, scope, receive, send, headers={"Allow": "POST"})


async def _rpc_error(
    refusal: messages.Refusal, status: int, scope: dict, receive: Any, send: Any, *, close: bool = False,
    headers: dict[str, str] | None = None,
) -> None:  # fmt: skip
    """A JSON-RPC error as the HTTP answer; `close`: and the connection closed after it."""
    sent = {**(headers or {}), **({"Connection": "close"} if close else {})}
    await Response(refusal.json(), status, headers=sent, media_type="application/json")(scope, receive, send)


async def _health(s: Any, scope: dict, receive: Any, send: Any) -> None:
    """200 when the database answers and the embedder embeds; 503 otherwise. No secrets, no
    agent names."""
    if s is None:
        body, status = {"status": "starting"}, 503
    else:
        try:
            await asyncio.wait_for(s.healthy(), HEALTH_SECONDS)
            vector = await asyncio.wait_for(s.async_embedder.query("healthz"), HEALTH_SECONDS)
            body, status = {"status": "ok", "embedder": s.settings.embedder, "dimension": len(vector)}, 200
        except Exception as exc:
            body, status = {"status": "unavailable", "problem": type(exc).__name__}, 503
    await JSONResponse(body, status)(scope, receive, send)
