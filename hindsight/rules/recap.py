"""A question that asks what happened in a time it names: pure rules, no I/O.

"What did I finish on Friday?", "Remind me what I worked on last Thursday", 上周 courier 有哪些
变动？ ask for what was written then; their other words ("finish", "worked on") say little about
which memory answers them, so relevance alone cannot pick it. For such a question every
memory written in the window the question names counts as being in it (scoring's time boost
without its relevance floor), and the IDE's prompt hook shows what was written then even when
recall's verdict on the words is low (rules.injection)."""

from __future__ import annotations

import re

_EN = re.compile(
    r"(?i)\bwhat\s+(?:did|have|has|had)\s+(?:i|we|you|they|the team)\s+"
    r"(?:(?:been\s+)?(?:do|doing|done|work(?:ed|ing)?\s+on|finish(?:ed)?|get\s+done|got\s+done|ship(?:ped)?"
    r"|change(?:d)?|fix(?:ed)?|deploy(?:ed)?|release(?:d)?|merge(?:d)?|build|built|decide(?:d)?"
    r"|discuss(?:ed)?|talk(?:ed)?\s+about|learn(?:ed|t)?|accomplish(?:ed)?|complete(?:d)?))\b"
    r"|\bwhat\s+(?:was|were)\s+(?:i|we)\s+(?:doing|working\s+on|in\s+the\s+middle\s+of|up\s+to|busy\s+with)\b"
    r"|\bwhat\s+(?:happened|went\s+on|changed|got\s+done|was\s+done|did\s+i\s+miss)\b"
    r"|\bremind\s+me\s+(?:of\s+)?what\b|\bwhat\s+am\s+i\s+in\s+the\s+middle\s+of\b"
    r"|\b(?:recap|summar(?:y|ise|ize))\s+(?:of\s+)?(?:what|my|our|the)\b"
)
_ZH = re.compile(
    r"(?:做|干|忙|改|修|完成|发布|上线|部署|讨论|聊|学)了(?:些)?(?:什么|哪些|啥)|在忙(?:什么|啥)"
    r"|有(?:哪些|什么|啥)(?:变动|变化|进展|改动|更新)|发生了(?:什么|啥)|做过(?:什么|哪些)|进展如何"
)


def asks_what_happened(question: str) -> bool:
    """Whether the question asks what happened, was done or changed (in a time it names)."""
    return bool(_EN.search(question) or _ZH.search(question))
