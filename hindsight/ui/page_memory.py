"""One memory's page: its content, related memories, corrections, details and history. Pure."""

from __future__ import annotations

from typing import Any

from . import explain
from .html import Safe, fmt, join, pretty_json
from .widgets import Ctx, brief, card, decide, flag_chips, memory_url, post, when

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
    out = fmt('<div class="content">{text}</div>{flags}', text=m["content"], flags=flag_chips(m.get("flags")))
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
    ("project", "project"),
    ("slot", "slot"),
    ("session_id", "session"),
    ("tags", "tags"),
    ("shared", "shared"),
    ("created_at", "created"),
    ("stored_at", "stored"),
    ("updated_at", "updated"),
    ("expires_at", "expires"),
    ("invalidated_at", "invalidated"),  # "superseded" when another replaced it (_label)
    ("invalidated_by", "superseded by"),
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
        fmt("<dt>{label}</dt><dd>{v}</dd>", label=_label(m, key, label), v=shown(key))
        for key, label in DETAILS
        if m.get(key) not in (None, "", [], False) or key == "decay_score"
    )
    meta_ = m.get("metadata") if isinstance(m.get("metadata"), dict) else {}
    if meta_.get("source") == "hook":  # what the IDE's hooks captured, and in which session
        session = f" in session {m['session_id']}" if m.get("session_id") else ""
        rows = join(
            [rows, fmt("<dt>captured by</dt><dd>the IDE's {h} hook{s}</dd>", h=meta_.get("hook", ""), s=session)]
        )
    meta = fmt("<h3>metadata</h3><pre>{j}</pre>", j=pretty_json(m["metadata"])) if m.get("metadata") else Safe("")
    return fmt('<dl class="meta">{rows}</dl>{meta}', rows=rows, meta=meta)


def _label(m: dict[str, Any], key: str, label: str) -> str:
    """A memory another replaced was superseded, not merely invalidated (as `hindsight show` says)."""
    return "superseded" if key == "invalidated_at" and m.get("invalidated_by") else label


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
                        acts=decide(c, p["id"], old["id"])
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
                        acts=decide(c, new["id"], p["id"])
                        if p["own"] and p["where"] == "live" and not m.get("invalidated_at")
                        else "",
                    )
                    for new in p["likely_replaced_by"]
                ),
            )
        )
    return card("Related memories", join(parts)) if parts else Safe("")


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
