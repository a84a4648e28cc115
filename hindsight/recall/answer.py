"""What a recall answers: the JSON memories, or the prompt block alone."""

from __future__ import annotations

from typing import Any

from ..rules import relevance, scoring, timeparse
from ..rules.text import estimate_tokens
from .request import Request


def answer(
    req: Request, hits: list[dict[str, Any]], window: timeparse.Window | None, abstain: bool, anything: float = 1.0
) -> dict[str, Any]:
    """JSON memories, or (format=prompt) the prompt block alone, so that max_tokens bounds
    what reaches the model. `abstain`: nothing recalled is relevant (scoring.nothing_relevant):
    the JSON says so and marks every memory; the prompt block holds none."""
    scoring.monotone_confidence(hits)
    floor = relevance.hit_floor([h["relevance"] for h in hits])
    for hit in hits:
        hit["relevant"] = not abstain and hit["relevance"] >= floor
    result: dict[str, Any] = {"nothing_relevant": True} if abstain else {}
    result["relevance"] = round(anything, 4)  # how likely anything recalled is relevant (rules.relevance)
    if req.open_projects:
        result["open_projects"] = list(req.open_projects)
    if window:
        result["time_window"] = {
            "start": window.start.isoformat(),
            "end": window.end.isoformat(),
            "matched": window.matched,
        }
    if req.format == "prompt":
        shown = [h for h in hits if h["relevant"]]
        newer = {str(h["id"]): h for h in hits}
        result["prompt"], result["ids"] = scoring.prompt_block(shown, estimate_tokens, req.max_tokens, newer)
        result["token_estimate"] = estimate_tokens(result["prompt"])
        return result
    result["memories"] = hits
    result["token_estimate"] = sum(estimate_tokens(h["content"]) for h in hits)
    return result
