"""A question about trouble, and a memory that records some (hindsight/rules/trouble.py), and
what ranking makes of the two together: a record of the failure comes first among comparably
relevant memories, never above a clearly better one, and only for such a question."""

from __future__ import annotations

import pytest

from hindsight.rules import scoring, trouble
from hindsight.rules.scoring import Candidate


@pytest.mark.parametrize(
    "question",
    [
        "What went wrong with courier deploys in March?",
        "Which problems have we had with Vault?",
        "How has gl-runner-04 broken our CI builds?",
        "Two weeks ago the orders Spark job kept dying. What was the cause?",
        "How did we fix the BatchEta timeouts?",
        "tofu plan can't acquire the state lock",
        "courier-worker 连不上 Kafka 是什么原因？",
        "courier 的 BatchEta 超时是怎么解决的？",
        "前天 terraform apply 在 staging 为什么报错？",
        "Why are there BatchEta timeouts?",
        "What's wrong with CI?",
        "What was the bug in the ETA widget?",
        "How did we debug the memory leak?",
        "The Android build is flaky again",
        "vault login doesn\u2019t work, can\u2019t reach the server",
        "这个 bug 是怎么处理的？",
        "改了配置也不生效",
        "服务宕机了怎么办？",
    ],
)
def test_questions_about_trouble(question):
    assert trouble.asks_about_trouble(question)


@pytest.mark.parametrize(
    "question",
    [
        "How should errors be handled in a new courier HTTP handler?",  # a way of writing code
        "What are our error handling conventions?",
        "Which timezone should the schedule of the new pipeline use?",
        "Who has to approve a change to the finance marts?",
        "runbook 应该用什么语言写？",
        "What timeout does dispatch use for BatchEta?",  # a setting, not trouble
        "Is the rate limit a fixed or sliding window?",
        "What problem does the outbox pattern solve?",
        "What is our error-handling convention?",
        "What is the exception handling policy?",
        "How big is the error budget of courier?",
        "Are there breaking changes in SDK 53?",
        "选择 polars 的原因是什么？",
        "错误处理的约定是什么？",
        "BatchEta 的超时设置是多少？",
    ],
)
def test_questions_about_something_else(question):
    assert not trouble.asks_about_trouble(question)


def test_a_record_of_trouble_is_an_error_or_an_outcome_that_failed_or_was_fixed():
    assert trouble.records_failure({"outcome": "failed"}) and not trouble.records_failure({"outcome": "fixed"})
    assert trouble.records_trouble({"error": "403 (Permission denied)"})
    assert trouble.records_trouble({"outcome": "failure"}) and trouble.records_trouble({"outcome": "Fixed"})
    assert not trouble.records_trouble({"outcome": "success", "tools_used": ["nomad"]})
    assert not trouble.records_trouble({"error": ""}) and not trouble.records_trouble(None)
    assert not trouble.records_trouble({"outcome": ["failure"]})  # not a well-formed outcome


def _rank(cands):
    return [c.id for c in scoring.rank(cands, query_cjk=0.0, similar=lambda a, b: 0.0)]


def test_a_record_of_the_failure_leads_comparably_relevant_notes_for_a_question_about_trouble():
    note = dict(similarity=0.86, keyword=5.0)
    record = dict(similarity=0.85, keyword=4.6)
    assert _rank([Candidate("note", **note), Candidate("record", **record, trouble=True)])[0] == "record"
    assert _rank([Candidate("note", **note), Candidate("record", **record)])[0] == "note"  # another question


def test_a_record_of_trouble_is_not_lifted_over_a_clearly_better_answer():
    # relevance 1.0 against 0.7: x1.3 leaves the record second, a larger weight (x1.5) would not

    def ranked(weights=None):
        best = Candidate("best", similarity=0.90, keyword=8.0)
        record = Candidate("record", similarity=0.864, keyword=5.6, trouble=True)
        filler = [Candidate(f"f{i}", similarity=0.78 + 0.002 * i, keyword=0.5) for i in range(5)]
        cands = [record, best, *filler]
        return [c.id for c in scoring.rank(cands, query_cjk=0.0, similar=lambda a, b: 0.0, weights=weights)]

    assert ranked()[:2] == ["best", "record"]
    assert ranked(scoring.Weights(trouble=0.5))[0] == "record"
