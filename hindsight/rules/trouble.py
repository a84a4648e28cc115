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
    r"\bwrong\b|\bbr(?:oke|oken|eaks?|eaking)\b(?![- ](?:glass|changes?)\b)|\bfail(?:s|ed|ing|ures?)?\b"
    r"|\berrors?\b(?![- ]budgets?\b)|\bexceptions?\b|\bcrash\w*|\bbugs?\b|\bbuggy\b|\bdebug\w*"
    r"|\bproblems?\b(?! does\b)|\b(?:root )?caus(?:e|ed|es|ing)\b|\bregress\w*|\bflaky\b|\boutages?\b"
    r"|\bfix(?:es|ing)?\b|\bfixed\b(?![- ](?:or|and|window|date|size|rate|interval|schedule|price)\b)"
    r"|\b(?:solved|resolved|workaround)\b|\bcan(?:no|'|\u2019)t\b|\bcouldn(?:'|\u2019)t\b|\bwon(?:'|\u2019)t start\b"
    r"|\bnot working\b|\b(?:doesn|don|isn)(?:'|\u2019)t work\w*|\bdo(?:es)? not work\b|\bunable to\b|\bdying\b"
    r"|\bkilled\b|\bstuck\b|\bhang(?:s|ing)?\b|\bhung\b|\btimed[- ]?out\b|\btime[- ]?outs\b|\broll(?:ed)?[- ]?back\b",
    re.IGNORECASE,
)
# Handling errors is a way of writing code, not trouble: "How should errors be handled?",
# "our error-handling convention", 错误处理.
_HANDLING = re.compile(
    r"\b(?:errors?|exceptions?)[- ](?:(?:are|be|is|get) )?handl\w*|\bhandl\w* (?:\w+ )?(?:errors?|exceptions?)\b",
    re.IGNORECASE,
)
_ZH = re.compile(
    r"报错|错误(?!处理)|失败|出错|问题|解决(?!方案)|修复|怎么修|修好|连不上|挂了|崩|异常(?!处理)|卡住|起不来|跑不起来"
    r"|不工作|坏了|故障|不生效|宕机|排查|回滚|一直重启|怎么回事"
)
FAILED_OUTCOMES = frozenset({"failure", "failed", "error"})  # a failure recorded (the tools' evidence too)
TROUBLE_OUTCOMES = FAILED_OUTCOMES | {"fixed"}  # ... or its fix


def asks_about_trouble(query: str) -> bool:
    """Whether the question asks what went wrong, why, or how it was fixed."""
    return bool(_EN.search(_HANDLING.sub(" ", query)) or _ZH.search(query))


def records_failure(metadata: dict[str, Any] | None) -> bool:
    """Whether a memory's metadata records a failure: an `error`, or an `outcome` of failure,
    failed or error."""
    return _records(metadata, FAILED_OUTCOMES)


def records_trouble(metadata: dict[str, Any] | None) -> bool:
    """Whether a memory's metadata records a failure or its fix (an `outcome` of fixed too)."""
    return _records(metadata, TROUBLE_OUTCOMES)


def _records(metadata: dict[str, Any] | None, outcomes: frozenset[str]) -> bool:
    if not isinstance(metadata, dict):
        return False
    outcome = metadata.get("outcome")
    return bool(metadata.get("error")) or (isinstance(outcome, str) and outcome.lower() in outcomes)
