"""The list pages: memories newest first, the possible conflicts to decide, the archive. Pure."""

from __future__ import annotations

from typing import Any

from ..services.vocabulary import MEMORY_TYPES
from .html import Safe, fmt, join, short
from .widgets import Ctx, brief, card, decide, flag_chips, memory_url, page_links, post, when

# Lists ---------------------------------------------------------------------------------


def memories(c: Ctx, listing: dict[str, Any], memory_type: str, include_invalidated: bool) -> Safe:
    types = join(
        fmt('<option value="{t}"{sel}>{t}</option>', t=t, sel=Safe(" selected" if memory_type == t else ""))
        for t in MEMORY_TYPES
    )
    form = fmt(
        '<form class="search" method="get" action="/memories"><input type="hidden" name="agent" value="{a}">'
        '<label>type <select name="type"><option value="">any</option>{types}</select></label>'
        '<label class="inline"><input type="checkbox" name="all" value="1"{chk}> invalidated and expired too'
        '</label><div><button type="submit">Show</button></div></form>',
        a=c.agent,
        types=types,
        chk=Safe(" checked" if include_invalidated else ""),
    )
    rows = join(
        fmt(
            '<tr><td>{at}</td><td>{type}</td><td>{project}</td><td><a href="{url}">{text}</a> {flags}</td>'
            '<td class="n">{imp}</td><td class="n">{decay}</td></tr>',
            at=when(m["created_at"], c.tz),
            type=m["memory_type"],
            project=m.get("project") or Safe('<span class="muted">global</span>'),
            url=memory_url(c, m["id"]),
            text=short(m["content"], 200),
            flags=flag_chips(m.get("flags")),
            imp=m["importance"],
            decay=f"{m['decay_score']:.2f}",
        )
        for m in listing["memories"]
    )
    pager = page_links(
        "/memories",
        c,
        listing["offset"],
        listing["limit"],
        len(listing["memories"]) == listing["limit"],
        type=memory_type,
        all="1" if include_invalidated else "",
    )
    table = (
        fmt(
            '<div class="scroll"><table><tr><th>created</th><th>type</th><th>project</th><th>content</th>'
            '<th class="n">importance</th><th class="n">decay</th></tr>{rows}</table></div>{pager}',
            rows=rows,
            pager=pager,
        )
        if listing["memories"]
        else Safe('<p class="muted">None.</p>')
    )
    return fmt(
        "<h1>{agent}'s memories, newest first</h1>{form}{t}",
        agent=c.agent,
        form=card("Filter", form),
        t=card("Memories", table),
    )


def conflicts(c: Ctx, rows: list[dict[str, Any]]) -> Safe:
    if not rows:
        return fmt(
            "<h1>Possible conflicts</h1>{c}",
            c=card(
                "Nothing to decide",
                Safe('<p class="muted">No newer memory names an older current one as likely replaced.</p>'),
            ),
        )
    items = join(
        fmt(
            '<section class="card"><div class="pair"><div><h3>Older</h3>{old}</div>'
            "<div><h3>Newer (says it changed)</h3>{new}</div></div>{acts}</section>",
            old=brief(
                c,
                {
                    "id": r["old_id"],
                    "content": r["old_content"],
                    "memory_type": r["old_type"],
                    "created_at": r["old_created"],
                },
                400,
            ),
            new=brief(
                c,
                {
                    "id": r["new_id"],
                    "content": r["new_content"],
                    "memory_type": r["new_type"],
                    "created_at": r["new_created"],
                },
                400,
            ),
            acts=decide(c, r["new_id"], r["old_id"], "conflicts"),
        )
        for r in rows
    )
    return fmt(
        '<h1>Possible conflicts</h1><p class="hint">A newer memory said something changed and an older one '
        "is about the same thing. Confirm: the older is invalidated, replaced by the newer (as "
        "invalidate_memory with replaced_by does). Dismiss: both stay current and recall stops ranking the "
        "older under the newer.</p>{items}",
        items=items,
    )


def archive(c: Ctx, d: dict[str, Any]) -> Safe:
    rows = join(
        fmt(
            '<tr><td>{at}</td><td>{why}</td><td>{type}</td><td><a href="{url}">{text}</a></td><td>{act}</td></tr>',
            at=when(r["archived_at"], c.tz),
            why=r["archive_reason"],
            type=r["memory_type"],
            url=memory_url(c, r["id"]),
            text=short(r["content"], 160),
            act=post(c, f"/archive/{r['id']}/restore", "Restore", cls="quiet"),
        )
        for r in d["rows"]
    )
    table = (
        fmt(
            '<div class="scroll"><table><tr><th>archived</th><th>why</th><th>type</th><th>content</th><th></th>'
            "</tr>{rows}</table></div>{pager}",
            rows=rows,
            pager=page_links("/archive", c, d["offset"], d["page"], d["offset"] + len(d["rows"]) < d["total"]),
        )
        if d["rows"]
        else Safe('<p class="muted">The archive is empty.</p>')
    )
    return fmt(
        "<h1>Archive</h1>{c}",
        c=card(
            f"{d['total']} archived memories",
            table,
            "Maintenance moves expired memories and memories superseded long ago "
            "here. Restore brings one back (as hindsight restore does).",
        ),
    )
