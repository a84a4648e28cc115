"""Kinds of developer tool (hindsight/rules/tools.py, hindsight/data/devkinds.txt): a question
that asks which tool of a kind names the kind; the tools of that kind are what a memory that
answers it names. A kind named where the question asks something else is not asked."""

from __future__ import annotations

import pytest

from hindsight.data.lexicon import DEV_KINDS, tool_kinds
from hindsight.rules import tools
from hindsight.rules.bilingual import STOP_EN


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which linter should I set up for a new Python module?", "linter"),
        ("Which package manager does this repo use, and how do I add a dependency?", "package manager"),
        ("What's our formatter for Go code?", "formatter"),
        ("What time zone do the schedules use?", "timezone"),
        ("Which timezones do the dashboards show?", "timezone"),
        ("新 pipeline 的调度应该用哪个时区？", "timezone"),
        ("basket 用什么包管理器？", "package manager"),
        ("courier 用哪个 lint 工具？", "linter"),
        ("courier 压测用的是什么工具？", "load testing"),
        ("basket 的包管理器用的是哪个？", "package manager"),
    ],
)
def test_a_question_that_asks_which_one_names_the_kind(question, kind):
    assert [k.names[0] for k in tool_kinds().asked(question)] == [kind]


@pytest.mark.parametrize(
    "question",
    [
        "When is it a bad time to load test courier on staging?",  # asks when
        "什么时候不适合在 staging 上给 courier 做压测？",  # 什么时候: when
        "为什么 lint 在 CI 上失败了？",  # 为什么: why
        "时区的配置写在哪里？",  # 哪里: where
        "Airflow 的元数据库在哪？",  # 在哪: where
        "dbt CI 报没有 comparison manifest 是什么原因？",  # 什么原因: the reason, not which CI
        "Nessie 的数据库用的是哪个版本的 Postgres？",  # 哪个版本: a version, not which database
        "How do I set up the linter?",  # how, not which
        "Which Go version is courier on?",  # a kind of nothing listed
    ],
)
def test_a_kind_named_where_the_question_asks_something_else_is_not_asked(question):
    assert tool_kinds().asked(question) == ()


def test_the_tools_of_a_kind_asked_and_the_texts_that_name_one():
    linter = tool_kinds().asked("Which linter should I set up?")
    assert {"ruff", "flake8", "eslint", "golangci-lint"} <= set(tools.tools_of(linter))
    assert tools.named_in("Prefers ruff over flake8.", linter)
    assert tools.named_in("`golangci-lint run` failed after the upgrade", linter)
    assert tools.named_in("The linter config lives in pyproject.toml", linter)  # the kind's own word
    assert not tools.named_in("Ruffles the data before a run", linter)  # a word that starts with a tool's name
    zone = tool_kinds().asked("哪个时区？")
    assert tools.named_in("orders_daily runs at 02:00 UTC", zone) and not tools.named_in("at 02:00", zone)


def test_a_question_word_names_a_kind_by_one_form_or_both_words_of_a_pair():
    kinds = tool_kinds().asked("Which package manager and which linter?")
    assert tools.names({"linters", "linter"}, kinds)
    assert tools.names({"包管理器", "package", "manager"}, kinds)  # its glosses say both words
    assert not tools.names({"package", "packages"}, kinds)


def test_the_keyword_query_leaves_out_the_names_of_the_kinds_asked_and_nothing_else():
    question = "Which package manager does this repo use, and how do I add a package?"
    kinds = tool_kinds().asked(question)
    assert (
        tools.without_names(question, kinds).split() == "Which does this repo use, and how do I add a package?".split()
    )
    linters = "What linters should the Go services run?"
    assert (
        tools.without_names(linters, tool_kinds().asked(linters)).split() == "What should the Go services run?".split()
    )
    zone = "新 pipeline 的调度应该用哪个时区？"
    assert tools.without_names(zone, tool_kinds().asked(zone)) == "新 pipeline 的调度应该用哪个 ？"
    assert (
        tools.without_names("Which linter-config file?", tool_kinds().asked("Which linter?"))
        == "Which linter-config file?"
    )


def test_a_name_is_left_out_only_as_whole_words_apart_by_spaces_the_longest_first():
    every = tool_kinds().kinds  # a prompt may ask which one of every kind
    said = "Our Package\tManagers, unit tests, the package,manager and linter's end-to-end DBs"
    assert tools.without_names(said, every).split() == "Our , , the package,manager and 's".split()
    assert tools.without_names("which package manager", every).split() == ["which"]  # one name of two words
    assert tools.without_names("no name here", every) == "no name here"


def test_the_kinds_file_parses_and_names_no_stop_word_as_a_tool():
    kinds = tools.parse(DEV_KINDS.read_text(encoding="utf-8").splitlines())
    assert len(kinds.kinds) >= 30
    every = [t for k in kinds.kinds for t in k.tools]
    assert not set(every) & STOP_EN
    assert all(t == t.lower() and " " not in t for t in every)


@pytest.mark.parametrize("line", ["linter ruff flake8", ": ruff", "linter:", "linter, : ruff"])
def test_a_line_without_names_or_tools_is_refused(line):
    with pytest.raises(ValueError, match="a kind's line"):
        tools.parse([line])
