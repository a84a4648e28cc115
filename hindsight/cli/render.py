"""Plain-text views for the command line: memories, tokens, a maintenance report (pure:
data in, lines out).

Every line fits the width given (the terminal's, 80 when output is not a terminal):
content is cut with an ellipsis in tables and wrapped in `show`. Ids in tables are the
first 8 characters of the UUID; every command that takes an id accepts such a prefix.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from typing import Any

SHORT_ID = 8


def width() -> int:
    return max(60, shutil.get_terminal_size((80, 24)).columns)


def one_line(text: str, room: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= room else flat[: max(room - 1, 0)] + "…"


def fit(line: str, cols: int) -> str:
    """One line cut to `cols` characters (spacing kept)."""
    return line if len(line) <= cols else line[: cols - 1] + "…"


def state(m: dict[str, Any]) -> str:
    if m.get("archived_at"):
        return "archived"
    if m.get("invalidated_at"):
        return "superseded" if m.get("invalidated_by") else "invalidated"
    return "current"


def memory_table(memories: list[dict[str, Any]], cols: int) -> list[str]:
    """ID  CREATED  TYPE  I  CONTENT — one memory a line, newest first as given."""
    lines = [fit(f"{'ID':<8}  {'CREATED':<10}  {'TYPE':<10} I  CONTENT", cols)]
    for m in memories:
        head = f"{m['id'][:SHORT_ID]}  {m['created_at'][:10]}  {m['memory_type']:<10} {m['importance']}  "
        mark = "" if state(m) == "current" else f"[{state(m)}] "
        mark += f"({m['project']}) " if m.get("project") else ""
        mark += f"[{by_hook(m)}] " if by_hook(m) else ""
        lines.append(head + one_line(mark + m["content"], cols - len(head)))
    return lines


def by_hook(m: dict[str, Any]) -> str:
    """ "hook PostToolUse, session 1a2b3c4d" for a memory the IDE's hooks captured, else ""."""
    meta = m.get("metadata") or {}
    if not isinstance(meta, dict) or meta.get("source") != "hook":
        return ""
    session = f", session {m['session_id'][:SHORT_ID]}" if m.get("session_id") else ""
    return f"hook {meta.get('hook', '')}{session}".replace("hook ,", "hook,")


def recall_table(memories: list[dict[str, Any]], cols: int) -> list[str]:
    """Each hit: rank, score, id, date, type and confidence; what recall knows about it
    (not relevant, possibly outdated, another project, flags) on a line of its own; then its
    whole content, wrapped."""
    lines = []
    for rank, m in enumerate(memories, 1):
        head = f"{rank:>2}. {m['score']:.3f}  {m['id'][:SHORT_ID]}  {m['created_at'][:10]}  {m['memory_type']}"
        if m.get("confidence") is not None:
            head += f"  confidence {m['confidence']:.2f}"
        lines.append(fit(head, cols))
        marks = ["not relevant"] if m.get("relevant") is False else []
        if m.get("possibly_outdated_by"):
            marks.append(f"possibly outdated by {m['possibly_outdated_by'][:SHORT_ID]}")
        marks += [f"project {m['project']}"] if m.get("project") else []
        marks += [f for f in m.get("flags") or () if f in ("needs_review", "low_trust")]
        if marks:
            lines += textwrap.wrap("[" + "; ".join(marks) + "]", cols, initial_indent="    ", subsequent_indent="    ")
        text = " ".join(m["content"].split())
        lines += textwrap.wrap(text, cols, initial_indent="    ", subsequent_indent="    ", break_on_hyphens=False)
    return lines


