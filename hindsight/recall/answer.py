"""What a recall answers: the hits, or the prompt block alone (RecallResult)."""

from __future__ import annotations

from typing import Any

from ..rules import relevance, scoring, timeparse
from ..rules.text import estimate_tokens
from .request import Request
from .result import Hit, RecallResult


def answer(
    req: Request, hits: list[dict[str, Any]], window: timeparse.Window | None, abstain: bool, anything: float = 1.0
) -> RecallResult:
    """The hits, or (format=prompt) the prompt block alone, so that max_tokens bounds what
    reaches the model. `abstain`: nothing recalled is relevant (scoring.nothing_relevant):
    the answer says so and marks every hit; the prompt block holds none. For a question that
    asks what happened in the time it names and little else (rules.recap), what was written
    then is relevant too."""
    scoring.monotone_confidence(hits)
    floor = relevance.hit_floor([h["relevance"] for h in hits])
    recap = req.recap and any("time" in h["channels"] for h in hits)  # what was written then answers it
    for hit in hits:
        hit["relevant"] = not abstain and (hit["relevance"] >= floor or (recap and "time" in hit["channels"]))
    said = {
        "nothing_relevant": abstain,
        "relevance": round(anything, 4),  # how likely anything recalled is relevant (rules.relevance)
        "open_projects": tuple(req.open_projects),
        "time_window": window,
        "recap": recap,
    }
    if req.format == "prompt":
        shown = [h for h in hits if h["relevant"]]
        newer = {str(h["id"]): h for h in hits}
        prompt, ids = scoring.prompt_block(shown, estimate_tokens, req.max_tokens, newer)
        return RecallResult(**said, prompt=prompt, ids=tuple(ids), token_estimate=estimate_tokens(prompt))
    tokens = sum(estimate_tokens(h["content"]) for h in hits)
    return RecallResult(**said, hits=tuple(Hit.of(h) for h in hits), token_estimate=tokens)
