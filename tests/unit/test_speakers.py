"""A question about a person, and a memory that person said (hindsight/rules/speakers.py),
and what ranking makes of the two: the person's own words come first among comparably
relevant memories, never above a clearly better one."""

from __future__ import annotations

import pytest

from hindsight.rules import scoring, speakers
from hindsight.rules.scoring import Candidate


@pytest.mark.parametrize(
    "question, speaker",
    [
        ("What do Melanie's kids like?", "Melanie"),
        ("When did Caroline go to the support group?", "Caroline"),
        ("What did Caroline say about adoption?", "Caroline Reyes"),  # the first name
        ("Did Caroline Reyes move from Sweden?", "Caroline Reyes"),
        ("did caroline reyes move from sweden?", "Caroline Reyes"),  # a whole name, in any case
        ("What did Melanie paint?", "melanie"),  # a name stored in lower case
        ("陈昊对 finance marts 有什么要求？", "陈昊"),
        ("Caroline的工作是什么？", "Caroline"),  # no space before the Chinese
        ("Caroline's kids: what do they like?", "Caroline"),  # starts the question, as a name
    ],
)
def test_a_question_names_the_speaker(question, speaker):
    assert speakers.said_by_named(question, {"speaker": speaker})


@pytest.mark.parametrize(
    "question, metadata",
    [
        ("What do Melanie's kids like?", {"speaker": "Caroline"}),
        ("Which Carolines were at the party?", {"speaker": "Caroline"}),  # not the name alone
        ("When will Ines cut the release?", {"speaker": "Will"}),  # "will" is not Will
        ("what will the deploy do tomorrow?", {"speaker": "Will"}),
        ("Will the deploy work?", {"speaker": "Will Smith"}),  # a sentence's first word
        ("Mark the task as done", {"speaker": "Mark"}),
        ("What did Dr. Patel prescribe?", {"speaker": "Dr. Smith"}),  # a title is not a name
        ("What did Mr Jones say?", {"speaker": "Mr Smith"}),
        ("What did Caroline Smith say?", {"speaker": "Caroline Reyes"}),  # another Caroline
        ("What did I say about the deploy?", {"speaker": "I"}),  # roles and pronouns
        ("What did the user ask about Kafka?", {"speaker": "user"}),
        ("Did Jean-Luc come?", {"speaker": "Jean"}),
        ("陈昊对 finance marts 有什么要求？", {"speaker": "昊"}),  # one character is not a name
        ("What did Caroline say?", {"speaker": ["Caroline"]}),  # not a well-formed speaker
        ("What did Caroline say?", {"author": "Caroline"}),
        ("What did Caroline say?", {"speaker": "  "}),
    ],
)
def test_a_question_does_not_name_the_speaker(question, metadata):
    assert not speakers.said_by_named(question, metadata)


def _rank(cands, weights=None):
    return [c.id for c in scoring.rank(cands, query_cjk=0.0, similar=lambda a, b: 0.0, weights=weights)]


def test_the_named_persons_own_words_lead_comparably_relevant_ones():
    theirs = dict(similarity=0.85, keyword=4.6)
    other = dict(similarity=0.86, keyword=5.0)
    assert _rank([Candidate("other", **other), Candidate("theirs", **theirs, said=True)])[0] == "theirs"
    assert _rank([Candidate("other", **other), Candidate("theirs", **theirs)])[0] == "other"


def test_the_named_persons_words_are_not_lifted_over_a_clearly_better_answer():
    def ranked(weights=None):
        best = Candidate("best", similarity=0.90, keyword=8.0)
        theirs = Candidate("theirs", similarity=0.864, keyword=5.6, said=True)
        filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
        return _rank([theirs, best, *filler], weights)

    assert ranked()[:2] == ["best", "theirs"]
    assert ranked(scoring.Weights(speaker=0.5))[0] == "theirs"  # the test can fail