def _field(name: str, value: Any, cols: int) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return textwrap.wrap(
        text,
        cols,
        initial_indent=f"{name:<12}",
        subsequent_indent=" " * 12,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [name]


def memory_block(m: dict[str, Any], history: list[dict[str, Any]], cols: int) -> list[str]:
    """Everything about one memory, then what happened to it."""
    out = _field("id", m["id"], cols)
    out += _field("agent", m["agent_id"] + (" (shared)" if m.get("shared") else ""), cols)
    out += _field("type", f"{m['memory_type']}, importance {m['importance']}, {state(m)}", cols)
    out += _field("created", _when(m["created_at"]) + f" (stored {_when(m['stored_at'])})", cols)
    for key in ("project", "session_id", "slot"):
        if m.get(key):
            out += _field(key.replace("_id", ""), m[key], cols)
    if m.get("tags"):
        out += _field("tags", ", ".join(m["tags"]), cols)
    if m.get("metadata"):
        out += _field("metadata", m["metadata"], cols)
    if m.get("flags"):
        out += _field("flags", ", ".join(m["flags"]), cols)
    if m.get("decay_score") is not None:
        count = m.get("access_count") or 0
        seen = f", recalled {count} time{'' if count == 1 else 's'}"
        out += _field("decay", f"{m['decay_score']:.3f}{seen}", cols)
    if m.get("expires_at"):
        out += _field("expires", _when(m["expires_at"]), cols)
    if m.get("invalidated_at"):
        out += _field(*invalidation(m), cols)
    if m.get("archived_at"):
        out += _field(
            "archived", f"{_when(m['archived_at'])} ({m.get('archive_reason')}); hindsight restore brings it back", cols
        )
    if m.get("sealed"):
        out += _field("sealed", "the original is encrypted; --reveal shows it (needs the key)", cols)
    out += ["", "content"]
    for para in m["content"].splitlines() or [""]:
        out += textwrap.wrap(para, cols, initial_indent="  ", subsequent_indent="  ") or [""]
    if history:
        out += ["", "history"]
        for h in history:
            related = f" → {h['related_id'][:SHORT_ID]}" if h.get("related_id") else ""
            reason = f"  {h['reason']}" if h.get("reason") else ""
            out.append(fit(f"  {_when(h['at'])}  {h['action']:<11} {h['call']}{related}{reason}", cols))
    return out


def invalidation(m: dict[str, Any]) -> tuple[str, str]:
    """(label, words) for an invalidated memory: 'superseded' by the memory that replaced it
    (as `hindsight ui` says it), else plain 'invalidated'; then when and why."""
    when, reason = _when(m["invalidated_at"]), m.get("invalidation_reason")
    if m.get("invalidated_by"):
        return "superseded", f"by {m['invalidated_by']} at {when}: {reason}"
    return "invalidated", f"{when}: {reason}"


def _when(iso: str | None) -> str:
    return iso[:16].replace("T", " ") if iso else "-"


def maintenance_lines(report: dict[str, Any]) -> list[str]:
    """A maintenance report in words, one line per step (--json has every number)."""
    if report.get("status") == "skipped":
        return [f"maintenance run {report.get('run')} skipped: {report.get('reason')}"]
    dry = report.get("dry_run")
    head = f"{'dry run' if dry else 'maintenance run'} {report.get('run')} as of {_zoned(report.get('as_of'))}"
    lines = [f"{head}: {report.get('status')} in {report.get('seconds', 0)} s" + ("; nothing changed" if dry else "")]
    steps = (("decay", _decay_words), ("archive", _archive_words), ("consolidation", _consolidation_words),
             ("agent_indexes", _index_words), ("counts", _count_words))  # fmt: skip
    for key, words in steps:
        if isinstance(report.get(key), dict):
            lines.append(words(report[key], dry))
    return lines


def _n(count: Any, noun: str) -> str:
    """'1 cluster', '3 clusters', '2 memories'."""
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{count} {noun if count == 1 else plural}"


def _zoned(iso: Any) -> str:
    """'2026-12-02 05:07 UTC' from an ISO 8601 time ('-' when there is none)."""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(str(iso))
    except ValueError:
        return "-"
    return moment.strftime("%Y-%m-%d %H:%M") + (f" {moment.tzname()}" if moment.tzinfo else "")


def _decay_words(d: dict[str, Any], dry: bool) -> str:
    if dry:
        return (f"decay: would rescore {d.get('would_change', 0)}; {d.get('sinking_below', 0)} would sink below "
                f"the recall cut {d.get('threshold')}, {d.get('recovering', 0)} rise above it")  # fmt: skip
    return (f"decay: {_n(d.get('changed', 0), 'memory')} rescored; {d.get('sank_below', 0)} fell below the recall cut "
            f"{d.get('threshold')}, {d.get('recovered', 0)} rose above it")  # fmt: skip


def _archive_words(a: dict[str, Any], dry: bool) -> str:
    if dry:
        return (f"archive: {a.get('would_archive_expired', 0)} expired and {a.get('would_archive_superseded', 0)} "
                "long-superseded memories would be archived")  # fmt: skip
    forgot = a.get("hook_sessions_forgotten") or 0
    hooks = f"; {forgot} hook sessions not seen for 30 days forgotten" if forgot else ""
    return (f"archive: {a.get('archived_expired', 0)} expired and {a.get('archived_superseded', 0)} "
            f"long-superseded memories archived{hooks}")  # fmt: skip


def _consolidation_words(c: dict[str, Any], dry: bool) -> str:
    found = f"consolidation: {_n(c.get('clusters', 0), 'cluster')} of similar episodes"
    if dry:
        return found + " (each would become a fact)"
    return (f"{found}; {_n(c.get('created', 0), 'new fact')}, {c.get('reinforced', 0)} reinforced, "
            f"{_n(c.get('sources_marked', 0), 'episode')} marked")  # fmt: skip


def _index_words(i: dict[str, Any], dry: bool) -> str:
    built = ", ".join(str(b.get("agent_id")) for b in i.get("built") or ()) or "none"
    dropped = ", ".join(map(str, i.get("dropped") or ())) or "none"
    verb = ("would build", "would drop") if dry else ("built", "dropped")
    return f"vector indexes per agent: {i.get('kept', 0)} kept; {verb[0]}: {built}; {verb[1]}: {dropped}"


def _count_words(c: dict[str, Any], dry: bool) -> str:
    before, after = c.get("before") or {}, c.get("after") or {}
    tally = "" if c.get("reconciled", True) else " (the counts do not add up: see hindsight stats)"
    return (f"memories: {before.get('live', 0)} current and {before.get('archived', 0)} archived before, "
            f"{after.get('live', 0)} and {after.get('archived', 0)} after{tally}")  # fmt: skip


def token_table(tokens: list[dict[str, Any]]) -> list[str]:
    """ID  AGENT  NAME  STATE  LAST USED — one token a line, as `token list` gets them."""
    row = "{:<8}  {:<16} {:<16} {:<18} {}"
    lines = [row.format("ID", "AGENT", "NAME", "STATE", "LAST USED")]
    for t in tokens:
        state = "revoked" if t["revoked_at"] else f"expires {t['expires_at'][:10]}" if t["expires_at"] else "no expiry"
        used = t["last_used"][:16].replace("T", " ") if t["last_used"] else "never used"
        lines.append(row.format(t["id"][:SHORT_ID], t["agent_id"], t["name"] or "-", state, used))
    return lines
