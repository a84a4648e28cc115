"""A question that asks what happened in a time it names: pure rules, no I/O.

"What did I finish on Friday?", "Remind me what I worked on last Thursday", 上周 courier 有哪些
变动？ ask for what was written then; their other words ("finish", "worked on") say little about
which memory answers them, so relevance alone cannot pick it. For such a question every
memory written in the window the question names counts as being in it (scoring's time boost
without its relevance floor) and as relevant, and the IDE's prompt hook shows what was written
then even when recall's verdict on the words is low (rules.injection).

Only a question that says little else: "Remind me what port the API used last week" or
"What did we decide about the cache TTL yesterday?" ask about something, and the time only
narrows it (the usual time boost); "What changed since last week?" asks about more than the
week it names."""

from __future__ import annotations

import math
import re

from .bilingual import STOP_EN
from .text import CJK, ZH_STOP

_DONE = (
    r"do|doing|done|work(?:ed|ing)?\s+on|finish(?:ed)?|get\s+done|got\s+done|ship(?:ped)?|change(?:d)?"
    r"|fix(?:ed)?|deploy(?:ed)?|release(?:d)?|merge(?:d)?|build|built|decide(?:d)?|discuss(?:ed)?"
    r"|talk(?:ed)?\s+about|learn(?:ed|t)?|accomplish(?:ed)?|complete(?:d)?|commit(?:ted)?|wr(?:ite|ote|itten)"
)
_EN = re.compile(
    rf"(?i)\bwhat\s+(?:did|have|has|had)\s+(?:i|we|you|they|the\s+team)\s+(?:been\s+)?(?:{_DONE})\b"
    r"|\bwhat\s+(?:was|were)\s+(?:i|we)\s+(?:doing|working\s+on|in\s+the\s+middle\s+of|up\s+to|busy\s+with)\b"
    r"|\bwhat\s+(?:happened|went\s+on|changed|got\s+(?:done|merged|fixed|shipped)|did\s+i\s+miss)\b"
    r"|\bwhat\s+(?:was|were)\s+(?:done|changed|fixed|merged|shipped|released|deployed|decided)\b"
    rf"|\bremind\s+me\s+(?:of\s+)?what\s+(?:i|we)\s+(?:(?:have|had)\s+)?(?:{_DONE})\b"
    r"|\bwhat\s+am\s+i\s+in\s+the\s+middle\s+of\b"
    r"|\b(?:recap|summar(?:y|ise|ize))\b"
)
_ZH = re.compile(
    r"(?:做|干|忙|改|修|修复|解决|完成|发布|上线|部署|提交|合并|写|讨论|聊|学)了(?:些)?(?:什么|哪些|啥)|在忙(?:什么|啥)|干嘛了"
    r"|有(?:哪些|什么|啥)(?:变动|变化|变更|进展|改动|更新)|发生了(?:什么|啥)|做过(?:什么|哪些)|进展如何|总结一下|回顾一下"
)
_SINCE = re.compile(r"(?i)\bsince\b|以来|自从|之后")
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'_-]*")
# Words that say nothing of what the question is about: the stop words, and what asking for a
# recap is phrased with ("give me a recap", "the team's stuff so far").
_EN_LIGHT = STOP_EN | frozenset(
    "team today far work stuff things anything everything give show tell let get got really please during recently "
    "lately around".split()
)
_ZH_LIGHT = frozenset(w for w in ZH_STOP if len(w) == 1) | {"些"}
OTHER_WORDS = 1  # a question that asks what happened then says at most this many other words


def asks_what_happened(question: str, time_words: str) -> bool:
    """Whether the question asks what happened, was done or changed in the time it names
    (`time_words`: the words that named it, "last Thursday", 上周), and says little else."""
    if not time_words or _SINCE.search(question):
        return False
    said = _EN.search(question) or _ZH.search(question)
    if said is None:
        return False
    rest = question.replace(said.group(), " ").replace(time_words, " ")
    english = [w for w in _EN_WORD.findall(rest) if w.lower() not in _EN_LIGHT and w.lower() not in time_words.lower()]
    chinese = sum(1 for c in rest if CJK.match(c) and c not in _ZH_LIGHT)
    return len(english) + math.ceil(chinese / 2) <= OTHER_WORDS


# A question about work left unfinished: what the working layer (memory_type "working": a task's
# scratch state, "Bisecting …, about 5 steps left") is for.
_UNFINISHED = re.compile(
    r"(?i)\bin\s+the\s+middle\s+of\b|\b(?:leave|left)\s+off\b|\bwhere\s+(?:was|were)\s+(?:i|we)\b"
    r"|\bwhat\s+(?:was|am|were|are)\s+(?:i|we)\s+(?:doing|working\s+on|up\s+to|busy\s+with)\b"
    r"|\b(?:unfinished|half[\s-](?:done|finished))\b|\bpick\s+(?:it|this|that|things)\s+(?:back\s+)?up\b"
    r"|做到哪|进行到哪|在忙(?:什么|啥)|没做完|做了一半|手头(?:的|上)|正在做(?:什么|啥)"
)


def asks_unfinished(question: str) -> bool:
    """Whether the question asks what was being done and is not finished ("What was I in the
    middle of on basket?", "Where did I leave off?", 上次做到哪了？): the working layer answers it."""
    return _UNFINISHED.search(question) is not None
