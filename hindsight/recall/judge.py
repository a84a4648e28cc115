"""Recall's verdict on its hits: how likely each is relevant (rules.relevance), and whether
anything recalled is. The evidence is what the channels already found out; the question's
words are read once."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..rules import asks, bilingual, deixis, relevance, tools
from ..rules.changes import subject_words
from ..rules.text import CJK, cjk_share

CJK_TEXT = 0.3  # a text counts as written in a CJK script from this cjk_share (rules.changes)
JUDGED = 10  # whether anything is relevant is read from the first this many hits, whatever top_k
# asks (a verdict must not change with how many hits the caller wants; benchmarks/relevance_fit.py fits it on ten)


@dataclass(frozen=True)
class Verdict:
    """Recall's verdict on an answer as a whole."""

    anything: float  # the probability that anything recalled is relevant
    named: bool  # the question names something no memory of the agent holds (rules.relevance.names_unknown)
    lacking: bool  # it asks for a kind of value none of the first hits holds (rules.relevance.lacking)
    undated: bool = False  # ... a kind no memory's date can give (rules.asks.UNDATED)


@dataclass(frozen=True)
class Words:
    """What the agent's memories say of the question's words (query_terms_known)."""

    unknown: tuple[str, ...] = ()  # the words no memory holds
    share: float = 0.0  # their share of the question's words
    rarity: dict[str, float] = field(default_factory=dict)  # word -> 0 (in every memory) .. 1 (in none)

    @classmethod
    def of(cls, rows: Sequence[Any], groups: Sequence[str]) -> "Words":
        """From query_terms_known's rows for `groups` (each a word, then its other forms)."""
        words = [groups[r["n"] - 1].split()[0] for r in rows]
        unknown = tuple(w for w, r in zip(words, rows) if not r["known"])
        docs = max((r["docs"] or 0 for r in rows), default=0)
        rarity = {w: 1.0 - math.log1p(r["df"]) / math.log1p(max(docs, 1)) for w, r in zip(words, rows)}
        return cls(unknown, len(unknown) / len(rows) if rows else 0.0, rarity)


def judge(
    query: str,
    hits: Sequence[dict[str, Any]],
    cosines: Sequence[float],
    words: Words,
    lexicon: Any,
    open_projects: Sequence[str] = (),
    time_words: str = "",
    lent: Mapping[tuple, tuple[float, str]] | None = None,
    kind: str | None = None,
    which: Sequence[tools.Kind] = (),
) -> Verdict:
    """Set each hit's `relevance` (a probability) and the `evidence` behind it; return the
    verdict on the first JUDGED: how likely anything among them is relevant, and whether the
    question names something never stored. `time_words`: the words that named a time ("last Thursday",
    前天), which name nothing stored however they are written. `lent`: by (agent, id), the cosine
    and text of a memory the hit replaced and ranks by (rules.scoring.near): the hit is as
    relevant as that one would be, if more than on its own evidence. `kind`: the kind of value
    the question asks for (rules.asks, read once by the request: Request.asks_for); `which`: the
    kinds of tool it asks which one of (rules.tools: Request.asks_which)."""
    translate = bilingual.glosses(lexicon) if lexicon is not None else None
    pointed_at = deixis.open_project(query, open_projects)  # "this repo": the open project is a word it asks about
    asked, pointer = deixis.without_pointer(query) if pointed_at else (query, "")
    of = asks.version_of(asked) if kind == asks.VERSION else None  # "Which Postgres version…": Postgres's
    question = _with_tools(subject_words(asked, translate), which)
    query_cjk = cjk_share(query) >= CJK_TEXT
    unknown = [w for w in words.unknown if not _said_in(w, time_words) and not _said_in(w, pointer)]
    named = relevance.names_unknown(query, unknown)

    def weighed(hit: dict[str, Any], rank: int, similarity: float, text: str) -> tuple[float, relevance.Evidence]:
        pointed = None if pointed_at is None else hit.get("project") == pointed_at
        covered, missing = relevance.coverage(question, text, translate, words.rarity, pointed)
        evidence = relevance.Evidence(
            similarity=similarity,
            lead=relevance.lead(similarity, cosines),
            coverage=covered,
            missing=missing,
            unknown=words.share,
            keyword="keyword" in hit["channels"] or "shared_keyword" in hit["channels"],
            cross=(cjk_share(text) >= CJK_TEXT) != query_cjk,
            short=len(question) <= 2,
            first=1.0 / rank,
            project=_project(hit.get("project"), open_projects),
            named=named,
            lacks=not asks.holds(kind, text, of),
        )
        return relevance.probability(evidence), evidence

    judged = []
    for rank, hit in enumerate(hits, 1):
        p, evidence = weighed(hit, rank, float(hit["similarity"]), hit["content"])
        key = (hit["agent_id"], hit["id"])
        if lent and key in lent:  # as relevant as the memory it replaced and ranks by, if more
            p, evidence = max((p, evidence), weighed(hit, rank, *lent[key]), key=lambda judged_as: judged_as[0])
        judged.append((p, evidence))
        hit["relevance"] = round(p, 4)
        hit["evidence"] = {
            name: round(value, 4) if isinstance(value, float) else value
            for name, value in zip(relevance.NAMES, evidence.vector())
        }
    if time_words:  # such an answer abstains only if the question names something (relevance.says_nothing):
        # there a Chinese word counts where the dictionary has it (出差), not what the segmenter leaves (改了, 升到)
        words = [w for w in unknown if not CJK.search(w) or (_has(lexicon, w) and w not in relevance.QUESTION_WORDS_ZH)]
        named = relevance.names_unknown(query, words)
    anything = relevance.question_probability(relevance.question_vector(judged[:JUDGED]))
    lacking = relevance.lacking([evidence.lacks for _, evidence in judged])
    return Verdict(anything, named, lacking, kind in asks.UNDATED)


def _said_in(word: str, words: str) -> bool:
    """Whether a question word is one of `words`: those that named its time ("Thursday" in
    "last Thursday", 上周 in 上上周), or that point at the open project ("repo" in "this repo")."""
    if not words:
        return False
    if CJK.search(word):
        return word in words
    return word.lower() in words.lower().split()


def _with_tools(question: tuple[frozenset[str], ...], which: Sequence[tools.Kind]) -> tuple[frozenset[str], ...]:
    """The question's words, where it asks which tool of a kind (`which`: "Which linter …?"), with
    the kind's tools and names among the forms of the word that names it (rules.tools): "Prefers ruff
    over flake8." holds it. The notes' words are not widened so: "database" does not hold Postgres."""
    if not which:
        return question
    named = frozenset(tools.tools_of(which)) | {name for kind in which for name in kind.names}
    return tuple(forms | named if tools.names(forms, which) else forms for forms in question)


def _has(lexicon: Any, word: str) -> bool:
    return lexicon is not None and lexicon.has(word)


def _project(project: str | None, open_projects: Sequence[str]) -> int:
    if not open_projects or project is None:
        return 0
    return 1 if project in open_projects else -1


def nothing_relevant(verdict: Verdict, window: Any = None, recap: bool = False) -> bool:
    """Whether the answer says nothing relevant is remembered (rules.relevance.says_nothing);
    `window`: the time the question names, if any (timeparse.Window), which selects what was
    written then only if it is narrow or the question asks what happened in it (rules.relevance.narrows)."""
    names_a_time = window is not None and relevance.narrows((window.end - window.start).days, recap)
    return relevance.says_nothing(verdict.anything, verdict.named, names_a_time, verdict.lacking, verdict.undated)
