"""Whether a recalled memory is relevant to the question, as a probability. Pure: the
evidence recall already has in, a number out.

multilingual-e5 puts unrelated text at 0.73-0.88 of a question, so no cosine threshold tells
relevant from not. What does, together (`Evidence`):

    similarity  the cosine to the question
    lead        how far it stands above the question's typical candidate (the median of the
                candidates' cosines): an answer stands out, a question nothing answers has
                every memory at about the same distance
    coverage    the share of the question's words (their inflections and, across languages,
                their glosses) the memory holds, each weighed by its rarity among the agent's
                memories (a word every memory holds counts for little); for a question that
                points at the open project ("this repo", 这里), the pointer is not a word of it
                and the project is: the project's memories hold it
    missing     how rare, among the agent's memories, the rarest question word the memory
                lacks is (1: in no memory, 0: in every one): a memory about the right service
                that lacks the one specific word asked about ("Kotlin", "compensation")
    unknown     the share of the question's words no memory of the agent holds at all (a
                Chinese word is held as written or as a whole translation: "会议室" is not held
                by memories that say "meeting" and "room"; bilingual.exact_glosses)
    keyword     whether the keyword channel (BM25) found it
    cross       whether the question and the memory are written in different scripts (e5
                rates translations lower than paraphrases)
    short       whether the question has at most two words of its own
    first       1 / its rank: what the ranking made of every other signal (the time the
                question names, the tools, the session, newer facts)
    project     whether it is the open project's memory (1), global (0) or another
                project's (-1): "this repo" questions lean on the open project
    named       whether the question names something no memory of the agent holds: a word
                written with a capital or a digit ("Kotlin", "SOC 2"), or a Chinese word ("年假")
                — what it asks about was never stored, however close the rest is
    lacks       whether the question asks for a kind of value (an amount of money, a number,
                how often, a time of day; rules.asks) the memory holds none of: the note on
                the Redis cluster's shards does not say what the cluster costs

A logistic model weighs them (`WEIGHTS`, `BIAS`): the probability that this memory is one
the question is after. A second one weighs the whole answer (`question_vector`: its best
hit's probability, whether the question names something never stored, the share of its words
no memory holds, the best lead, coverage and cosine, whether its most probable hit lacks the
kind of value asked for): the probability that anything recalled is relevant. Both are
fitted by benchmarks/relevance_fit.py on labelled pairs: the IDE benchmark's questions and
their gold memories, questions nothing answers, LoCoMo questions asked of their own
conversation and of another one (which cannot answer them), and the hooks' prompts; part of
each kind is kept aside and only measured. Recall says nothing relevant is remembered below
`RELEVANT_AT`, or when the question asks for a kind of value none of the first
`LACKING_TOP` hits holds (`lacking`), a rule beside the model: each such hit is weighed down
by `lacks`, but three about the right thing that all lack it leave the model sure while the
answer cannot be there (`says_nothing`: for a question that names a time, only if it also
names something never stored); a hit below `HIT_AT`, or below `BEST_SHARE` of the best hit's
probability, is not relevant (the prompt block leaves it out); the IDE hooks show nothing
below `INJECT_AT`, and then only the hits from `INJECT_HIT`. A hit's `confidence` is its
probability, never rising down the list.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from .changes import Translate, subject_words
from .text import CJK


@dataclass(frozen=True)
class Evidence:
    similarity: float
    lead: float
    coverage: float
    missing: float  # how rare the rarest question word the memory lacks is (0: it lacks none)
    unknown: float
    keyword: bool
    cross: bool
    short: bool
    first: float  # 1 / rank: what ranking made of every other signal (time, tools, session)
    project: int  # 1: the open project's, 0: global (or no project open), -1: another project's
    named: bool  # the question names something no memory holds (a name, a version, a Chinese term)
    lacks: bool  # the question asks for a kind of value the memory holds none of (rules.asks)

    @property
    def translated(self) -> float:
        """coverage across scripts: a translation holds the question's words (through their
        glosses); a note that shares one glossed common word ("测试" → test) does not."""
        return self.coverage if self.cross else 0.0

    def vector(self) -> tuple[float, ...]:
        return (
            self.similarity,
            self.lead,
            self.coverage,
            self.missing,
            self.unknown,
            float(self.keyword),
            float(self.cross),
            float(self.short),
            self.first,
            float(self.project),
            float(self.named),
            self.translated,
            float(self.lacks),
        )


NAMES = (
    "similarity",
    "lead",
    "coverage",
    "missing",
    "unknown",
    "keyword",
    "cross",
    "short",
    "first",
    "project",
    "named",
    "translated",
    "lacks",
)
# Fitted by benchmarks/relevance_fit.py (its table says on what, and how it does on the part kept aside);
# the block's floor (HIT_AT, BEST_SHARE) from the fit before: the last one's would drop LoCoMo gold from blocks.
CENTER = (0.8103, 0.0182, 0.1889, 0.8658, 0.2938, 0.776, 0.05767, 0.05833, 0.2929, 0.0765, 0.435, 0.01284, 0.024)
WEIGHTS = (5.867, 5.159, 2.269, 0.5204, -0.511, -0.07465, 0.2345, 0.1225, 3.451, -0.003643, -2.206, 1.803, -0.7135)
BIAS = -4.53

# Whether anything recalled is relevant: a second logistic model over the whole answer — its
# best hit's probability, and the question's own evidence (QUESTION_NAMES).
QUESTION_NAMES = ("best", "named", "unknown", "lead", "coverage", "similarity", "lacks")
QUESTION_CENTER = (0.3201, 0.435, 0.2938, 0.04716, 0.463, 0.8392, 0.01667)
QUESTION_WEIGHTS = (6.046, -1.448, -0.1047, -1.726, 3.076, 56.66, -1.768)
QUESTION_BIAS = -0.9861
RELEVANT_AT = 0.26  # the question's probability from which recall says something relevant is remembered
INJECT_AT = 0.58  # ... from which the IDE hooks show anything
HIT_AT = 0.02  # a hit's probability from which it is relevant (in an answer that has any) ...
BEST_SHARE = 0.1  # ... and at least this share of the best hit's: a block is not padded with the weak
INJECT_HIT = 0.02  # ... from which a hook's block shows it


LACKING_TOP = 3  # rules.relevance.lacking: how many of the first hits must all lack the kind asked for
COMMON = 0.05  # the least a question word weighs in coverage (one every memory holds)


def probability(e: Evidence) -> float:
    """P(this memory is relevant | its evidence), by the fitted logistic model."""
    return _logistic(BIAS + sum(w * (x - c) for w, x, c in zip(WEIGHTS, e.vector(), CENTER)))


def says_nothing(
    anything: float, named: bool, names_a_time: bool, lacking: bool = False, undated: bool = False
) -> bool:
    """Whether recall says nothing relevant is remembered: the answer's probability is below
    RELEVANT_AT, or the question asks for a kind of value none of its first hits holds
    (`lacking`). A question that names a time ("yesterday", 上周) asks what was written then,
    often in few other words ("What did we work on yesterday?"): what was written then is its
    answer, whatever the verdict — unless it also names something no memory holds ("our SOC 2
    audit date this year"), which nothing written then, or ever, answers; or it asks for a kind
    of value no date gives (`undated`: an amount of money, a version; rules.asks
    UNDATED) and none of its first hits holds one: "周末值班有多少补贴？" (the weekend on-call
    allowance) is not answered by the notes on this weekend's on-call, which name no amount."""
    if names_a_time and not named and not (lacking and undated):
        return False
    return lacking or anything < RELEVANT_AT


NARROW_DAYS = 93  # a time the question names selects what was written then if it spans at most a quarter ...


def narrows(days: int, recap: bool) -> bool:
    """Whether the time a question names selects what was written then (says_nothing's
    `names_a_time`): a day, a week, a month or a quarter does; "this year" spans about every
    memory an agent has, so "Where is the team offsite this year?" is asked of all of them and
    answered only by what its words find — unless the question asks what happened then ("What
    did we ship this year?", rules.recap), which every memory of the year answers."""
    return recap or days <= NARROW_DAYS


def lacking(lacks: Sequence[bool]) -> bool:
    """Whether the question asks for a kind of value (rules.asks: an amount, a number, a
    duration, how often, a time of day) and none of the answer's first LACKING_TOP hits holds
    one: "What is the on-call compensation per week?" over notes on the rotation that name no
    amount. Recall ranks what answers a question first; three hits about the right thing, none
    of which states a value of the kind asked, do not answer it."""
    top = lacks[:LACKING_TOP]  # each hit's `lacks`, in rank order
    return bool(top) and all(top)


def hit_floor(probabilities: Sequence[float]) -> float:
    """The probability a hit needs to be shown as relevant beside the others of its answer."""
    return max(HIT_AT, BEST_SHARE * max(probabilities, default=0.0))


def question_vector(hits: Sequence[tuple[float, Evidence]]) -> tuple[float, ...]:
    """The evidence about the whole answer, from each hit's (probability, evidence)."""
    if not hits:
        return (0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
    first = hits[0][1]
    return (
        max(p for p, _ in hits),
        float(first.named),
        first.unknown,
        max(e.lead for _, e in hits),
        max(e.coverage for _, e in hits),
        max(e.similarity for _, e in hits),
        float(max(hits, key=lambda judged: judged[0])[1].lacks),
    )


def question_probability(vector: Sequence[float]) -> float:
    """P(something recalled is relevant | the answer's evidence), by the second model."""
    return _logistic(QUESTION_BIAS + sum(w * (x - c) for w, x, c in zip(QUESTION_WEIGHTS, vector, QUESTION_CENTER)))


def _logistic(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


def coverage(
    question: Sequence[frozenset[str]],
    text: str,
    translate: Translate | None,
    rarity: dict[str, float],
    pointed: bool | None = None,
) -> tuple[float, float]:
    """(the share of the question's words, each a set of forms, found among the text's forms,
    each word weighed by how rare it is among the agent's memories; how rare the rarest word it
    lacks is). `rarity`: word -> 0 (in every memory) .. 1 (in none), 0.5 for one not rated.
    Weighed, a word most memories hold counts for little: a gloss of a common word ("测试" →
    test) does not make a note that only says "test" cover the question. `pointed`: whether
    the memory is the open project's, for a question that points at it ("this repo", 这里;
    rules.deixis) — that is one of its words, held by the project's memories, unrated (None:
    the question points at no project)."""
    if not question and pointed is None:
        return 0.0, 0.0
    forms = set().union(*subject_words(text, translate)) if text else set()
    rare = [max((rarity[f] for f in word if f in rarity), default=0.5) for word in question]
    held = [bool(word & forms) for word in question]
    if pointed is not None:
        rare, held = [*rare, 0.5], [*held, pointed]
    missing = max((r for r, h in zip(rare, held) if not h), default=0.0)
    weight = [COMMON + r for r in rare]
    return sum(w for w, h in zip(weight, held) if h) / sum(weight), missing


# Written in capitals, yet a common word, not a name: "Is it OK to run ...?"
NOT_NAMES = frozenset({"ok", "okay"})
# Dictionary words that ask or point, not name: where a Chinese word must be a dictionary word
# to count as a name (a question that names a time: recall/judge.py), these still do not.
QUESTION_WORDS_ZH = frozenset(
    "哪些 哪儿 哪天 哪里 有没有 是不是 能不能 要不要 会不会 怎么办 怎么样 多少 多久 几个 这里 那里 这儿 那儿".split()
)


def names_unknown(question: str, unknown: Sequence[str]) -> bool:
    """Whether a word of the question that no memory holds is a name: written with a capital
    or a digit where it stands in the question (not the first word, nor one of NOT_NAMES),
    or Chinese."""
    for word in unknown:
        if CJK.search(word):
            if len(word) >= 2:
                return True
            continue
        if word.lower() in NOT_NAMES:
            continue
        for m in re.finditer(rf"(?i)(?<![\w-]){re.escape(word)}\w*", question):
            said = m.group()
            if m.start() > 0 and (any(c.isupper() for c in said) or any(c.isdigit() for c in said)):
                return True
    return False


def lead(similarity: float, cosines: Sequence[float]) -> float:
    """How far a cosine stands above the median of the question's candidates."""
    if not cosines:
        return 0.0
    ordered = sorted(cosines)
    return similarity - ordered[len(ordered) // 2]
