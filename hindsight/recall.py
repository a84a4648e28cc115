"""The read path: embed the query, run the fused channels in one SQL statement."""

from __future__ import annotations

from typing import Any

from . import validate as v
from .db import Database
from .embed import AsyncEmbedder
from .errors import InvalidInput
from .memories import _json, row_to_dict
from .text import estimate_tokens, keyword_text

CANDIDATES_PER_CHANNEL = 20


class Recall:
    def __init__(self, db: Database, embedder: AsyncEmbedder):
        self.db = db
        self.embedder = embedder

    async def retrieve(
        self, agent_id: str, query: Any, *, top_k: Any = 5, memory_type: Any = None,
        tags: Any = None, metadata: Any = None, include_shared: Any = True,
    ) -> dict[str, Any]:
        agent_id = v.agent_id(agent_id)
        query = v.text("query", query, max_bytes=v.MAX_QUERY_CHARS * 4)
        if len(query) > v.MAX_QUERY_CHARS:
            raise InvalidInput("query", f"is {len(query)} characters; at most {v.MAX_QUERY_CHARS} allowed")
        top_k = v.integer("top_k", top_k, 1, v.MAX_TOP_K)
        memory_type = v.memory_type(memory_type, required=False)
        tags = v.tags(tags)
        metadata = v.metadata(metadata)
        if not isinstance(include_shared, bool):
            raise InvalidInput("include_shared", "must be true or false")

        vector = await self.embedder.query(query)
        rows = await self.db.fetch(
            "recall_hybrid", agent_id, vector, include_shared, memory_type, tags, _json(metadata),
            max(CANDIDATES_PER_CHANNEL, top_k), keyword_text(query), top_k,
        )
        memories = [row_to_dict(r) for r in rows]
        for m in memories:
            m["score"] = round(float(m["score"]), 6)
        return {
            "memories": memories,
            "token_estimate": sum(estimate_tokens(m["content"]) for m in memories),
        }
