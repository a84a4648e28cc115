"""What the IDE's hooks put in front of the model. Pure: recall's hits (or the standing
memories) in, a block of text and the ids it shows out.

A prompt's block holds only what recall judged relevant to the prompt, at the hook's own
floors (rules.relevance.INJECT_AT and INJECT_HIT: the block is added to every prompt, so a
doubtful memory costs more than it gives), never a memory this session was already shown or
wrote itself (it is in the context already), within a token budget. A memory a newer one says changed is marked
with what the newer one says, or left out when the newer one is in the block too.

The standing block, at a session's start and after its context was compacted, holds the
user's and the open project's standing preferences and constraints: what to do and not to do
whatever the prompt is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable, Iterable, Sequence

from . import relevance
from .policy import is_chitchat as _chitchat
from .scoring import outdated_note
from .text import one_line

PROMPT_TOKENS = 400  # default budget of a prompt's block
STANDING_TOKENS = 300  # ... and of the standing block
MEMORY_CHARS = 360  # one memory's text in a block, at most

PROMPT_HEAD = (
    "From hindsight, memories of earlier sessions that may bear on this prompt (check them before relying on them):"
)
STANDING_HEAD = "From hindsight, the user's standing preferences and rules (follow them unless told otherwise):"

# A memory that states how the user wants things done: a preference or a rule, first or third person.
_STANDING = re.compile(
    r"(?i)\b(?:prefers?|preferred|likes?|dislikes?|hates?|wants?|would rather|favou?rs?|always|never|"
    r"must(?: not)?|don't|do not|avoid|only use|use .{1,40} instead of|instead of)\b"
    r"|偏好|喜欢|习惯|讨厌|希望|总是|一律|必须|不要|别|禁止|只能|务必|以后"
)
_STANDING_REASONS = ("preference", "constraint", "correction")


@dataclass(frozen=True)
class Block:
    text: str  # "" when nothing is shown
    ids: tuple[str, ...]


# Prompts that carry on rather than ask: nothing to recall for them.
_CARRY_ON = re.compile(
    r"(?i)^\W*(?:continue|go on|go ahead|proceed|next|do it|keep going|carry on|retry|try again|again|yes|no|y|n"
    r"|ok(?:ay)?|sure|thanks?|thank you|lgtm|ship it|继续|接着|好的?|可以|行|是|不是|对|重试|再试一次)\W*$"
)


def is_chitchat(prompt: str) -> bool:
    """A prompt with nothing to recall for: chit-chat, or a word that carries on."""
    return _chitchat(prompt) or bool(_CARRY_ON.match(prompt.strip()))


def is_standing(memory: dict[str, Any]) -> bool:
    """Whether a memory states a standing preference or rule of the user (or project)."""
    meta = memory.get("metadata") or {}
    if isinstance(meta, dict) and meta.get("reason") in _STANDING_REASONS:
        return True
    slot = memory.get("slot") or ""
    if slot.startswith(("preference:", "constraint:", "rule:")):
        return True
    return memory.get("memory_type") in ("semantic", "procedural") and bool(_STANDING.search(memory["content"]))


def worth_showing(answer: dict[str, Any], hit: dict[str, Any], shown: set[str], session_id: str | None) -> bool:
    """Whether a prompt's block may show this hit of recall's `answer`: the answer is surely
    relevant (rules.relevance.INJECT_AT: the block is added to every prompt, a doubtful one
    costs more than it gives), the hit is too (INJECT_HIT), and the session has not seen it.
    A prompt that asks what happened in the time it names ("What did I finish on Friday?",
    rules.recap) is answered by what was written then, whatever the verdict on its few words."""
    then = bool((answer.get("time_window") or {}).get("recap")) and "time" in (hit.get("channels") or ())
    if answer.get("nothing_relevant") or (float(answer.get("relevance", 0.0)) < relevance.INJECT_AT and not then):
        return False
    if not hit.get("relevant") or str(hit["id"]) in shown:
        return False
    if float(hit.get("relevance", 0.0)) < relevance.INJECT_HIT and not then:
        return False
    return not (session_id and hit.get("session_id") == session_id)  # written in this session: in its context


def prompt_block(
    hits: Sequence[dict[str, Any]],
    newer: dict[str, dict[str, Any]],
    estimate: Callable[[str], int],
    budget: int = PROMPT_TOKENS,
) -> Block:
    """The prompt's block from the hits worth showing (best first). `newer`: the memories that
    hits are possibly outdated by, by id."""
    chosen = {str(h["id"]) for h in hits}
    lines = []
    for hit in hits:
        note = outdated_note(hit, chosen, newer)
        if note is not None:
            lines.append((str(hit["id"]), _line(hit, f"; {note}" if note else "")))
    return _fit(PROMPT_HEAD, lines, estimate, budget)


def standing_block(
    memories: Iterable[dict[str, Any]], estimate: Callable[[str], int], budget: int = STANDING_TOKENS
) -> Block:
    """The standing preferences and rules among `memories` (most important first)."""
    lines = [(str(m["id"]), _line(m, "")) for m in memories if is_standing(m)]
    return _fit(STANDING_HEAD, lines, estimate, budget)


def _line(memory: dict[str, Any], mark: str) -> str:
    created = memory.get("created_at")
    day = created.isoformat()[:10] if isinstance(created, (datetime, date)) else str(created or "")[:10]
    where = f", project {memory['project']}" if memory.get("project") else ""
    return f"- [{day}, {memory.get('memory_type', 'memory')}{where}{mark}] {one_line(memory['content'], MEMORY_CHARS)}"


def _fit(head: str, lines: list[tuple[str, str]], estimate: Callable[[str], int], budget: int) -> Block:
    used = estimate(head)
    kept: list[tuple[str, str]] = []
    for memory_id, line in lines:
        cost = estimate(line)
        if used + cost > budget:
            break
        kept.append((memory_id, line))
        used += cost
    if not kept:
        return Block("", ())
    return Block("\n".join([head, *(line for _, line in kept)]), tuple(i for i, _ in kept))
