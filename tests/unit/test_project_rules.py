"""Which project a write belongs to, and what a root folder is called (hindsight.rules.projects)."""

import pytest

from hindsight.errors import InvalidInput
from hindsight.rules import projects as p
from hindsight.rules import validate as v


@pytest.mark.parametrize(
    "given, open_project, memory_type, slot, reason, content, expected",
    [
        (None, "courier", "procedural", None, None, "Run the tests with make test.", "courier"),
        (None, "courier", "semantic", None, None, "courier pins Python 3.11.", "courier"),
        (None, None, "procedural", None, None, "Run the tests with make test.", None),  # nothing open
        ("granary", "courier", "procedural", None, None, "dbt test runs the model tests.", "granary"),  # the call's
        ("", "courier", "procedural", None, None, "The monorepo uses Renovate.", None),  # "" says global
        (None, "courier", "semantic", "preference:editor", None, "Use neovim.", None),  # about the user
        (None, "courier", "semantic", "user:timezone", None, "The user is in Singapore.", None),
        (None, "courier", "semantic", "courier:python", None, "Python 3.11.", "courier"),  # a project's slot
        (None, "courier", "semantic", None, "preference", "Always answer in English.", None),  # record_interaction
        (None, "courier", "semantic", None, "constraint", "Never push to main without asking.", None),
        (None, "courier", "procedural", None, "correction", "No, the tests live in tests/unit.", "courier"),
        (None, "courier", "semantic", None, None, "I prefer rg over grep.", None),
        (None, "courier", "semantic", None, None, "用户偏好小的 MR。", None),
        (None, "courier", "semantic", None, None, "我喜欢用 rg 搜索代码。", None),
        (None, "courier", "semantic", None, None, "We prefer pnpm in this repo.", "courier"),  # "we": the repo's way
        (None, "courier", "semantic", None, None, "我们这个仓库用 pnpm。", "courier"),
        (None, "courier", "episodic", None, None, "I prefer to deploy on Tuesdays.", "courier"),  # an event
        ("basket", "courier", "semantic", "preference:editor", None, "Use neovim here.", "basket"),  # the call wins
    ],
)
def test_the_write_scoping_rule(given, open_project, memory_type, slot, reason, content, expected):
    assert p.for_write(given, open_project, memory_type, slot, reason, content) == expected


@pytest.mark.parametrize(
    "url, name",
    [
        ("git@gitlab.pantry.io:data/granary.git", "granary"),
        ("https://github.com/acme/courier.git", "courier"),
        ("https://github.com/acme/courier", "courier"),
        ("https://github.com/acme/courier/", "courier"),
        ("ssh://git@host:2222/team/basket.git", "basket"),
        ("/srv/git/infra.git", "infra"),
        ("C:\\repos\\tools.git", "tools"),
        ("", None),
    ],
)
def test_the_repository_name_of_a_remote(url, name):
    assert p.from_remote(url) == name


def test_root_uris_to_folders_and_names():
    assert p.folder_of("file:///home/dev/src/courier") == "/home/dev/src/courier"
    assert p.folder_of("file:///home/dev/my%20app/") == "/home/dev/my app"
    assert p.folder_of("file:///C:/src/app") == "C:/src/app"
    assert p.folder_of("https://example.com/repo") is None
    assert p.from_folder("/home/dev/src/courier") == "courier"
    assert p.from_folder("C:\\src\\app\\") == "app"
    assert p.from_folder("/") is None


def test_the_origin_of_a_git_config():
    config = '[core]\n\tbare = false\n[remote "upstream"]\n\turl = git@x:up/basket.git\n'
    assert p.origin_url(config) == "git@x:up/basket.git"  # no origin: the first remote
    config += '[remote "origin"]\n\turl = https://x/me/basket-fork.git\n\tfetch = +refs/heads/*\n[branch "main"]\n'
    assert p.origin_url(config) == "https://x/me/basket-fork.git"
    assert p.origin_url("[core]\n\tbare = false\n") is None


def test_a_project_name_is_checked():
    assert v.project("courier") == "courier" and v.project(None) is None and v.project("") == ""
    for bad in (" padded", "a\nb", "x" * 201, 7):
        with pytest.raises(InvalidInput) as err:
            v.project(bad)
        assert err.value.field == "project"
    with pytest.raises(InvalidInput):
        v.project("", allow_global=False)
