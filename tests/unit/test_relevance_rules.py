"""The relevance rules, pure (hindsight/rules/relevance.py): coverage weighs the question's
words by their rarity, so a word most memories hold lifts no memory; the fitted models rank
the evidence the way it reads."""

from __future__ import annotations

import pytest

from hindsight.rules import asks, relevance
from hindsight.rules.changes import subject_words


def _question(text: str) -> list[frozenset[str]]:
    return subject_words(text, None)


def test_coverage_counts_a_common_word_for_little():
    question = _question("deploy server address")
    rarity = {"deploy": 0.0, "server": 0.6, "address": 0.8}  # "deploy" is in every memory
    generic, _ = relevance.coverage(question, "deploy notes", None, rarity)
    specific, _ = relevance.coverage(question, "the server address changed", None, rarity)
    assert generic < 0.05 < 0.9 < specific
    plain, _ = relevance.coverage(question, "deploy notes", None, {})  # nothing rated: each word alike
    assert abs(plain - 1 / 3) < 1e-9


def test_coverage_says_how_rare_the_rarest_missing_word_is():
    question = _question("kotlin build cache")
    rarity = {"kotlin": 1.0, "build": 0.1, "cache": 0.4}
    _, missing = relevance.coverage(question, "the build cache is on disk", None, rarity)
    assert missing == 1.0
    _, none_missing = relevance.coverage(question, "kotlin build cache", None, rarity)
    assert none_missing == 0.0


def test_a_question_that_points_at_the_project_is_covered_by_the_projects_memories():
    question = _question("package manager")  # "Which package manager does this repo use?", the pointer left out
    rarity = {"package": 0.7, "manager": 0.7}
    ours, _ = relevance.coverage(question, "use pnpm as the package manager", None, rarity, pointed=True)
    theirs, _ = relevance.coverage(question, "use pnpm as the package manager", None, rarity, pointed=False)
    assert theirs < ours == 1.0
    alone, _ = relevance.coverage((), "notes of the project", None, {}, pointed=True)
    assert alone == 1.0  # "What's the staging URL for this?" may have no other word


def _evidence(**changes) -> relevance.Evidence:
    base = dict(
        similarity=0.84, lead=0.02, coverage=0.3, missing=0.7, unknown=0.0, keyword=True, cross=False,
        short=False, first=0.5, project=0, named=False, lacks=False,
    )  # fmt: skip
    return relevance.Evidence(**{**base, **changes})


def test_more_evidence_is_more_likely_relevant():
    base = relevance.probability(_evidence())
    assert relevance.probability(_evidence(lead=0.08)) > base
    assert relevance.probability(_evidence(coverage=0.9)) > base
    assert relevance.probability(_evidence(first=1.0)) > base
    assert relevance.probability(_evidence(named=True)) < base
    assert relevance.probability(_evidence(lacks=True)) < base
    assert 0.0 < base < 1.0


def test_an_answer_whose_best_hit_lacks_the_asked_value_is_less_likely_relevant():
    holds = [(0.6, _evidence(similarity=0.86)), (0.1, _evidence(lacks=True))]
    lacks = [(0.6, _evidence(similarity=0.86, lacks=True)), (0.1, _evidence())]
    assert relevance.question_vector(holds)[-1] == 0.0 and relevance.question_vector(lacks)[-1] == 1.0
    assert relevance.question_probability(relevance.question_vector(lacks)) < relevance.question_probability(
        relevance.question_vector(holds)
    )


def test_an_answer_none_of_whose_first_hits_holds_the_asked_value_says_nothing():
    top = relevance.LACKING_TOP
    assert relevance.lacking([True] * top)
    assert relevance.lacking([True] * top + [False])  # only the first ones count
    assert not relevance.lacking([True] * (top - 1) + [False])  # one of them holds it
    assert not relevance.lacking([False] * top)  # a question that asks for no kind lacks nothing
    assert not relevance.lacking([])
    sure = max(relevance.RELEVANT_AT * 3, 0.9)
    assert relevance.says_nothing(sure, named=False, names_a_time=False, lacking=True)
    assert not relevance.says_nothing(sure, named=False, names_a_time=False, lacking=False)
    # a question that names a time is answered by what was written then, lacking or not ...
    assert not relevance.says_nothing(sure, named=False, names_a_time=True, lacking=True)
    # ... unless no date gives the kind asked for: "周末值班有多少补贴？" over this weekend's notes
    assert relevance.says_nothing(sure, named=False, names_a_time=True, lacking=True, undated=True)
    assert not relevance.says_nothing(sure, named=False, names_a_time=True, lacking=False, undated=True)


def test_a_year_selects_nothing_unless_the_question_asks_what_happened_then():
    assert relevance.narrows(1, recap=False) and relevance.narrows(31, recap=False) and relevance.narrows(92, False)
    assert not relevance.narrows(365, recap=False)  # "Where is the team offsite this year?"
    assert relevance.narrows(365, recap=True)  # "What did we ship this year?"


@pytest.mark.parametrize(
    "question, undated",
    [
        ("周末值班有多少补贴？", True),  # money: only a text says how much
        ("How often did we deploy last week?", False),  # the notes, counted
        ("Which Go version did we move to last month?", True),
        ("What time did we deploy yesterday?", False),  # when the note was written says it
        ("How many MRs did I merge last week?", False),  # the notes, counted
        ("上周的故障持续了多久？", False),  # two notes' times can say it
        ("What did we work on yesterday?", False),  # asks for no kind
    ],
)
def test_a_kind_no_date_gives(question, undated):
    assert (asks.asked_kind(question) in asks.UNDATED) is undated


def test_a_translation_counts_its_covered_words_across_scripts():
    assert _evidence(cross=True, coverage=0.6).translated == 0.6
    assert _evidence(cross=False, coverage=0.6).translated == 0.0
    assert relevance.probability(_evidence(cross=True, coverage=0.9)) > relevance.probability(
        _evidence(cross=True, coverage=0.1)
    )


def test_an_answer_with_no_hits_is_not_relevant():
    assert relevance.question_probability(relevance.question_vector([])) < relevance.RELEVANT_AT


def test_a_question_that_names_a_time_is_answered_unless_it_names_something_never_stored():
    low, high = relevance.RELEVANT_AT / 2, min(1.0, relevance.RELEVANT_AT * 2)
    assert relevance.says_nothing(low, named=False, names_a_time=False)
    assert not relevance.says_nothing(high, named=True, names_a_time=False)
    # "What did we work on yesterday?": what was written then answers it, whatever the verdict
    assert not relevance.says_nothing(0.0, named=False, names_a_time=True)
    # "What is our SOC 2 audit date this year?": nothing written then, or ever, answers it
    assert relevance.says_nothing(low, named=True, names_a_time=True)
    assert not relevance.says_nothing(high, named=True, names_a_time=True)


def test_a_name_is_a_word_no_memory_holds_written_as_a_name():
    assert relevance.names_unknown("Which Kotlin version does dispatch use?", ["kotlin"])
    assert relevance.names_unknown("What is our SOC 2 audit date?", ["soc"])
    assert relevance.names_unknown("陈昊的产假有多久？", ["产假"])
    assert not relevance.names_unknown("How much disk does each client have?", ["disk"])
    assert not relevance.names_unknown("Kotlin or Java?", ["kotlin"])  # the first word: a capital says nothing
    # "OK" is written in capitals, and names nothing
    assert not relevance.names_unknown("Is it OK to run a big aggregation against prod?", ["ok", "aggregation"])
    assert not relevance.names_unknown("Is that okay with Ines?", ["okay"])
