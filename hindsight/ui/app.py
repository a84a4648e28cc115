"""The routes: read the request, call the services (the same code the MCP tools call, with
call="ui"), render a page. Pages are GET; every change is a CSRF-checked POST answered
with a redirect (or, for reveal, the page itself)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from ..errors import HindsightError, InvalidInput, NotFound
from ..services import Services, delete_request, dismiss_request, invalidate_request, list_request, recall_request
from ..services import vocabulary as v
from . import views
from .html import href, layout
from .security import Forbidden, Gate, checked_form

CALL = "ui"  # memory_history.call of every correction made here


class NotAllowed(Forbidden):
    pass


@dataclass
class Ui:
    agent: str  # the agent this UI acts for by default
    allowed: frozenset[str] | None  # who else it may show; None: any
    services: Services | None = None  # opened by serve (hindsight.services.showing), or handed in by a test

    @classmethod
    def from_settings(cls, settings) -> "Ui":
        """The configured agent, and the others HINDSIGHT_ALLOWED_AGENTS names (* : any)."""
        if "*" in settings.allowed_agents:
            return cls(settings.agent_id, None)
        return cls(settings.agent_id, frozenset(settings.allowed_agents) | {settings.agent_id})


def create_app(ui: Ui, *, token: str, port: int, lifespan: Any = None) -> Gate:
    routes = [
        Route("/", _page(overview)),
        Route("/search", _page(search)),
        Route("/memories", _page(memories)),
        Route("/memory/{id}", _page(memory)),
        Route("/conflicts", _page(conflicts)),
        Route("/archive", _page(archive)),
        Route("/memory/{id}/reveal", _change(reveal), methods=["POST"]),
        Route("/memory/{id}/forget", _change(forget), methods=["POST"]),
        Route("/memory/{id}/invalidate", _change(invalidate), methods=["POST"]),
        Route("/conflict/confirm", _change(confirm), methods=["POST"]),
        Route("/conflict/dismiss", _change(dismiss), methods=["POST"]),
        Route("/archive/{id}/restore", _change(restore_one), methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HindsightError: _failed, Forbidden: _failed})
    app.state.ui = ui
    return Gate(app, token=token, port=port)


# Plumbing ------------------------------------------------------------------------------


def _ui(request: Request) -> Ui:
    return request.app.state.ui


def _ctx(request: Request, params: Any) -> views.Ctx:
    ui = _ui(request)
    agent = params.get("agent") or ui.agent
    if ui.allowed is not None and agent not in ui.allowed:
        raise NotAllowed(
            f"Agent {agent!r} is not allowed here: this UI acts for {ui.agent!r} and the agents "
            "HINDSIGHT_ALLOWED_AGENTS names."
        )
    v.agent_id(agent)
    return views.Ctx(agent, ui.services.tz, datetime.now(timezone.utc), request.state.csrf)


async def _render(
    request: Request, c: views.Ctx, title: str, current: str, body: Any, status: int = 200, notice: str | None = None
) -> HTMLResponse:
    ui = _ui(request)
    if ui.allowed is None:
        agents = sorted(set(await ui.services.views.agents()) | {ui.agent, c.agent})
    else:
        agents = sorted(ui.allowed)
    html = layout(
        title=title, body=body, nonce=request.state.nonce, agent=c.agent, agents=agents, current=current, notice=notice
    )
    return HTMLResponse(html, status_code=status)


def _page(view: Callable) -> Callable:
    """A GET page: context from the query string, a notice after a redirect."""

    async def endpoint(request: Request) -> Response:
        c = _ctx(request, request.query_params)
        title, current, body, status = await view(request, c)
        return await _render(
            request, c, title, current, body, status, notice=views.DONE.get(request.query_params.get("done", ""))
        )

    return endpoint


def _change(action: Callable) -> Callable:
    """A POST: the CSRF token checked before anything else, then the action."""

    async def endpoint(request: Request) -> Response:
        form = await checked_form(request)
        return await action(request, _ctx(request, form), form)

    return endpoint


def _back(c: views.Ctx, path: str, done: str) -> RedirectResponse:
    return RedirectResponse(href(path, agent=c.agent, done=done), status_code=303)


async def _failed(request: Request, exc: Exception) -> Response:
    status = (
        403
        if isinstance(exc, Forbidden)
        else 404
        if isinstance(exc, NotFound)
        else 400
        if isinstance(exc, InvalidInput)
        else 503
    )
    ui = _ui(request)
    agent = ui.agent
    c = views.Ctx(
        agent,
        ui.services.tz if ui.services else timezone.utc,
        datetime.now(timezone.utc),
        getattr(request.state, "csrf", ""),
    )
    body = views.error(status, str(exc))
    html = layout(title="Error", body=body, nonce=request.state.nonce, agent=c.agent, agents=[agent], current="")
    return HTMLResponse(html, status_code=status)


# Pages ---------------------------------------------------------------------------------


async def overview(request: Request, c: views.Ctx) -> tuple:
    d = await _ui(request).services.views.overview(c.agent, c.now)
    return "Overview", "overview", views.overview(c, d), 200


async def search(request: Request, c: views.Ctx) -> tuple:
    q = request.query_params
    form = {k: q.get(k, "") for k in ("q", "type", "top_k", "start", "end", "tools", "tags", "as_of", "shared")}
    result, error, status = None, None, 200
    if form["q"].strip():
        try:
            asked = recall_request(c.agent, form["q"], **_recall_options(form, c))
            result = (await _ui(request).services.recall.ask(asked)).json()
        except InvalidInput as exc:
            error, status = str(exc), 400
    return "Search", "search", views.search(c, form, result, error), status


def _recall_options(form: dict[str, str], c: views.Ctx) -> dict[str, Any]:
    """The search form as retrieve_memory's arguments. Times without a zone are in the UI's."""
    opts: dict[str, Any] = {"top_k": _whole("top_k", form["top_k"] or "10"), "include_shared": bool(form["shared"])}
    if form["type"]:
        opts["memory_type"] = form["type"]
    start, end = _moment("from", form["start"], c), _moment("until", form["end"], c)
    if start or end:
        opts["time_range"] = {k: t for k, t in (("start", start), ("end", end)) if t}
    for name in ("tools", "tags"):
        items = [t.strip() for t in form[name].split(",") if t.strip()]
        if items:
            opts[name] = items
    if form["as_of"]:
        opts["as_of"] = _moment("as of", form["as_of"], c)
    return opts


def _whole(name: str, raw: str) -> int:
    if not raw.strip().isdigit():
        raise InvalidInput(name, f"{raw!r} is not a whole number")
    return int(raw)


def _moment(name: str, raw: str, c: views.Ctx) -> datetime | None:
    if not raw:
        return None
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInput(name, f"{raw!r} is not a date and time like 2026-11-30T14:30") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=c.tz)


async def memory(request: Request, c: views.Ctx) -> tuple:
    p = await _ui(request).services.views.memory_page(c.agent, request.path_params["id"])
    return "Memory", "", views.memory(c, p), 200


async def memories(request: Request, c: views.Ctx) -> tuple:
    q: QueryParams = request.query_params
    memory_type, everything = q.get("type") or None, bool(q.get("all"))
    asked = list_request(
        c.agent,
        memory_type=memory_type,
        include_invalidated=everything,
        limit=50,
        offset=_whole("offset", q.get("offset") or "0"),
    )
    listing = (await _ui(request).services.memories.list(asked)).json()
    return "Memories", "memories", views.memories(c, listing, memory_type or "", everything), 200


async def conflicts(request: Request, c: views.Ctx) -> tuple:
    return "Conflicts", "conflicts", views.conflicts(c, await _ui(request).services.views.conflicts(c.agent)), 200


async def archive(request: Request, c: views.Ctx) -> tuple:
    d = await _ui(request).services.views.archive(c.agent, _whole("offset", request.query_params.get("offset") or "0"))
    return "Archive", "archive", views.archive(c, d), 200


# Changes -------------------------------------------------------------------------------


async def reveal(request: Request, c: views.Ctx, form: dict[str, str]) -> Response:
    p = await _ui(request).services.views.memory_page(c.agent, request.path_params["id"], reveal=True)
    return await _render(request, c, "Memory", "", views.memory(c, p))


async def forget(request: Request, c: views.Ctx, form: dict[str, str]) -> Response:
    mid = request.path_params["id"]
    if form.get("confirm") != "yes":
        raise InvalidInput("confirm", "tick the box to confirm that this memory should be deleted for good")
    await _ui(request).services.memories.delete(delete_request(c.agent, mid, call=CALL))
    return _back(c, f"/memory/{mid}", "forgotten")


async def invalidate(request: Request, c: views.Ctx, form: dict[str, str]) -> Response:
    mid = request.path_params["id"]
    asked = invalidate_request(c.agent, mid, form.get("reason"), form.get("replaced_by", "").strip() or None, call=CALL)
    await _ui(request).services.memories.invalidate(asked)
    return _back(c, f"/memory/{mid}", "invalidated")


async def confirm(request: Request, c: views.Ctx, form: dict[str, str]) -> Response:
    new, old = form.get("new_id", ""), form.get("old_id", "")
    reason = form.get("reason", "").strip() or f"confirmed in hindsight ui: replaced by {new}"
    await _ui(request).services.memories.invalidate(invalidate_request(c.agent, old, reason, new, call=CALL))
    return _back(c, "/conflicts" if form.get("back") == "conflicts" else f"/memory/{v.memory_id(new)}", "confirmed")


async def dismiss(request: Request, c: views.Ctx, form: dict[str, str]) -> Response:
    new = v.memory_id(form.get("new_id"), "new_id")
    await _ui(request).services.memories.dismiss_conflict(dismiss_request(c.agent, new, form.get("old_id"), call="ui"))
    return _back(c, "/conflicts" if form.get("back") == "conflicts" else f"/memory/{new}", "dismissed")


async def restore_one(request: Request, c: views.Ctx, form: dict[str, str]) -> Response:
    mid = v.memory_id(request.path_params["id"])
    await _ui(request).services.restore(c.agent, mid, c.now, call=CALL)
    return _back(c, f"/memory/{mid}", "restored")
