"""Plain-text views of memories for the command line (pure: lines in, lines out).

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
        lines.append(head + one_line(mark + m["content"], cols - len(head)))
    return lines


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


def report_lines(report: dict[str, Any], skip: tuple[str, ...] = ()) -> list[str]:
    """A nested report as `section.key: value` lines, in its own order (`skip`: top-level
    keys left out)."""
    out: list[str] = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                walk(f"{prefix}.{key}" if prefix else str(key), inner)
        elif isinstance(value, list):
            out.append(f"{prefix}: {', '.join(map(str, value)) if value else '-'}")
        else:
            out.append(f"{prefix}: {value}")

    for key, value in report.items():
        if key not in skip:
            walk(str(key), value)
    return out


def token_table(tokens: list[dict[str, Any]]) -> list[str]:
    """ID  AGENT  NAME  STATE  LAST USED — one token a line, as `token list` gets them."""
    row = "{:<8}  {:<16} {:<16} {:<18} {}"
    lines = [row.format("ID", "AGENT", "NAME", "STATE", "LAST USED")]
    for t in tokens:
        state = "revoked" if t["revoked_at"] else f"expires {t['expires_at'][:10]}" if t["expires_at"] else "no expiry"
        used = t["last_used"][:16].replace("T", " ") if t["last_used"] else "never used"
        lines.append(row.format(t["id"][:SHORT_ID], t["agent_id"], t["name"] or "-", state, used))
    return lines
