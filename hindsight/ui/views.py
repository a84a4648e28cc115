"""Pages as HTML, from plain data. No I/O; every value is escaped by `fmt`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

from ..rules.validate import MEMORY_TYPES
from . import explain
from .charts import Series, bars
from .html import Safe, fmt, href, join, pretty_json, short

DONE = {  # notices after a correction: fixed words, never text from the request
    "forgotten": "Forgotten: the memory is deleted; its history keeps what happened, without its content.",
    "invalidated": "Invalidated: it is no longer recalled and stays as history.",
    "confirmed": "Confirmed: the older memory is superseded by the newer one (recorded in both histories).",
    "dismissed": "Dismissed: recall no longer ranks the older memory under the newer one. "
    "A dismissal is not written to the memories' history.",
    "restored": "Restored from the archive.",
}


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
    status = " · archived" if m.get("archived") else (" · invalidated" if m.get("invalidated_at") else "")
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


# Overview ------------------------------------------------------------------------------

STATE_COLUMNS = (
    ("current", "current"),
    ("invalidated", "invalidated"),
    ("expired", "expired"),
    ("consolidated", "consolidated"),
    ("faded", "below 0.3"),
    ("needs_review", "needs review"),
)


def overview(c: Ctx, d: dict[str, Any]) -> Safe:
    return fmt(
        '<h1>What {agent} remembers</h1><div class="grid">{a}{b}{c}{d}{e}{f}</div>',
        agent=c.agent,
        a=_counts(d),
        b=_activity(d["activity"]),
        c=_decay(d["histogram"]),
        d=_forecast(c, d["forecast"]),
        e=_conflict_card(c, d["conflicts"]),
        f=_runs(c, d["runs"]),
    )


def _counts(d: dict[str, Any]) -> Safe:
    rows = d["states"]
    if not rows and not d["archived"]:
        return card("Memories by type and state", Safe('<p class="muted">No memories yet.</p>'))
    head = join(fmt('<th class="n">{h}</th>', h=h) for _, h in STATE_COLUMNS)
    body = join(
        fmt(
            "<tr><td>{t}</td>{cells}</tr>",
            t=r["memory_type"],
            cells=join(fmt('<td class="n">{n}</td>', n=r[k]) for k, _ in STATE_COLUMNS),
        )
        for r in rows
    )
    total = join(fmt('<td class="n"><b>{n}</b></td>', n=sum(r[k] for r in rows)) for k, _ in STATE_COLUMNS)
    archived = ", ".join(f"{n} {why}" for why, n in sorted(d["archived"].items())) or "none"
    return card(
        "Memories by type and state",
        fmt(
            '<div class="scroll"><table><tr><th>type</th>{head}</tr>{body}<tr><td><b>all</b></td>{total}</tr>'
            '</table></div><p class="hint">Archived: {archived}. '
            '"below 0.3": decayed under the recall cut, skipped by recall.</p>',
            head=head,
            body=body,
            total=total,
            archived=archived,
        ),
        cls="card span",
    )


def _activity(a: dict[str, Any]) -> Safe:
    labels = [f"{day:%m-%d}" for day in a["days"]]
    series = [
        Series("stored", "#2f5fd0", a["stored"]),
        Series("reinforced", "#7aa2f7", a["reinforced"]),
        Series("corrected", "#d9822b", a["corrected"]),
        Series("maintenance", "#9aa3b2", a["maintenance"]),
    ]
    totals = ", ".join(f"{sum(s.values)} {s.name}" for s in series)
    return card(
        "Writes per day, last 30 days",
        bars("Writes per day", labels, series, label_every=5),
        f"From memory_history: {totals}.",
    )


def _decay(histogram: list[int]) -> Safe:
    labels = [f"{i / 10:.1f}" for i in range(10)]
    below = sum(histogram[:3])
    return card(
        "Decay of current memories",
        bars(
            "Current memories by decay_score",
            labels,
            [Series("memories", "#2f5fd0", histogram)],
            marker=(3, "recall cut 0.3"),
        ),
        f"decay_score as of the last maintenance run; {below} below the cut are skipped by recall.",
    )


def _forecast(c: Ctx, f: dict[str, Any]) -> Safe:
    labels = [f"+{i}" for i in range(1, len(f["fading"]) + 1)]
    chart = bars(
        "Leaving recall per day",
        labels,
        [Series("decay below 0.3", "#b3261e", f["fading"]), Series("expiring", "#9aa3b2", f["expiring"])],
        label_every=5,
    )
    soon = join(fmt("<li>day +{day}: {m}</li>", day=m["day"], m=brief(c, m, 110)) for m in f["soonest"])
    listed = fmt("<h3>First to fade</h3><ul>{soon}</ul>", soon=soon) if f["soonest"] else Safe("")
    return card(
        "Leaving recall in the next 30 days",
        chart + listed,
        f"If nobody recalls them: {sum(f['fading'])} fall below the recall cut {f['cut']} "
        f"(hindsight_decay at each coming day) and {sum(f['expiring'])} expire.",
    )


def _conflict_card(c: Ctx, n: int) -> Safe:
    said = "newer memory says an older one" if n == 1 else "newer memories say an older one"
    text = (
        fmt(
            '<p><b>{n}</b> {said} changed and nobody has decided yet. <a href="{url}">Review</a>.</p>',
            n=n,
            said=said,
            url=href("/conflicts", agent=c.agent),
        )
        if n
        else Safe('<p class="muted">None open.</p>')
    )
    return card("Possible conflicts", text)


def _runs(c: Ctx, runs: list[dict[str, Any]]) -> Safe:
    if not runs:
        return card(
            "Last maintenance runs",
            Safe('<p class="muted">No maintenance run yet (hindsight maintain, or hindsight scheduler).</p>'),
        )
    rows = join(
        fmt(
            '<tr><td class="n">{id}</td><td>{at}</td><td>{status}{dry}</td><td>{trigger}</td>'
            '<td class="n">{decayed}</td><td class="n">{archived}</td><td class="n">{secs}</td></tr>',
            id=r["id"],
            at=when(r["started_at"], c.tz),
            status=r["status"],
            dry=" (dry run)" if r["dry_run"] else "",
            trigger=r["trigger"],
            decayed=_report(r, "decay", "changed"),
            archived=_sum(_report(r, "archive", "archived_expired"), _report(r, "archive", "archived_superseded")),
            secs=(r["report"] or {}).get("seconds", ""),
        )
        for r in runs
    )
    errors = join(fmt('<p class="error">run {id}: {e}</p>', id=r["id"], e=r["error"]) for r in runs if r["error"])
    return card(
        "Last maintenance runs",
        fmt(
            '<div class="scroll"><table><tr><th class="n">run</th><th>started</th><th>status</th><th>by</th>'
            '<th class="n">decayed</th><th class="n">archived</th><th class="n">seconds</th></tr>{rows}</table></div>'
            "{errors}",
            rows=rows,
            errors=errors,
        ),
    )


def _report(run: dict[str, Any], part: str, key: str) -> Any:
    return ((run["report"] or {}).get(part) or {}).get(key, "")


def _sum(*values: Any) -> Any:
    nums = [v for v in values if isinstance(v, int)]
    return sum(nums) if nums else ""


# Search --------------------------------------------------------------------------------


def search(c: Ctx, form: dict[str, str], result: dict[str, Any] | None, error: str | None) -> Safe:
    body = _search_form(c, form)
    if error:
        body += fmt('<p class="error" role="alert">{e}</p>', e=error)
    if result is not None:
        body += _results(c, result)
    return fmt("<h1>Search {agent}'s memory</h1>{body}", agent=c.agent, body=body)


def _search_form(c: Ctx, f: dict[str, str]) -> Safe:
    types = join(
        fmt('<option value="{t}"{sel}>{t}</option>', t=t, sel=Safe(" selected" if f.get("type") == t else ""))
        for t in MEMORY_TYPES
    )
    return card(
        "Recall, as retrieve_memory does",
        fmt(
            '<form class="search" method="get" action="/search"><input type="hidden" name="agent" value="{agent}">'
            '<label class="wide">query <input name="q" value="{q}" required autofocus></label>'
            '<label>type <select name="type"><option value="">any</option>{types}</select></label>'
            '<label>results <input name="top_k" type="number" min="1" max="50" value="{k}"></label>'
            '<label>from <input name="start" type="datetime-local" value="{start}"></label>'
            '<label>until <input name="end" type="datetime-local" value="{end}"></label>'
            '<label>tools (comma separated) <input name="tools" value="{tools}"></label>'
            '<label>tags (all of, comma separated) <input name="tags" value="{tags}"></label>'
            '<label>as of <input name="as_of" type="datetime-local" value="{as_of}"></label>'
            '<label class="inline"><input type="checkbox" name="shared" value="1"{shared}> '
            "other agents' shared memories</label>"
            '<div><button type="submit">Search</button></div></form>',
            agent=c.agent,
            q=f.get("q", ""),
            types=types,
            k=f.get("top_k") or "10",
            start=f.get("start", ""),
            end=f.get("end", ""),
            tools=f.get("tools", ""),
            tags=f.get("tags", ""),
            as_of=f.get("as_of", ""),
            shared=Safe(" checked" if f.get("shared") else ""),
        ),
        "The same recall the agent gets (channels, ranking, filters). Times are in the server's zone. "
        "Searching here is not counted as a recall: it changes no access counts.",
    )


def _results(c: Ctx, result: dict[str, Any]) -> Safe:
    hits = result["memories"]
    window = result.get("time_window")
    head = (
        fmt(
            '<p class="hint">The query names a time: {m} → {s} to {e}.</p>',
            m=window["matched"],
            s=when(window["start"], c.tz),
            e=when(window["end"], c.tz),
        )
        if window
        else Safe("")
    )
    if not hits:
        return card("No memories found", head + Safe('<p class="muted">Nothing passed the filters.</p>'))
    by_id = {h["id"]: h for h in hits}
    legend = join(
        fmt("<dt>{name}</dt><dd>{means}</dd>", name=name, means=means)
        for name, _, means in explain.score_lines(EVERY_PART)
    )
    return card(
        f"{len(hits)} memories, best first",
        head
        + join(_hit(c, n, h, by_id) for n, h in enumerate(hits, 1))
        + fmt('<h3>Score parts</h3><dl class="meta">{legend}</dl>', legend=legend),
    )


EVERY_PART = {
    "score_parts": {"dense": 0, "keyword": 0, "relevance": 0, "time": 0, "tools": 0, "session": 0, "context": 0}
}


def _hit(c: Ctx, rank: int, h: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> Safe:
    chans = join(fmt('<span class="chan">{ch}</span>', ch=ch) for ch in h["channels"])
    why = join(fmt("<li>{r}</li>", r=r) for r in explain.reasons(h))
    parts = join(
        fmt(
            '<tr><td>{name}</td><td class="n">{v}</td><td>{bar}</td></tr>', name=name, v=f"{value:.3f}", bar=_bar(value)
        )
        for name, value, _ in explain.score_lines(h)
    )
    newer = h.get("possibly_outdated_by")
    outdated = (
        fmt(
            '<p>Possibly outdated by a newer memory that says this changed: <a href="{url}">{text}</a></p>',
            url=memory_url(c, newer),
            text=short(by_id.get(newer, {}).get("content") or newer, 120),
        )
        if newer
        else Safe("")
    )
    owner = fmt(" · shared by {a}", a=h["agent_id"]) if h["agent_id"] != c.agent else ""
    return fmt(
        '<article class="hit"><div class="head"><b>{rank}.</b><a href="{url}">{text}</a></div>'
        '<p class="muted">{type} · {at}{owner} · score {score} · confidence {conf} ({words})</p>'
        "{flags}<div>{chans}</div><h3>Why it came back</h3><ul>{why}</ul>"
        '<p class="hint">{formula}</p><div class="scroll"><table class="parts">{parts}</table></div>{outdated}'
        "</article>",
        rank=rank,
        url=memory_url(c, h["id"]),
        text=short(h["content"], 300),
        type=h["memory_type"],
        at=when(h["created_at"], c.tz),
        owner=owner,
        score=f"{h['score']:.3f}",
        conf=f"{h['confidence']:.2f}",
        words=explain.confidence_words(h["confidence"]),
        flags=_flags(h.get("flags")),
        chans=chans,
        why=why,
        formula=explain.formula(h),
        parts=parts,
        outdated=outdated,
    )


def _bar(value: float) -> Safe:
    width = max(0.0, min(value, 1.0)) * 100
    return fmt(
        '<svg class="bar" viewBox="0 0 100 8" width="100" height="8" aria-hidden="true">'
        '<rect width="100" height="8" fill="#eef1f6"/><rect width="{w}" height="8" fill="#2f5fd0"/></svg>',
        w=f"{width:.1f}",
    )


def _flags(flags: Any) -> Safe:
    return join(
        fmt('<span class="flag" title="{why}">{f}</span>', f=f, why=explain.FLAGS.get(f, "")) for f in flags or ()
    )


# One memory ----------------------------------------------------------------------------


def memory(c: Ctx, p: dict[str, Any]) -> Safe:
    m = p["memory"]
    if m is None:
        return fmt(
            '<h1>Memory <span class="state-gone">forgotten</span></h1>'
            "<p>This memory was deleted. Its history keeps what happened, without its content.</p>{h}",
            h=_history(c, p["history"]),
        )
    cls, words = explain.state(m, c.now)
    body = fmt('<h1>Memory <span class="{cls}">{words}</span></h1>', cls=cls, words=words)
    body += card("Content", _content(c, p, m))
    body += _relations(c, p)
    if p["own"]:
        body += _corrections(c, p)
    else:
        body += card(
            "Corrections",
            fmt('<p class="muted">Shared by agent {a}: only its owner can change it.</p>', a=m["agent_id"]),
        )
    return body + fmt('<div class="grid">{d}{h}</div>', d=card("Details", _details(c, m)), h=_history(c, p["history"]))


def _content(c: Ctx, p: dict[str, Any], m: dict[str, Any]) -> Safe:
    out = fmt('<div class="content">{text}</div>{flags}', text=m["content"], flags=_flags(m.get("flags")))
    if m.get("revealed"):
        out += Safe('<p class="notice">Revealed with HINDSIGHT_ENCRYPTION_KEY: the original, for this page only.</p>')
    elif m.get("sealed"):
        out += Safe('<p class="hint">Secrets in it were redacted; the original is sealed (encrypted).</p>')
        if p["where"] == "live":
            out += post(c, f"/memory/{p['id']}/reveal", "Reveal the original", cls="quiet")
    flags = [f for f in m.get("flags") or () if f in explain.FLAGS]
    if flags:
        out += fmt(
            '<ul class="hint">{li}</ul>', li=join(fmt("<li>{f}: {w}</li>", f=f, w=explain.FLAGS[f]) for f in flags)
        )
    return out


DETAILS = (
    ("id", "id"),
    ("agent_id", "agent"),
    ("memory_type", "type"),
    ("importance", "importance"),
    ("slot", "slot"),
    ("session_id", "session"),
    ("tags", "tags"),
    ("shared", "shared"),
    ("created_at", "created"),
    ("stored_at", "stored"),
    ("updated_at", "updated"),
    ("expires_at", "expires"),
    ("invalidated_at", "invalidated"),
    ("invalidation_reason", "why"),
    ("decay_score", "decay_score"),
    ("strength", "strength"),
    ("access_count", "recalled"),
    ("last_accessed", "last recalled"),
    ("reinforce_count", "reinforced"),
    ("archived_at", "archived"),
    ("archive_reason", "archive reason"),
)


def _details(c: Ctx, m: dict[str, Any]) -> Safe:
    def shown(key: str) -> Any:
        value = m.get(key)
        if key.endswith("_at") or key == "last_accessed":
            return when(value, c.tz)
        if key == "tags":
            return join(fmt('<span class="tag">{t}</span>', t=t) for t in value or ())
        return value

    rows = join(
        fmt("<dt>{label}</dt><dd>{v}</dd>", label=label, v=shown(key))
        for key, label in DETAILS
        if m.get(key) not in (None, "", [], False) or key == "decay_score"
    )
    meta = fmt("<h3>metadata</h3><pre>{j}</pre>", j=pretty_json(m["metadata"])) if m.get("metadata") else Safe("")
    return fmt('<dl class="meta">{rows}</dl>{meta}', rows=rows, meta=meta)


def _relations(c: Ctx, p: dict[str, Any]) -> Safe:
    parts: list[Safe] = []
    m = p["memory"]
    if p["replaced_by"]:
        parts.append(fmt("<h3>Superseded by</h3><p>{b}</p>", b=brief(c, p["replaced_by"])))
    if p["consolidated_into"]:
        parts.append(fmt("<h3>Consolidated into</h3><p>{b}</p>", b=brief(c, p["consolidated_into"])))
    if p["superseded"]:
        parts.append(
            fmt(
                "<h3>It superseded</h3><ul>{li}</ul>",
                li=join(
                    fmt(
                        '<li>{b}<br><span class="hint">{why}</span></li>',
                        b=brief(c, s),
                        why=s.get("invalidation_reason"),
                    )
                    for s in p["superseded"]
                ),
            )
        )
    open_here = p["own"] and p["where"] == "live" and not m.get("invalidated_at")
    decided = {x["id"] for x in p["superseded"]}
    likely = [old for old in p["likely_replaces"] if old["id"] not in decided]
    if likely:
        parts.append(
            fmt(
                "<h3>It likely replaces (possible conflicts)</h3>"
                '<p class="hint">When it was stored it said something changed, and these older '
                "memories are about the same thing. Recall ranks this one above them until you decide."
                "</p><ul>{li}</ul>",
                li=join(
                    fmt(
                        "<li>{b}{acts}</li>",
                        b=brief(c, old),
                        acts=_decide(c, p["id"], old["id"])
                        if open_here
                        and not old.get("missing")
                        and not old.get("invalidated_at")
                        and not old.get("archived")
                        else "",
                    )
                    for old in likely
                ),
            )
        )
    if p["likely_replaced_by"] and not m.get("invalidated_at"):
        parts.append(
            fmt(
                "<h3>Likely replaced by (possible conflicts)</h3><ul>{li}</ul>",
                li=join(
                    fmt(
                        "<li>{b}{acts}</li>",
                        b=brief(c, new),
                        acts=_decide(c, new["id"], p["id"])
                        if p["own"] and p["where"] == "live" and not m.get("invalidated_at")
                        else "",
                    )
                    for new in p["likely_replaced_by"]
                ),
            )
        )
    return card("Related memories", join(parts)) if parts else Safe("")


def _decide(c: Ctx, new_id: str, old_id: str, back: str = "memory") -> Safe:
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


def _corrections(c: Ctx, p: dict[str, Any]) -> Safe:
    m = p["memory"]
    if p["where"] == "archive":
        return card(
            "Corrections",
            post(c, f"/archive/{p['id']}/restore", "Restore from the archive"),
            "Archived by maintenance. Restoring brings it back: an expired memory with a fresh lifetime, "
            "a superseded one as history.",
        )
    acts = Safe("")
    if not m.get("invalidated_at"):
        acts += post(
            c,
            f"/memory/{p['id']}/invalidate",
            "Invalidate",
            Safe(
                "<h3>Invalidate: no longer true, kept as history</h3>"
                '<label>reason <input name="reason" required maxlength="2000"></label>'
                '<label>replaced by (optional memory id) <input name="replaced_by" maxlength="64"></label>'
            ),
        )
    acts += post(
        c,
        f"/memory/{p['id']}/forget",
        "Forget for good",
        Safe(
            "<h3>Forget: delete it, as delete_memory does</h3>"
            '<label class="inline"><input type="checkbox" name="confirm" value="yes" required> '
            "yes, delete this memory and the content of its history</label><br>"
        ),
        cls="danger",
    )
    return card(
        "Corrections",
        fmt('<div class="pair">{a}</div>', a=acts),
        "Each correction is recorded in its history with call ui.",
    )


def _history(c: Ctx, rows: list[dict[str, Any]]) -> Safe:
    if not rows:
        return Safe("")
    items: list[Safe] = []
    last = None
    for r in rows:
        related = (
            fmt(' → <a href="{u}">{id}</a>', u=memory_url(c, r["related_id"]), id=r["related_id"][:8])
            if r.get("related_id")
            else ""
        )
        changed = r.get("content") is not None and r["content"] != last
        text = fmt('<div class="content">{t}</div>', t=r["content"]) if changed and r["action"] != "create" else ""
        last = r["content"] if r.get("content") is not None else last
        items.append(
            fmt(
                '<li><b>{action}</b> <span class="muted">{at} · by {call}</span>{related}{reason}{text}</li>',
                action=explain.ACTIONS.get(r["action"], r["action"]).capitalize(),
                at=when(r["at"], c.tz),
                call=r["call"],
                related=related,
                text=text,
                reason=fmt('<br><span class="hint">{w}</span>', w=r["reason"]) if r.get("reason") else "",
            )
        )
    return card(
        "History",
        fmt('<ol class="timeline">{li}</ol>', li=join(items)),
        "From memory_history: every write path records here, with the call that made it.",
    )


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
            '<tr><td>{at}</td><td>{type}</td><td><a href="{url}">{text}</a> {flags}</td>'
            '<td class="n">{imp}</td><td class="n">{decay}</td></tr>',
            at=when(m["created_at"], c.tz),
            type=m["memory_type"],
            url=memory_url(c, m["id"]),
            text=short(m["content"], 200),
            flags=_flags(m.get("flags")),
            imp=m["importance"],
            decay=f"{m['decay_score']:.2f}",
        )
        for m in listing["memories"]
    )
    pager = _pager(
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
            '<div class="scroll"><table><tr><th>created</th><th>type</th><th>content</th>'
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


def _pager(path: str, c: Ctx, offset: int, size: int, more: bool, **params: Any) -> Safe:
    links = []
    if offset > 0:
        links.append(
            fmt('<a href="{u}">← newer</a>', u=href(path, agent=c.agent, offset=max(0, offset - size), **params))
        )
    if more:
        links.append(fmt('<a href="{u}">older →</a>', u=href(path, agent=c.agent, offset=offset + size, **params)))
    return fmt("<p>{l}</p>", l=join(links, " · ")) if links else Safe("")


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
            acts=_decide(c, r["new_id"], r["old_id"], "conflicts"),
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
            pager=_pager("/archive", c, d["offset"], d["page"], d["offset"] + len(d["rows"]) < d["total"]),
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


def error(status: int, message: str) -> Safe:
    return fmt(
        '<h1>{title}</h1><p class="error" role="alert">{m}</p>',
        title={400: "That did not work", 403: "Not allowed", 404: "Not found"}.get(status, "Error"),
        m=message,
    )
