"""Why a memory came back, in words: recall's channels and score parts (hindsight/rules/scoring.py
defines them), its confidence, the guard's flags, history actions. Pure."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..services.vocabulary import Weights

W = Weights()

CHANNELS = {
    "vector": "its meaning is close to the query (the dense channel: embeddings)",
    "keyword": "it shares words with the query (the keyword channel: BM25)",
    "shared_keyword": "it shares words with the query, in a memory another agent shared",
    "time": "it was written inside the time the query names",
    "tools": "it used a tool you named",
    "recent": "it is from the session or task type you named",
    "context": "it sits next to a strong match in its session (or two turns from its speaker's) and borrows from it",
    "outdated": "a newer memory says this changed: it is ranked below that one",
}

FLAGS = {
    "absolute": 'a sweeping claim ("never", "always"): started weaker',
    "needs_review": "unconfirmed: the guard asks a person to look at it",
    "instruction_like": "it reads like instructions to a model: kept as data, never obeyed",
    "low_trust": "low trust: recall ranks it at 0.85",
    "from_tool": "its text came from a tool's output",
}

ACTIONS = {
    "create": "stored",
    "reinforce": "reinforced by a duplicate write",
    "update": "changed",
    "invalidate": "invalidated",
    "supersede": "superseded",
    "archive": "moved to the archive",
    "restore": "restored",
    "consolidate": "folded into a consolidated memory",
    "delete": "forgotten (deleted)",
}


def confidence_words(confidence: float) -> str:
    """The probability that a hit is relevant (rules.relevance), in a word."""
    if confidence >= 0.5:
        return "high"
    if confidence >= 0.2:
        return "medium"
    return "low"


def reasons(hit: dict[str, Any]) -> list[str]:
    """One sentence per channel that found the hit, strongest evidence first."""
    order = ["keyword", "shared_keyword", "vector", "time", "tools", "recent", "context", "outdated"]
    chans = [c for c in order if c in hit.get("channels", [])]
    chans += sorted(c for c in hit.get("channels", []) if c not in order)
    out = []
    for c in chans:
        text = CHANNELS.get(c, c)
        if c == "vector":
            text += f", cosine {hit.get('similarity', 0):.2f}"
        out.append(text)
    return out


def score_lines(hit: dict[str, Any]) -> list[tuple[str, float, str]]:
    """(part, value, what it means) for each score part recall reported."""
    p = hit.get("score_parts", {})
    lines = [
        ("dense", p.get("dense", 0.0), "closeness in meaning, scaled so the closest candidate is 1"),
    ]
    if "replaced" in p:
        lines.append(
            (
                "replaced",
                p["replaced"],
                f"cosine of a memory it replaced, less {W.replaced_margin:g}: nearer than its own, so ranked by",
            )
        )
    lines += [
        ("keyword", p.get("keyword", 0.0), "word match (BM25) relative to the best word match"),
        (
            "relevance",
            p.get("relevance", 0.0),
            f"= {W.alpha:g} × dense + {1 - W.alpha:g} × keyword: how well it answers the query",
        ),
    ]
    if "time" in p:
        recap = p["time"] == W.recap and W.recap != W.time
        said = " (it asks what happened then: every memory written then)" if recap else ""
        lines.append(("time", p["time"], f"boost: inside the time the query names{said}"))
    if "unfinished" in p:
        lines.append(("unfinished", p["unfinished"], "boost: a working memory, for a question about unfinished work"))
    if "tools" in p:
        lines.append(("tools", p["tools"], "boost: used a tool you named (more when it failed with it)"))
    if "session" in p:
        lines.append(("session", p["session"], "boost: the session or task type you named"))
    if "trouble" in p:
        lines.append(("trouble", p["trouble"], "boost: records a failure, for a question about one"))
    if "value" in p:
        lines.append(
            (
                "value",
                p["value"],
                "boost: holds the kind of value the question asks for (how often, how long…),"
                " or names a tool of the kind it asks which one of",
            )
        )
    if "context" in p:
        lines.append(
            (
                "context",
                p["context"],
                "added: borrowed from a neighbour in its session (or the speaker's turn two away)",
            )
        )
    for part, means in PRIORS.items():
        if part in p:
            lines.append((part, p[part], means))
    return lines


PRIORS = {  # score parts that multiply the score after the context step (rules/scoring.py, step 5-6)
    "speaker": "prior: × (1 + this): said by a person the query names",
    "asking": "prior: × this: it ends by asking (its answer holds more)",
    "pointed": 'prior: × this: the project the query points at ("this repo") or names',
    "other_project": "prior: × this: another project's than the open one",
}


def formula(hit: dict[str, Any]) -> str:
    """How the parts became the score, with this hit's numbers."""
    p = hit.get("score_parts", {})
    boosts = [k for k in ("time", "unfinished", "tools", "trouble", "value", "session") if k in p]
    text = f"score {hit.get('score', 0):.3f} ≈ relevance {p.get('relevance', 0):.3f}"
    if boosts:
        text += " × (1 + " + " + ".join(f"{k} {p[k]:g}" for k in boosts) + ")"
    if "context" in p:
        text += f" + context {p['context']:.3f}"
    text += ", then small priors (importance ±2 % a step, decay, low trust"
    text += (
        "".join(f", {k} ×{1 + p[k] if k == 'speaker' else p[k]:g}" for k in PRIORS if k in p) + ")"
    )  # speaker: 1 + it
    if hit.get("possibly_outdated_by"):
        text += "; capped under the newer memory that says it changed"
    return text


def state(memory: dict[str, Any], now: datetime) -> tuple[str, str]:
    """(css class, words) for where a memory stands."""
    if memory.get("archived_at"):
        return "state-old", f"archived ({memory.get('archive_reason')})"
    if memory.get("invalidated_by"):  # replaced by another: `hindsight show` says the same
        return "state-gone", f"superseded by {memory['invalidated_by']}: no longer recalled, kept as history"
    if memory.get("invalidated_at"):
        return "state-gone", "invalidated: no longer recalled, kept as history"
    if memory.get("expires_at") and datetime.fromisoformat(memory["expires_at"]) <= now:
        return "state-old", "expired: no longer recalled; archived at the next maintenance run"
    return "state-current", "current"
