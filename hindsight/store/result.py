"""What a store returns: `StoreResult` (real ids, the stored Memory) and its JSON form, made
by the faces when they answer (`StoreResult.json`: the keys store_memory has always
returned, in the same order)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Mapping

from ..data.records import Memory

CONFLICT_HINT = (
    "Recall already ranks this newer memory above older similar ones it says changed. If it "
    "replaces one of them, confirm it: invalidate_memory(memory_id=<old id>, reason=..., "
    "replaced_by='{id}') (CLI: hindsight invalidate <old id> --reason ... --replaced-by {id})."
)


@dataclass(frozen=True)
class StoreResult:
    """status: created, duplicate (an existing memory was reinforced: duplicate_of) or
    superseded (the new memory replaced `superseded`)."""

    id: uuid.UUID
    status: str
    memory: Memory
    superseded: tuple[uuid.UUID, ...] = ()
    duplicate_of: uuid.UUID | None = None
    possible_conflicts: tuple[Mapping[str, Any], ...] = ()  # similar memories it may contradict (JSON-ready)
    flags: tuple[str, ...] = ()  # the guard's
    redacted: tuple[str, ...] = ()  # the kinds of secret or personal data taken out
    sealed: bool = False  # the original kept encrypted

    @property
    def conflict_hint(self) -> str | None:
        """How to confirm that it replaces one of its possible conflicts."""
        return CONFLICT_HINT.format(id=self.id) if self.possible_conflicts else None

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": str(self.id), "status": self.status}
        if self.superseded:
            out["superseded"] = [str(i) for i in self.superseded]
        if self.duplicate_of is not None:
            out["duplicate_of"] = str(self.duplicate_of)
        if self.possible_conflicts:
            out["possible_conflicts"] = [dict(c) for c in self.possible_conflicts]
            out["conflict_hint"] = self.conflict_hint
        if self.flags:
            out["flags"] = list(self.flags)
        if self.redacted:
            out["redacted"] = list(self.redacted)
            out["sealed"] = self.sealed
        out["memory"] = self.memory.json()
        return out
