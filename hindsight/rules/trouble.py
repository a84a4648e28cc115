"""A question about trouble, and a memory that records some: pure rules, no I/O.

"What went wrong with the deploys?", "courier-worker 连不上 Kafka 是什么原因？", "How did we fix
the BatchEta timeouts?" ask for what happened when something failed; the memory that answers
them is the record of that failure (its `error`, or an `outcome` that says it failed or was
fixed: the metadata store_memory documents and the hooks write), not a note that merely
describes the same service. Recall ranks such records a little higher for such questions
(scoring.Weights.trouble), among comparably relevant memories only."""

from __future__ import annotations

import re
from typing import Any

_EN = re.compile(
    r"\b(?:went|go(?:es)?|going) wrong\b|\bbr(?:oke|oken|eaks?|eaking)\b|\bfail(?:s|ed|ing|ures?)?\b"
    r"|\berrors?\b|\bexceptions?\b|\bcrash\w*|\bproblems?\b|\b(?:root )?caus(?:e|ed|es|ing)\b"
    r"|\bfix(?:es|ed|ing)?\b|\b(?:solved?|resolved?|workaround)\b|\bcan(?:no|')t\b|\bcouldn't\b"
    r"|\bnot working\b|\bdoesn't work\b|\bunable to\b|\bdying\b|\bkilled\b|\bstuck\b|\btim(?:e|ed|es) ?out\b",
    re.IGNORECASE,
)
# Error handling is a way of writing code, not trouble: "How should errors be handled?"
_HANDLING = re.compile(r"\berrors? (?:are |be |is |get )?handl\w*|\bhandl\w* (?:\w+ )?errors?\b", re.IGNORECASE)
_ZH = re.compile(
    r"报错|错误|失败|出错|问题|原因|解决|修复|怎么修|连不上|挂了|崩|异常|超时|卡住|起不来|跑不起来|不工作|坏了|故障"
)
TROUBLE_OUTCOMES = frozenset({"failure", "failed", "error", "fixed"})


def asks_about_trouble(query: str) -> bool:
    """Whether the question asks what went wrong, why, or how it was fixed."""
    return bool(_EN.search(_HANDLING.sub(" ", query)) or _ZH.search(query))


def records_trouble(metadata: dict[str, Any] | None) -> bool:
    """Whether a memory's metadata records a failure: an `error`, or an `outcome` of failure,
    failed, error or fixed."""
    if not isinstance(metadata, dict):
        return False
    outcome = metadata.get("outcome")
    return bool(metadata.get("error")) or (isinstance(outcome, str) and outcome.lower() in TROUBLE_OUTCOMES)
