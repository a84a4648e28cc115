"""The hooks' work for one event: what a prompt is shown, what a tool call or a prompt leaves
in memory, and a session's outcome at the end of each of its turns.

A hook answers once its work is done: a prompt's block (recall, then the block) and, beside
it, the prompt's own capture; a tool call's capture; a turn's outcome. What a hook keeps is
rare (most events are dropped by rules.capture in microseconds) and takes one embedding and
one write when it is kept; working after the answer would lose it to the signal that ends
the server when the client's session ends (Claude Code sends SIGINT right after its last
hook). The session's trail (failures waiting for their fix) lives in this process; what a
session was shown lives in the database (hook_sessions, hook_shown).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..data.db import Database
from ..errors import InvalidInput
from ..recall.search import Recall
from ..rules import injection, outcome
from ..rules.capture import Trail, prompt_decision, tool_decision
from ..rules.policy import Decision
from ..rules.scoring import RECALL_CUT
from ..rules.text import estimate_tokens
from ..store import requests
from ..store.memories import Memories
from .events import HookEvent

log = logging.getLogger("hindsight.hooks")

TRAILS = 256  # sessions whose trail is kept in memory
TOP_K = 6  # hits a prompt's recall asks for
QUERY_CHARS = 2000  # a prompt is asked as a question of at most this many characters
TRANSCRIPT_BYTES = 4 * 1024 * 1024  # the end of a transcript read for a session's outcome
TRANSCRIPT_WAIT = 3.0  # s: how long a turn's outcome waits for the client to write the turn down
STANDING_CANDIDATES = 60


@dataclass(frozen=True)
class Answer:
    """What a hook gives back: text for the model's context ("" for none), and the ids in it."""

    context: str = ""
    ids: tuple[str, ...] = ()


