"""The pieces every page uses: the request context, times, links, forms, cards, flags, pagers and
the confirm/dismiss pair for a possible conflict. Pure; every value is escaped by `fmt`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from . import explain
from .html import Safe, fmt, href, join, short


@dataclass(frozen=True)
class Ctx:
    """What every page knows about the request."""

    agent: str
    tz: tzinfo
    now: datetime
    csrf: str


def when(value: Any, tz: tzinfo) -> str:
    if not value:
        return ""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M")


def memory_url(c: Ctx, memory_id: Any) -> str:
    return href(f"/memory/{memory_id}", agent=c.agent)


def post(c: Ctx, action: str, button: str, fields: Safe = Safe(""), cls: str = "") -> Safe:
    return fmt(
        '<form class="act" method="post" action="{action}"><input type="hidden" name="csrf" value="{csrf}">'
        '<input type="hidden" name="agent" value="{agent}">{fields}'
        '<button type="submit" class="{cls}">{button}</button></form>',
        action=action,
        csrf=c.csrf,
        agent=c.agent,
        fields=fields,
        cls=cls,
        button=button,
    )


def brief(c: Ctx, m: dict[str, Any], limit: int = 160) -> Safe:
    """One line about a memory, linking to its page."""
    if m.get("missing"):
        return fmt('<span class="muted">{id} (no longer stored)</span>', id=m["id"])
    status = (
        " · archived"
        if m.get("archived")
        else " · superseded"
        if m.get("invalidated_by")
        else " · invalidated"
        if m.get("invalidated_at")
        else ""
    )
    return fmt(
        '<a href="{url}">{text}</a> <span class="muted">{type} · {at}{status}</span>',
        url=memory_url(c, m["id"]),
        text=short(m.get("content"), limit),
        type=m.get("memory_type"),
        at=when(m.get("created_at"), c.tz),
        status=status,
    )


def card(title: str, inner: Safe, hint: str = "", cls: str = "card") -> Safe:
    return fmt(
        '<section class="{cls}"><h2>{title}</h2>{hint}{inner}</section>',
        cls=cls,
        title=title,
        inner=inner,
        hint=fmt('<p class="hint">{h}</p>', h=hint) if hint else "",
    )


def flag_chips(flags: Any) -> Safe:
    return join(
        fmt('<span class="flag" title="{why}">{f}</span>', f=f, why=explain.FLAGS.get(f, "")) for f in flags or ()
    )


def decide(c: Ctx, new_id: str, old_id: str, back: str = "memory") -> Safe:
    ids = fmt(
        '<input type="hidden" name="new_id" value="{n}"><input type="hidden" name="old_id" value="{o}">'
        '<input type="hidden" name="back" value="{b}">',
        n=new_id,
        o=old_id,
        b=back,
    )
    reason = fmt('<label>reason (optional) <input name="reason" maxlength="2000"></label>')
    return fmt(
        '<div class="pair">{yes}{no}</div>',
        yes=post(c, "/conflict/confirm", "Confirm: the newer replaces the older", ids + reason),
        no=post(c, "/conflict/dismiss", "Dismiss: both stay true", ids, cls="quiet"),
    )


def page_links(path: str, c: Ctx, offset: int, size: int, more: bool, **params: Any) -> Safe:
    links = []
    if offset > 0:
        links.append(
            fmt('<a href="{u}">← newer</a>', u=href(path, agent=c.agent, offset=max(0, offset - size), **params))
        )
    if more:
        links.append(fmt('<a href="{u}">older →</a>', u=href(path, agent=c.agent, offset=offset + size, **params)))
    return fmt("<p>{l}</p>", l=join(links, " · ")) if links else Safe("")
