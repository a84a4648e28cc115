"""The pure steps of a write, before the database: redact secrets and personal data (sealing
the original when a key is set), the guard's flags and strength, the dedup key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules import dedup, guard, privacy
from ..rules.text import content_hash, indexed_text, normalised


@dataclass(frozen=True)
class WritePolicy:
    dedup_threshold: float = dedup.DEFAULT_THRESHOLD
    conflict_threshold: float = dedup.DEFAULT_CONFLICT_THRESHOLD
    sealer: privacy.Sealer | None = None

    @classmethod
    def from_settings(cls, settings) -> "WritePolicy":
        return cls(
            settings.dedup_threshold,
            settings.conflict_threshold,
            privacy.Sealer(settings.encryption_key) if settings.encryption_key else None,
        )


@dataclass
class Prepared:
    """A write after the pure steps: what goes into the row."""

    content: str
    metadata: dict[str, Any]
    redacted: list[str]
    sealed: bytes | None
    flags: list[str]
    strength: float
    dedup_key: bytes


def prepare(
    policy: WritePolicy,
    content: str,
    metadata: dict[str, Any],
    sensitive: list[str],
    memory_type: str,
    session_id: str | None,
    from_tool: bool,
) -> Prepared:
    scrubbed = privacy.scrub(content, metadata, sensitive)
    sealer = policy.sealer
    sealed = sealer.seal(content, metadata) if scrubbed.changed and sealer else None
    verdict = guard.assess(scrubbed.content, from_tool=from_tool)
    scope = f"{session_id or ''}\x00" if memory_type == "working" else ""
    if sealed is not None:  # a keyed hash: an unkeyed one would let secrets be guessed
        key = sealer.keyed_hash((scope + normalised(content)).encode("utf-8"))
    else:
        key = content_hash(scope + scrubbed.content)
    return Prepared(
        scrubbed.content, scrubbed.metadata, scrubbed.kinds, sealed, list(verdict.flags), verdict.strength, key
    )


def prepare_with_key(*args: Any, tags: list[str]) -> tuple[Prepared, tuple[str, ...], str]:
    """prepare(), the lexical key of the content near-duplicates are compared by, and the
    keyword index's text: every step that reads the whole text, in one call that the write
    path runs off the event loop."""
    p = prepare(*args)
    return p, dedup.lexical_key(p.content), indexed_text(p.content, p.metadata, tags)


def search_text(state, p: Prepared | None, tags: list[str] | None) -> str | None:
    """The keyword text after an update, when content, metadata or tags changed."""
    if p is None and tags is None:
        return None
    return indexed_text(
        p.content if p else state["content"],
        p.metadata if p else state["metadata"],
        tags if tags is not None else state["tags"],
    )
