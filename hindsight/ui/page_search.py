"""The search page: the recall form and each hit with its channels, score parts and formula,
in words (explain). Pure."""

from __future__ import annotations

from typing import Any

from ..services.vocabulary import MEMORY_TYPES
from . import explain
from .html import Safe, fmt, join, short
from .widgets import Ctx, card, flag_chips, memory_url, when

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
    "score_parts": {
        "dense": 0,
        "keyword": 0,
        "relevance": 0,
        "time": 0,
        "unfinished": 0,
        "tools": 0,
        "session": 0,
        "trouble": 0,
        "value": 0,
        "context": 0,
        **{part: 0 for part in explain.PRIORS},
    }
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
        flags=flag_chips(h.get("flags")),
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