class Hooks:
    def __init__(self, db: Database, memories: Memories, recall: Recall, *, tokens: int = injection.PROMPT_TOKENS):
        self.db = db
        self.memories = memories
        self.recall = recall
        self.tokens = tokens
        self._trails: OrderedDict[tuple[str, str], Trail] = OrderedDict()
        self._failures: dict[tuple[str, str, str], str] = {}  # a stored failure's memory, by its key

    async def handle(
        self, agent: str, event: HookEvent, project: str | None, *, capture: bool = True, transcripts: bool = True
    ) -> Answer:
        """One event. `capture`: store what it holds worth keeping (a project may turn it off);
        `transcripts`: read the session's transcript file for its outcome (only where the server
        runs beside the client, on its machine)."""
        due = await self._seen(agent, event.session_id, project)
        if event.name == "UserPromptSubmit":
            keep = prompt_decision(event.prompt) if capture and event.prompt else None
            answer, _ = await asyncio.gather(
                self._for_prompt(agent, event, project, due),
                self._keep(agent, event, project, keep) if keep is not None else _nothing(),
            )
            return answer
        if event.name == "SessionStart":
            return await self._standing(agent, event.session_id, project) if due or event.source else Answer()
        if event.name in ("PostToolUse", "PostToolUseFailure") and event.tool is not None:
            if capture:
                await self._tool(agent, event, project)
            return Answer()
        if event.name == "PreCompact" and event.session_id:
            await self.db.execute("hook_standing_due", agent, event.session_id)
        if event.name in ("PreCompact", "Stop") and capture and transcripts and event.transcript_path:
            await self._outcome(agent, event, project)
        return Answer()

    # ---- what the model is shown ----------------------------------------------------------------
    async def _for_prompt(self, agent: str, event: HookEvent, project: str | None, due: bool) -> Answer:
        standing = await self._standing(agent, event.session_id, project) if due else Answer()
        query = " ".join(event.prompt.split())[:QUERY_CHARS]
        if not query or injection.is_chitchat(query):
            return standing
        found = await self.recall.retrieve(
            agent, query, top_k=TOP_K, session_id=event.session_id, open_projects=(project,) if project else ()
        )
        shown = set(standing.ids) | await self._shown(agent, event.session_id)
        hits = [h for h in found["memories"] if injection.worth_showing(found, h, shown, event.session_id)]
        newer = await self._newer(agent, hits, found["memories"])
        block = injection.prompt_block(hits, newer, estimate_tokens, self.tokens)
        await self._mark_shown(agent, event.session_id, block.ids)
        text = "\n\n".join(t for t in (standing.context, block.text) if t)
        return Answer(text, standing.ids + block.ids)

    async def _standing(self, agent: str, session_id: str | None, project: str | None) -> Answer:
        rows = await self.db.fetch("hook_standing_candidates", agent, project, STANDING_CANDIDATES, RECALL_CUT)
        block = injection.standing_block([dict(r) for r in rows], estimate_tokens)
        if session_id:
            await self.db.execute("hook_standing_shown", agent, session_id)
            await self._mark_shown(agent, session_id, block.ids)
        return Answer(block.text, block.ids)

    async def _newer(
        self, agent: str, hits: list[dict[str, Any]], recalled: list[dict[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        """The memories some hits are possibly outdated by, by id: from what recall found (the
        newer one usually ranks above), else read."""
        out = {str(h["id"]): h for h in recalled}
        for later in {str(h["possibly_outdated_by"]) for h in hits if h.get("possibly_outdated_by")} - set(out):
            try:
                out[later] = (await self.memories.get(requests.get(agent, later))).json()
            except Exception:  # deleted meanwhile: the mark says only that it changed
                continue
        return out

    # ---- what a session was shown ---------------------------------------------------------------
    async def _seen(self, agent: str, session_id: str | None, project: str | None) -> bool:
        """Record the session's call; whether its standing preferences are due."""
        if not session_id:
            return False
        return await self.db.fetchval("hook_session_seen", agent, session_id, project) is None

    async def _shown(self, agent: str, session_id: str | None) -> set[str]:
        if not session_id:
            return set()
        return {str(r["memory_id"]) for r in await self.db.fetch("hook_shown_ids", agent, session_id)}

    async def _mark_shown(self, agent: str, session_id: str | None, ids: tuple[str, ...]) -> None:
        if session_id and ids:
            await self.db.execute("hook_mark_shown", agent, session_id, list(ids))

    # ---- what the hooks keep --------------------------------------------------------------------
    async def _keep(
        self, agent: str, event: HookEvent, project: str | None, decision: Decision, **more: Any
    ) -> str | None:
        """Store what a decision keeps; its memory's id."""
        if not decision.store or not decision.content:
            return None
        metadata = {**decision.metadata, "source": "hook", "hook": event.name, "reason": decision.reason}
        result = await self.memories.store(
            agent,
            decision.content,
            memory_type=decision.memory_type,
            session_id=event.session_id,
            importance=decision.importance,
            metadata=metadata,
            from_tool=decision.from_tool,
            open_project=project,
            call="hook",
            reason=decision.reason,
            **more,
        )
        if event.session_id:
            await self.db.execute("hook_captured", agent, event.session_id)
        log.info("hook %s kept %s (%s, %s)", event.name, result["id"], decision.reason, result["status"])
        return result["id"]

    async def _outcome(self, agent: str, event: HookEvent, project: str | None) -> None:
        waited = 0.0  # at Stop the turn is over, and its answer may not be written yet; at PreCompact
        # (mid-turn, often right after a tool's result) what is written is all there is
        entries = await asyncio.to_thread(_transcript, event.transcript_path)
        while event.name == "Stop" and entries and not outcome.complete(entries) and waited < TRANSCRIPT_WAIT:
            await asyncio.sleep(0.1)  # the client writes the turn behind its hooks
            waited += 0.1
            entries = await asyncio.to_thread(_transcript, event.transcript_path)
        found = outcome.read(entries)
        if not found.worth_keeping() or not event.session_id:
            return
        day = datetime.now(timezone.utc).date().isoformat()
        decision = Decision(
            True, "session_outcome", "episodic", 3, found.text(day, project), {"outcome": "session"}, False
        )
        await self._keep(agent, event, project, decision, slot=f"session:{event.session_id}")

    async def _tool(self, agent: str, event: HookEvent, project: str | None) -> None:
        """A tool call: a failure is stored, and a fix supersedes the failure it fixed (the
        fix says it all)."""
        assert event.tool is not None
        trail = self._trail(agent, event.session_id)
        decision = tool_decision(event.tool, trail)
        if not decision.store:
            return
        if decision.reason == "tool_failed":
            known = {"outcome": "fixed", "error": decision.metadata["error"]}
            if await self.db.fetchval("hook_known_fix", agent, known) is not None:
                return  # fixed before (that memory says how): the fix that follows will repeat it
            stored = await self._keep(agent, event, project, decision)
            if stored:
                self._failures[(agent, event.session_id or "", trail.open[-1].key)] = stored
            return
        closed = trail.closed.key if trail.closed else ""
        failed_id = self._failures.pop((agent, event.session_id or "", closed), None)
        try:
            await self._keep(agent, event, project, decision, supersedes=failed_id)
        except InvalidInput:  # the failure's memory was changed meanwhile: the fix alone
            await self._keep(agent, event, project, decision)

    def _trail(self, agent: str, session_id: str | None) -> Trail:
        key = (agent, session_id or "")
        trail = self._trails.pop(key, None) or Trail()
        self._trails[key] = trail
        while len(self._trails) > TRAILS:
            self._trails.popitem(last=False)
        return trail


async def _nothing() -> None:
    return None


def _transcript(path: str | None) -> list[dict[str, Any]]:
    """The entries of a transcript (JSONL), its last TRANSCRIPT_BYTES; [] if it cannot be read."""
    if not path or not path.endswith(".jsonl"):
        return []
    try:
        file = Path(path)
        if not file.is_file():
            return []
        with file.open("rb") as f:
            size = file.stat().st_size
            if size > TRANSCRIPT_BYTES:
                f.seek(size - TRANSCRIPT_BYTES)
                f.readline()  # a partial line
            data = f.read()
    except OSError:
        return []
    out = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            out.append(entry)
    return out
