"""What a recall returns: `RecallResult`, its hits as `Hit` (real ids and datetimes), and
their JSON form, made by the faces when they answer (`RecallResult.json`: the keys
retrieve_memory has always returned, in the same order)."""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from ..data.records import json_value
from ..rules.timeparse import Window


@dataclass(frozen=True)
class Hit:
    """One recalled memory, and why it ranks where it does."""

    id: uuid.UUID
    agent_id: str
    session_id: str | None
    memory_type: str
    content: str
    metadata: dict[str, Any]
    tags: list[str]
    importance: int
    flags: list[str]
    slot: str | None
    created_at: datetime
    shared: bool
    project: str | None
    decay_score: float
    last_accessed: datetime | None
    score: float  # what ranking made of every channel's evidence
    channels: tuple[str, ...]  # the channels that found it
    similarity: float  # the cosine to the question
    score_parts: Mapping[str, float]
    relevance: float  # how likely it is relevant (rules.relevance)
    evidence: Mapping[str, Any]  # what that was decided on
    confidence: float  # its relevance, never rising down the list
    relevant: bool  # at or above the answer's floor (shown in a prompt block)
    possibly_outdated_by: uuid.UUID | None = None  # a newer memory that says it changed
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # what a reranker added
    # (the fields from id to last_accessed are the row's: MEMORY_FIELDS)

    @classmethod
    def of(cls, hit: Mapping[str, Any]) -> "Hit":
        """From recall's working form of a hit (a dict ranking and judging fill in)."""
        values = {k: hit[k] for k in _KNOWN if k in hit}
        values["channels"] = tuple(hit["channels"])
        return cls(**values, extra={k: v for k, v in hit.items() if k not in _KNOWN})

    def json(self) -> dict[str, Any]:
        out = {k: json_value(getattr(self, k)) for k in MEMORY_FIELDS}
        out.update(
            score=self.score,
            channels=list(self.channels),
            similarity=self.similarity,
            score_parts=dict(self.score_parts),
        )
        if self.possibly_outdated_by is not None:
            out["possibly_outdated_by"] = str(self.possibly_outdated_by)
        out.update(
            relevance=self.relevance, evidence=dict(self.evidence), confidence=self.confidence, relevant=self.relevant
        )
        return out | {k: json_value(v) for k, v in self.extra.items()}


_NAMES = [f.name for f in dataclasses.fields(Hit)]
MEMORY_FIELDS = tuple(_NAMES[: _NAMES.index("last_accessed") + 1])  # what a hit reads of its row (candidate_rows)
_KNOWN = frozenset(_NAMES) - {"extra"}


@dataclass(frozen=True)
class RecallResult:
    """A recall's answer: the hits (format json), or the prompt block and the ids it shows
    (format prompt), and how likely anything recalled is relevant."""

    nothing_relevant: bool
    relevance: float
    token_estimate: int
    open_projects: tuple[str, ...] = ()
    time_window: Window | None = None  # the time the question names
    recap: bool = False  # ... and it asks what happened then (rules.recap)
    hits: tuple[Hit, ...] | None = None  # format json
    prompt: str | None = None  # format prompt
    ids: tuple[uuid.UUID, ...] = ()  # ... the memories the block shows

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"nothing_relevant": True} if self.nothing_relevant else {}
        out["relevance"] = self.relevance
        if self.open_projects:
            out["open_projects"] = list(self.open_projects)
        if self.time_window is not None:
            w = self.time_window
            out["time_window"] = {"start": w.start.isoformat(), "end": w.end.isoformat(), "matched": w.matched}
            if self.recap:
                out["time_window"]["recap"] = True
        if self.prompt is not None:
            out.update(prompt=self.prompt, ids=[str(i) for i in self.ids], token_estimate=self.token_estimate)
            return out
        out["memories"] = [h.json() for h in self.hits or ()]
        out["token_estimate"] = self.token_estimate
        return out
