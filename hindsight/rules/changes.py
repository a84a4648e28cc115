"""Whether a newer memory says an older one changed: pure functions, no I/O.

The write path (`likely_outdated`, `likely_replaces`) and recall (a fact ranked under its
unlinked successor) ask the same question, and both answer it here. Raw cosine is not
enough: multilingual-e5 puts unrelated Chinese sentences above 0.90 of each other ("the
test server moved to test-02" and "restart Nginx after a config change": 0.907), while an
English sentence and its Chinese restatement can sit near 0.85. So a pair counts as a change
when all three hold:

1. the newer text says something changed ("now", "moved to", "改成", "已经换成", ...);
2. their cosine reaches the floor of their scripts: `latin` when both are Latin script,
   `cjk` when both are Chinese/Japanese/Korean (identifiers inside allowed), `cross` when
   they differ;
3. they are about the same thing: at least `shared` (`cjk_shared` for two CJK texts) of
   the shorter one's subject words
   (content words and identifiers, the change words left out; "reports" meets "reporting",
   and a Chinese word also stands for its English glosses, so "数据库" meets "database")
   appear in the other.

The floors and the share were measured on benchmarks/data/outdated_pairs.jsonl (64 labelled
pairs, EN, ZH and mixed: real changes and look-alike unrelated pairs); see
benchmarks/outdated_rule.py and benchmarks/README.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

from . import bilingual
from .text import cjk_share, keyword_text

# Words that say a fact changed: what a newer memory writes when it replaces an older one.
CHANGE = re.compile(
    r"(?i)\b(?:now|no longer|not any more|anymore|instead(?: of)?|replaced|replaces|switched|moved|migrated"
    r"|is gone|are gone|removed|decommissioned|deprecated|retired|dropped|from now on|going forward"
    r"|changed to|these days|nowadays|superseded|no more)\b"
    r"|现在|已经|换成|改成|改为|改用|换到|迁到|迁移到|不再|不用了|下线|废弃|取代|替换|以后都|从此"
)


def states_change(text: str) -> bool:
    """Whether a memory's text says that something changed (EN and ZH)."""
    return bool(CHANGE.search(text))


@dataclass(frozen=True)
class ChangeRule:
    latin: float = 0.90  # cosine floor for two Latin-script texts
    cjk: float = 0.935  # ... two mostly-CJK texts (e5 rates unrelated Chinese pairs high)
    cross: float = 0.90  # ... one of each: not lower, although e5 rates translations lower than
    # paraphrases; a bilingual team restates a fact in the other language ("basket reports
    # crashes to Sentry now" / "Android 的崩溃现在去 Sentry 看"), and at 0.84 the restatement
    # outdated the original (IDE benchmark s14, s27)
    shared: float = 0.25  # share of the shorter text's subject words found in the other
    cjk_shared: float = 0.6  # ... for two CJK texts: their generic words (项目, 服务器) meet
    # anyway ("the test server is now test-02" / "the staging server is now pre-02": 0.5)
    cjk_text: float = 0.3  # a text counts as CJK from this cjk_share (Chinese with identifiers
    # in it, "Node.js 现在统一用 20 LTS", is 0.45)


Translate = Callable[[list[str]], Iterable[str]]  # words -> their glosses in the other language


SUBJECT_CHARS = 2000  # what a memory is about, and what it says changed, is said in its first lines


def subject_words(text: str, translate: Translate | None = None) -> tuple[frozenset[str], ...]:
    """The text's subject words, each as the set of forms it matches (bilingual.word_forms):
    itself lower-cased, without its inflection, and (with `translate`) its glosses in the
    other language. Change words, stop words and single letters are left out. Read from the
    first SUBJECT_CHARS characters (a tool's output pasted below a note adds only time), and
    kept for the texts seen last: a write compares its text with eight neighbours, and recall
    its hits with one another."""
    return _subject_words(text[:SUBJECT_CHARS], translate)


@lru_cache(maxsize=256)
def _subject_words(text: str, translate: Translate | None) -> tuple[frozenset[str], ...]:
    words = bilingual.query_words(keyword_text(CHANGE.sub(" ", text)))
    return tuple(frozenset(forms) for forms in bilingual.word_forms(words, translate))


def shared_share(a: tuple[frozenset[str], ...], b: tuple[frozenset[str], ...]) -> float:
    """The share of the shorter list's words that meet a word of the other (one form in common)."""
    short, other = (a, b) if len(a) <= len(b) else (b, a)
    if not short:
        return 0.0
    forms = set().union(*other) if other else set()
    return sum(1 for word in short if word & forms) / len(short)


def scripts(old_text: str, new_text: str, rule: ChangeRule) -> str:
    """ "latin", "cjk" (both texts in that script) or "cross"."""
    old_cjk = _written_in_cjk(old_text[:SUBJECT_CHARS], rule.cjk_text)
    new_cjk = _written_in_cjk(new_text[:SUBJECT_CHARS], rule.cjk_text)
    if old_cjk != new_cjk:
        return "cross"
    return "cjk" if old_cjk else "latin"


@lru_cache(maxsize=256)
def _written_in_cjk(start: str, share: float) -> bool:
    """Whether a text's first lines are CJK script (kept for the texts seen last, as
    subject_words: recall asks it of each of its best candidates against every other)."""
    return cjk_share(start) >= share


def floor(old_text: str, new_text: str, rule: ChangeRule) -> float:
    """The cosine floor for this pair's scripts."""
    return float(getattr(rule, scripts(old_text, new_text, rule)))


def says_changed(
    old_text: str,
    new_text: str,
    cosine: float,
    rule: ChangeRule,
    translate: Translate | None = None,
) -> bool:
    """Whether `new_text` (the newer memory) says that `old_text` changed (see the module)."""
    return states_change(new_text) and changed_from(old_text, new_text, cosine, rule, translate)


def changed_from(
    old_text: str,
    new_text: str,
    cosine: float,
    rule: ChangeRule,
    translate: Translate | None = None,
) -> bool:
    """says_changed, for a newer text already known to say that something changed
    (states_change): the pair reaches its scripts' cosine floor and is about the same thing
    (2. and 3. above)."""
    if cosine < floor(old_text, new_text, rule):
        return False
    return about_the_same(old_text, new_text, rule, translate)


def about_the_same(old_text: str, new_text: str, rule: ChangeRule, translate: Translate | None = None) -> bool:
    """Whether two texts share enough subject words to be about the same thing (3. above)."""
    share = shared_share(subject_words(old_text, translate), subject_words(new_text, translate))
    return share >= (rule.cjk_shared if scripts(old_text, new_text, rule) == "cjk" else rule.shared)
