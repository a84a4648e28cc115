"""A question that points at the open project without naming it: the rule that reads it,
and what ranking does with it (rules/deixis.py, scoring step 6)."""

import pytest

from hindsight.recall.request import check
from hindsight.rules import deixis, scoring
from hindsight.rules.scoring import Candidate


@pytest.mark.parametrize(
    "question",
    [
        "How do I deploy a change to production from this repo?",
        "Where does this service get its secrets from?",
        "What conventions should new code in our codebase follow?",
        "How do I log in to Vault from here?",
        "Is the cache warm here?",
        "What's the staging URL for this?",
        "这个仓库的测试怎么跑？",
        "这里出问题的时候告警发到哪个频道？",
        "本项目用什么包管理器？",
    ],
)
def test_a_question_that_points_at_the_project(question):
    assert deixis.points_at_project(question)
    assert deixis.open_project(question, ("courier",)) == "courier"


@pytest.mark.parametrize(
    "question",
    [
        "Here is the log, what failed?",
        "here's what I tried",
        "Where is the rider dispatch service deployed?",
        "What is this error about?",
        "测试服务器地址是什么？",
    ],
)
def test_a_question_that_does_not(question):
    assert not deixis.points_at_project(question)
    assert deixis.open_project(question, ("courier",)) is None


def test_only_one_open_project_and_not_one_the_question_names():
    assert deixis.open_project("How are tests run in this repo?", ()) is None
    assert deixis.open_project("How are tests run in this repo?", ("courier", "basket")) is None
    assert deixis.open_project("How are courier's tests run in this repo?", ("courier",)) is None


def test_the_request_carries_it():
    assert check("a", "How do I deploy from this repo?", open_projects=("basket",)).pointed_at == "basket"
    assert check("a", "How do I deploy basket?", open_projects=("basket",)).pointed_at is None
    assert check("a", "How do I deploy from this repo?").pointed_at is None


def rank(cands):
    return [c.id for c in scoring.rank(cands, query_cjk=0.0, similar=lambda a, b: 0.0)]


def test_the_open_project_leads_a_global_memory_it_nearly_ties():
    glob = Candidate("global", similarity=0.86, keyword=5.0)
    ours = Candidate("ours", similarity=0.85, keyword=4.9, project="courier")
    assert rank([glob, ours, Candidate("low", similarity=0.75)])[0] == "global"
    ours.pointed = True
    assert rank([glob, ours, Candidate("low", similarity=0.75)])[0] == "ours"


def test_pointing_does_not_lift_a_memory_far_less_relevant():
    best = Candidate("global", similarity=0.92, keyword=8.0)
    weak = Candidate("ours", similarity=0.78, keyword=0.0, project="courier", pointed=True)
    filler = [Candidate(f"f{i}", similarity=0.77 + 0.002 * i) for i in range(5)]
    assert rank([best, weak, *filler])[0] == "global"


@pytest.mark.parametrize(
    "question",
    [
        "What did we ship on basket in May?",
        "What did we ship on Basket in May?",
        "How is basket's release train run?",
        "basket 的埋点事件是怎么批量发送的？",
        "basket的埋点事件是怎么批量发送的？",
        "Deploy (basket) today?",
    ],
)
def test_a_question_that_names_a_project(question):
    assert deixis.names_project(question, "basket")


@pytest.mark.parametrize(
    "question",
    [
        "What goes in the shopping baskets?",
        "Is basket-ui deployed?",
        "Where does basket_v2 live?",
        "Which courier handles the order?",
        "What about basketé?",
        "",
    ],
)
def test_a_question_that_names_another_word(question):
    assert not deixis.names_project(question, "basket")


def test_a_project_name_of_one_letter_or_a_common_word_is_not_looked_for():
    assert not deixis.names_project("Is plan b ready?", "b")
    assert not deixis.names_project("Is it done?", "it")
    assert not deixis.names_project("Is the build done?", "The")
    assert deixis.names_project("Is the api down?", "api")
    assert deixis.names_project("How does my-app log in?", "my-app")
    assert deixis.names_project("how does MY-APP log in?", "My-App")


def test_a_question_that_names_the_open_project_does_not_point_at_it_too():
    assert deixis.open_project("How are baskets packed in this repo?", ("basket",)) == "basket"
    assert deixis.open_project("How are basket's tests run in this repo?", ("basket",)) is None


@pytest.mark.parametrize(
    "question, asked, pointer",
    [
        ("Which package manager does this repo use?", "Which package manager does   use?", "this repo"),
        ("这个仓库的测试怎么跑？", " 的测试怎么跑？", "这个仓库"),
        ("How do I log in to Vault from here?", "How do I log in to Vault  ?", "from here"),
        ("How do I run the tests?", "How do I run the tests?", ""),
    ],
)
def test_the_words_that_point_are_not_what_the_question_asks_about(question, asked, pointer):
    assert deixis.without_pointer(question) == (asked, pointer)
