"""The overview page: counts by type and state, writes per day, decay, what leaves recall soon,
open conflicts and the last maintenance runs. Pure."""

from __future__ import annotations

from typing import Any

from .charts import Series, bars
from .html import Safe, fmt, href, join
from .widgets import Ctx, brief, card, when

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
            edges=True,
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
