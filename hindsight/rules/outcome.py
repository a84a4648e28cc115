"""A session's outcome, read from its transcript: what was asked, what failed, what fixed it,
which files changed and what the user decided. Pure and extractive (no LLM): the transcript's
entries in, one short text out, or None when the session did nothing worth a memory (only
looked around, or only talked).

The transcript is Claude Code's JSONL (`transcript_path` of a Stop or PreCompact hook): user
entries hold a prompt (text) or tool results (`tool_result` blocks, `is_error`), assistant
entries hold `tool_use` blocks. Tool calls are replayed through rules.capture on a fresh
trail, so a session's outcome and the memories its hooks kept say the same things.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from .capture import ToolEvent, Trail, prompt_decision, tool_decision, without_private
from .text import one_line

MAX_ITEMS = 3  # failures, fixes and decisions named
MAX_FILES = 6
GOAL_CHARS = 200


@dataclass
class Outcome:
    goal: str = ""
    failed: list[str] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    decided: list[str] = field(default_factory=list)

    def worth_keeping(self) -> bool:
        """Something failed, was fixed or was decided: a session that only read, edited and
        ran what worked is in its commits, not worth a memory."""
        return bool(self.failed or self.fixed or self.decided)

    def text(self, day: str, project: str | None) -> str:
        where = f" in {project}" if project else ""
        parts = [f"Session of {day}{where}: {_end(self.goal or 'no prompt')}"]
        if self.failed:
            parts.append("Failed: " + _end("; ".join(self.failed)))
        if self.fixed:
            parts.append("Fixed: " + _end("; ".join(self.fixed)))
        if self.edited:
            parts.append("Edited: " + _end(", ".join(self.edited)))
        if self.decided:
            parts.append("Decided: " + _end("; ".join(self.decided)))
        return " ".join(parts)


def read(entries: Iterable[dict[str, Any]]) -> Outcome:
    """The outcome of a session from its transcript entries (in order)."""
    out = Outcome()
    trail = Trail()
    calls: dict[str, tuple[str, Any]] = {}  # tool_use id -> (tool, input)
    for entry in entries:
        message = entry.get("message") if isinstance(entry, dict) else None
        if not isinstance(message, dict) or entry.get("isSidechain"):
            continue
        content = message.get("content")
        if entry.get("type") == "user" and isinstance(content, str):
            _prompt(out, content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict):
                    _block(out, trail, calls, block)
    return out


def complete(entries: Iterable[dict[str, Any]]) -> bool:
    """Whether a transcript is written up to the end of a turn: its last message is the
    assistant's. (Claude Code writes its transcript behind the hooks: at Stop the last
    prompt and answer may not be there yet.)"""
    last = None
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("message"), dict) and not entry.get("isSidechain"):
            last = entry.get("type")
    return last == "assistant"


def _prompt(out: Outcome, text: str) -> None:
    text = without_private(text).strip()
    if not text or text.startswith("<"):  # a command's or a reminder's text, not the user's words
        return
    if not out.goal:
        out.goal = one_line(text, GOAL_CHARS)
    decided = prompt_decision(text)
    if decided.store and len(out.decided) < MAX_ITEMS:
        out.decided.append(one_line(decided.content or text, 160))


def _block(out: Outcome, trail: Trail, calls: dict[str, Any], block: dict[str, Any]) -> None:
    kind = block.get("type")
    if kind == "tool_use":
        calls[str(block.get("id"))] = (str(block.get("name") or ""), block.get("input"))
        path = (block.get("input") or {}).get("file_path") if isinstance(block.get("input"), dict) else None
        if path and str(block.get("name", "")).lower() in ("edit", "multiedit", "write", "notebookedit"):
            name = str(path).rsplit("/", 1)[-1]
            if name not in out.edited and len(out.edited) < MAX_FILES:
                out.edited.append(name)
    elif kind == "tool_result":
        tool, arguments = calls.get(str(block.get("tool_use_id")), ("", None))
        if not tool:
            return
        text = _result_text(block.get("content"))
        failed = bool(block.get("is_error"))
        decided = tool_decision(ToolEvent(tool, arguments, text, text if failed else None), trail)
        if decided.store and decided.reason == "tool_failed" and len(out.failed) < MAX_ITEMS:
            out.failed.append(one_line(decided.content or "", 200))
        elif decided.store and decided.reason == "error_and_fix" and len(out.fixed) < MAX_ITEMS:
            command = decided.metadata.get("command", "")
            steps = decided.metadata.get("fix") or []
            how = f" after {'; '.join(steps[:3])}" if steps else ""
            out.fixed.append(one_line(f"`{command}` works{how}", 200))


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _end(text: str) -> str:
    """`text` ending with one full stop (not two after one of its own, nor after ? or !)."""
    return text if text.endswith((".", "?", "!", "。", "？", "！", "…")) else text + "."
