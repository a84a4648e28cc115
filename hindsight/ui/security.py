"""The gate every request passes, as ASGI middleware.

- Host: only 127.0.0.1:PORT and localhost:PORT (a DNS-rebinding page cannot talk to us).
- Token: the URL `hindsight ui` prints carries ?token=…; the first GET with it opens a
  session (an HttpOnly, SameSite=Strict cookie) and is redirected to the same page
  without the token. Anything without a valid session is refused with 403.
- State changes: POST only, from our own origin (Origin, else Referer) and with the
  session's CSRF token in the form (checked by `checked_form`).
- Every response: a Content-Security-Policy that allows only the page's nonce'd style
  (no script at all, no external resource), no framing, no caching, no sniffing.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.datastructures import Headers, QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse

MAX_SESSIONS = 64
MAX_FORM_BYTES = 64 * 1024
SAFE_METHODS = ("GET", "HEAD")


class Forbidden(Exception):
    """A request the gate or a form check refuses (403)."""


def policy(nonce: str) -> str:
    return (
        f"default-src 'none'; style-src 'nonce-{nonce}'; img-src data:; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


class Gate:
    def __init__(self, app: Any, *, token: str, port: int, cookie: str | None = None):
        self.app = app
        self.token = token
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.cookie = cookie or f"hindsight_ui_{port}"  # cookies ignore ports: one name per server
        self.sessions: OrderedDict[str, str] = OrderedDict()  # session id -> its CSRF token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":
            return  # no websockets
        nonce = secrets.token_urlsafe(16)
        send = _secured(send, nonce)
        try:
            session = self._admit(scope)
        except Forbidden as exc:
            return await _refuse(str(exc))(scope, receive, send)
        except _Redirect as r:
            return await r.response(scope, receive, send)
        scope.setdefault("state", {})
        scope["state"].update(nonce=nonce, csrf=self.sessions[session], origins=self.origins)
        await self.app(scope, receive, send)

    def _admit(self, scope: dict) -> str:
        """The request's session id, or why not (Forbidden), or a redirect that opens one."""
        headers = Headers(scope=scope)
        if headers.get("host") not in self.hosts:
            raise Forbidden("This server answers only at 127.0.0.1 or localhost.")
        session = _cookie(headers, self.cookie)
        known = session is not None and session in self.sessions
        given = QueryParams(scope.get("query_string", b"").decode("latin-1")).get("token")
        if (
            given is not None
            and secrets.compare_digest(given.encode(), self.token.encode())
            and scope["method"] in SAFE_METHODS
        ):
            raise _Redirect(scope, None if known else self._open())
        if not known:
            raise Forbidden("This page needs the token: open the URL that `hindsight ui` printed.")
        if scope["method"] not in SAFE_METHODS and _origin(headers) not in self.origins:
            raise Forbidden("A change must come from this page itself (Origin or Referer of this server).")
        return session

    def _open(self) -> tuple[str, str]:
        session = secrets.token_urlsafe(32)
        self.sessions[session] = secrets.token_urlsafe(32)
        while len(self.sessions) > MAX_SESSIONS:
            self.sessions.popitem(last=False)
        return self.cookie, session


class _Redirect(Exception):
    """To the same page without ?token=, opening a session when one is given."""

    def __init__(self, scope: dict, cookie: tuple[str, str] | None):
        query = [
            (k, val)
            for k, val in parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
            if k != "token"
        ]
        self.response = RedirectResponse(scope["path"] + ("?" + urlencode(query) if query else ""), 303)
        if cookie is not None:
            self.response.set_cookie(cookie[0], cookie[1], httponly=True, samesite="strict", path="/")


def _cookie(headers: Headers, name: str) -> str | None:
    for part in headers.get("cookie", "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _origin(headers: Headers) -> str | None:
    origin = headers.get("origin")
    if origin:
        return origin
    referer = urlsplit(headers.get("referer", ""))
    return f"{referer.scheme}://{referer.netloc}" if referer.scheme and referer.netloc else None


def _secured(send: Any, nonce: str) -> Any:
    extra = [
        (b"content-security-policy", policy(nonce).encode()),
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"cache-control", b"no-store"),
        (b"cross-origin-opener-policy", b"same-origin"),
        (b"cross-origin-resource-policy", b"same-origin"),
    ]

    async def wrapped(message: dict) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": list(message.get("headers", [])) + extra}
        await send(message)

    return wrapped


def _refuse(why: str) -> HTMLResponse:
    return HTMLResponse(
        f'<!doctype html><meta charset="utf-8"><title>403 · hindsight</title><h1>403 Forbidden</h1><p>{why}</p>',
        status_code=403,
    )


async def checked_form(request: Request) -> dict[str, str]:
    """The POSTed form (application/x-www-form-urlencoded), refused unless it carries the
    session's CSRF token."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            raise Forbidden("The form is too large.")
    form = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
    csrf = request.state.csrf
    if not secrets.compare_digest(form.get("csrf", "").encode(), csrf.encode()):
        raise Forbidden("The form's CSRF token is missing or wrong: reload the page and try again.")
    return form
