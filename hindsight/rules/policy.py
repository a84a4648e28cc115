"""What to keep and for how long. Pure: no I/O, no clock (callers pass `now`).

`should_store` is the design's event-driven filter behind `record_interaction`: an agent
hands over every interaction and only what is worth remembering becomes a memory, filed in
the layer where recall will look for it:

    procedural  failures, errors and their fixes, corrections, negative feedback, what worked
    semantic    stated preferences, constraints and facts
    episodic    tasks completed, other substantive events
    working     tool results: scratch state of this session, expiring in a day

No LLM: explicit signals first (task status, feedback, errors, tool failures), then what
the text says (preference, constraint, correction — English and Chinese), then length.
Chitchat is never kept.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .clipping import clip
from .text import CJK

# importance -> how long a memory lives when the caller gives no TTL (None: for good)
RETENTION_DAYS = {5: None, 4: 365, 3: 182, 2: 30, 1: 7}
WORKING_TTL = timedelta(days=1)
SUBSTANTIVE_CHARS = 200  # the design's "over 200 characters" (CJK characters count double)
MAX_PART_CHARS = 2000  # a tool output or error kept in a memory is cut to this


def expires_at(importance: int, memory_type: str, ttl_seconds: int | None, now: datetime) -> datetime | None:
    """An explicit TTL wins; otherwise importance decides; working memory lasts a day at most."""
    if ttl_seconds:
        return now + timedelta(seconds=ttl_seconds)
    days = RETENTION_DAYS[importance]
    if memory_type == "working":
        return now + (min(WORKING_TTL, timedelta(days=days)) if days else WORKING_TTL)
    return now + timedelta(days=days) if days else None


@dataclass(frozen=True)
class ToolResult:
    tool: str
    arguments: Any = None
    output: str = ""
    error: str | None = None

    @property
    def failed(self) -> bool:
        return bool(self.error)


@dataclass(frozen=True)
class Interaction:
    content: str
    session_id: str | None = None
    task_type: str | None = None
    task_status: str | None = None  # completed, failed, in_progress, cancelled, ...
    user_feedback: str | None = None  # positive, negative
    tool_results: tuple[ToolResult, ...] = ()
    tools_used: tuple[str, ...] = ()
    error: str | None = None
    notes: tuple[str, ...] = ()  # what parsing had to cut, told back to the caller


@dataclass(frozen=True)
class Decision:
    store: bool
    reason: str
    memory_type: str | None = None
    importance: int = 3
    content: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    from_tool: bool = False


_CHIT_WORDS = (
    r"(?:hi|hello|hey|yo|thanks|thank you|thx|ty|ok|okay|k|sure|great|cool|nice|awesome|perfect|lol|haha"
    r"|got it|sounds good|good (?:morning|night|evening|afternoon)|bye|see you|cheers|yes|yep|yeah|no worries|np"
    r"|will do|on it|done|alright|right|hmm+|wow|you're welcome|so much|a lot|man|again|mate"
    r"|好的|好|谢谢|多谢|你好|嗯+|哈+|收到|没问题|再见|辛苦了|明白|知道了|可以|行|对|早上好|晚安|啦|了|哦|呀)"
)
_CHITCHAT = re.compile(rf"(?i)^[\W_]*{_CHIT_WORDS}(?:[\s,，!！.。~]*{_CHIT_WORDS})*[\W_]*$")
_PREFERENCE = re.compile(
    r"(?i)\b(?:i|we)\s+(?:really\s+|much\s+|strongly\s+)?(?:prefer|like|love|hate|dislike|want|would rather|'d rather|"
    r"don't like|do not like|can't stand|enjoy|favou?r)\b|\b(?:i|we)'d (?:rather|prefer|like)\b"
    r"|\bmy (?:favou?rite|preference|preferred)\b"
    r"|\bour team (?:uses|prefers)\b|\bwe (?:use|always use|standardi[sz]ed on)\b|\bfrom now on\b"
    r"|\bplease (?:always|never|use|don't|do not|avoid|keep|write|reply|answer|call)\b"
    r"|我(?:更|比较|很|最|一直|还是)?(?:喜欢|偏好|偏爱|习惯|讨厌|不喜欢|希望|想要|倾向)|以后(?:请|都|一律)|请(?:用|使用|不要|别|总是|一直|始终)"
    r"|我们(?:用|使用|都用|团队用|习惯)|别用|不要用"
)
_CONSTRAINT = re.compile(
    r"(?i)\b(?:must(?: not)?|mustn't|is required|are required|not allowed|is forbidden|only use|do not use|"
    r"don't use|never use|always use|deadline|has to be|have to be|needs to stay|may not)\b"
    # a standing instruction about what the agent does: "don't push by yourself", "never force-push"
    r"|\b(?:don't|do not|never|always)\s+(?:\w+\s+){0,2}?(?:push|commit|merge|deploy|rebase|amend|force-push"
    r"|install|delete|remove|upgrade|downgrade|touch|edit|modify|change|format|reformat|run|add)(?:es|s|ed|ing)?\b"
    r"|必须|一定要|不能|不允许|禁止|只能|不得|务必|截止"
    # 别 / 不要 opening a clause: "别自动 push", "不要直接改 main" (not 别的, 特别, 区别 …)
    r"|(?:^|[，。；！,.;!\s])(?:千万|永远)?(?:别|不要)(?![的人处说急担怕客气])"
    # a standing instruction: "以后改 marts 之前先跟我确认", "回复赵敏的时候用中文"
    r"|^\s*以后(?!再说|再看)|(?:的时候|之前|以前)(?:请|都|要|就|先)?(?:用|使用|写|先|跟我|问我|确认)"
)
_CORRECTION = re.compile(
    r"(?i)\b(?:no,? i meant|that's (?:wrong|not right|incorrect|not what i)|that is (?:wrong|incorrect)|"
    r"you misunderstood|correction:|to clarify|actually,? (?:it|the|we|i|that)|not .{1,40} but\b|"
    r"i said .{1,40} not\b|wrong (?:file|branch|version|one)|revert that)\b"
    r"|不对|错了|搞错|我的意思是|应该是|纠正|更正|不是.{1,20}而是|说错"
)


# A question asks, it does not state ("Should we use a dataclass here?"), unless it is a
# standing request ("Can you use pnpm from now on?").
_REQUEST = re.compile(r"(?i)\bfrom now on\b|\bplease\b|\bgoing forward\b|以后|今后|请")


def _is_question(text: str) -> bool:
    return text.rstrip().endswith(("?", "？", "吗", "呢"))


def _weighted_len(text: str) -> int:
    return len(text) + len(CJK.findall(text))


def _cut(text: str, limit: int = MAX_PART_CHARS) -> str:
    """Head, tail and error lines of a long output, marked where it was cut (clipping.clip)."""
    return clip(text.strip(), limit, len, "characters")[0]


def _call(result: ToolResult) -> str:
    if result.arguments in (None, {}, [], ""):
        return result.tool
    args = (
        result.arguments
        if isinstance(result.arguments, str)
        else json.dumps(result.arguments, ensure_ascii=False, sort_keys=True)
    )
    return f"{result.tool} {_cut(args, 500)}"


def is_chitchat(text: str) -> bool:
    return len(text) <= 60 and bool(_CHITCHAT.match(text.strip()))


def should_store(event: Interaction) -> Decision:
    """Decide whether `event` becomes a memory, which layer it goes to and what it says:
    explicit outcomes first, then what the text says, then tool output and length."""
    for rule in (_by_outcome, _by_what_it_says):
        decision = rule(event)
        if decision is not None:
            return decision
    return _by_size(event)


def _failed_tools(event: Interaction) -> list[ToolResult]:
    return [r for r in event.tool_results if r.failed]


def _keep(
    event: Interaction,
    reason: str,
    memory_type: str,
    importance: int,
    *,
    outcome: str | None = None,
    body: str | None = None,
    from_tool: bool = False,
) -> Decision:
    """A decision to store, with the metadata recall and the history show about it."""
    metadata: dict[str, Any] = {}
    if event.task_type:
        metadata["task_type"] = event.task_type
    tools = list(dict.fromkeys([*event.tools_used, *(r.tool for r in event.tool_results)]))
    if tools:
        metadata["tools_used"] = tools
    metadata.update(source="record_interaction", reason=reason)
    if outcome:
        metadata["outcome"] = outcome
    failed_tools = _failed_tools(event)
    if event.error:
        metadata["error"] = _cut(event.error, 1000)
    elif failed_tools:
        metadata["error"] = _cut(failed_tools[0].error or "", 1000)
    params = {r.tool: r.arguments for r in event.tool_results if r.arguments not in (None, {}, [], "")}
    if params and memory_type == "procedural":
        metadata["parameters"] = params
    return Decision(True, reason, memory_type, importance, body or event.content.strip(), metadata, from_tool)


def _failure_body(event: Interaction) -> str:
    """The text, the error and each failed tool call with its error."""
    text = event.content.strip()
    lines = [text] if text else []
    if event.error:
        lines.append(f"Error: {_cut(event.error)}")
    for r in _failed_tools(event):
        lines.append(f"Tool call: {_call(r)} -> error: {_cut(r.error or '', 1000)}")
    return "\n".join(lines)


def _by_outcome(event: Interaction) -> Decision | None:
    """1. Explicit outcomes: errors (fixed or not), failed tasks and tools, negative feedback."""
    status = (event.task_status or "").lower()
    if event.error and status in ("completed", "succeeded", "success", "fixed", "resolved"):
        return _keep(event, "error_and_fix", "procedural", 4, outcome="fixed", body=_failure_body(event))
    if status in ("failed", "failure", "error", "aborted"):
        return _keep(event, "task_failed", "procedural", 4, outcome="failed", body=_failure_body(event))
    if event.error:
        return _keep(event, "error", "procedural", 3, outcome="error", body=_failure_body(event))
    if _failed_tools(event):
        return _keep(event, "tool_failed", "procedural", 3, outcome="failed", body=_failure_body(event), from_tool=True)
    if (event.user_feedback or "").lower() == "negative":
        return _keep(event, "negative_feedback", "procedural", 4, outcome="negative_feedback")
    return None


def _by_what_it_says(event: Interaction) -> Decision | None:
    """2. What the text says (correction, preference, constraint), then positive outcomes."""
    text = event.content.strip()
    if _CORRECTION.search(text):
        return _keep(event, "correction", "procedural", 4, outcome="correction")
    asks = _is_question(text)
    if _PREFERENCE.search(text) and (not asks or _REQUEST.search(text)):
        return _keep(event, "preference", "semantic", 4)
    if _CONSTRAINT.search(text) and not asks:
        return _keep(event, "constraint", "semantic", 4)
    if (event.user_feedback or "").lower() == "positive":
        return _keep(event, "positive_feedback", "procedural", 3, outcome="success")
    if (event.task_status or "").lower() in ("completed", "succeeded", "success", "done"):
        return _keep(event, "task_completed", "episodic", 3, outcome="success")
    return None


def _by_size(event: Interaction) -> Decision:
    """3. Tool output (this session's scratch state), chitchat, then length."""
    text = event.content.strip()
    substantial = [r for r in event.tool_results if len(r.output.strip()) >= 20]
    if substantial:
        parts = [text] if text else []
        parts += [f"{_call(r)} -> {_cut(r.output)}" for r in substantial]
        return _keep(event, "tool_result", "working", 2, body="\n".join(parts), from_tool=True)
    if is_chitchat(text):
        return Decision(False, "chitchat")
    if _weighted_len(text) > SUBSTANTIVE_CHARS:
        return _keep(event, "substantive", "episodic", 3)
    if event.tool_results:
        return Decision(False, "tool result too small to be worth keeping")
    return Decision(
        False,
        f"not substantive: {_weighted_len(text)} characters, no preference, "
        f"correction, outcome or error (keeps over {SUBSTANTIVE_CHARS})",
    )
