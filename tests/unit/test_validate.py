"""Input checks, pure: identifiers never carry secrets, refused values are never echoed when
they look secret, and times stay where the database and the time arithmetic can follow."""

from __future__ import annotations

from datetime import timezone

import pytest

from hindsight.errors import InvalidInput
from hindsight.rules import validate as v
from hindsight.store import interactions

TOKEN = "ghp_" + "Zq8R2mT5vX1wY7uP3sK9dL4fH6jN0bC2aE5g"


@pytest.mark.parametrize(
    "check, field",
    [
        (lambda: v.tags(["deploy", TOKEN]), "tags[1]"),
        (lambda: v.slot(f"credential:{TOKEN}"), "slot"),
        (lambda: v.project(TOKEN), "project"),
        (lambda: v.project(f"acme {TOKEN}", "HINDSIGHT_PROJECT", allow_global=False), "HINDSIGHT_PROJECT"),
        (lambda: v.identifier("session_id", TOKEN), "session_id"),
        (lambda: v.metadata({"ok": {TOKEN: 1}}), "metadata keys"),
        (lambda: v.tags(["ops@example.com"]), "tags[0]"),
        (lambda: interactions.parse("x", task_type=TOKEN), "task_type"),
        (lambda: interactions.parse("x", tools_used=["git", TOKEN]), "tools_used[1]"),
        (
            lambda: interactions.parse("", tool_results=[{"tool": "git", "arguments": {TOKEN: "x"}, "output": "y"}]),
            "tool_results[0].arguments keys",
        ),
    ],
)
def test_identifiers_holding_secrets_are_refused_without_showing_them(check, field):
    with pytest.raises(InvalidInput) as err:
        check()
    assert err.value.field == field and TOKEN not in str(err.value) and "ops@example.com" not in str(err.value)
    assert "content" in str(err.value)  # says where a secret may go


@pytest.mark.parametrize(
    "value, kind",
    [
        ("AKIAIOSFODNN7EXAMPLE", "an API key"),
        (TOKEN, "an API key"),
        ("password=hunter2x", "a password"),
        ("ops@example.com", "an email address"),
    ],
)
def test_a_secret_in_project_is_refused_like_one_in_a_slot(value, kind):
    """Issue 29: a project held AKIA…, ghp_… and password=… verbatim."""
    said = []
    for check in (lambda: v.project(value), lambda: v.slot(value)):
        with pytest.raises(InvalidInput) as err:
            check()
        said.append(err.value.problem)
        assert value not in str(err.value)
    assert (
        said[0]
        == said[1].replace("slot", "project")
        == (
            f"looks like it holds {kind}; secrets and personal data are not allowed in project — put them "
            "in content, where they are redacted (or encrypted with HINDSIGHT_ENCRYPTION_KEY)"
        )
    )


def test_identifiers_that_only_resemble_secrets_pass():
    assert v.project("courier") == "courier" and v.project("") == "" and v.project("my-app_2") == "my-app_2"
    assert v.tags(["git@github.com:acme/app.git", "v2.14.0-rc.1", "sha256:3b4c9f0e"]) is not None
    assert v.slot("preference:editor_theme") == "preference:editor_theme"
    assert v.identifier("session_id", "0b7e3c5e-2f0d-4c1e-9a57-3f1d2c4b5a69")


@pytest.mark.parametrize(
    "check",
    [
        lambda: v.memory_id(TOKEN, "supersedes"),
        lambda: v.tags([TOKEN + "z" * 80]),
        lambda: v.memory_type(TOKEN),
        lambda: v.timestamp("as_of", TOKEN),
        lambda: v.sensitive([TOKEN], {"a": 1}),
    ],
)
def test_refused_values_that_look_secret_are_masked(check):
    with pytest.raises(InvalidInput) as err:
        check()
    assert TOKEN not in str(err.value) and "not shown" in str(err.value)


def test_a_wrong_memory_id_is_never_echoed():
    with pytest.raises(InvalidInput) as err:
        v.memory_id("Summer2024!", "supersedes")  # a bare password nothing could recognise
    assert "Summer2024" not in str(err.value) and str(err.value).startswith("supersedes: is not a memory id")


def test_refused_plain_values_are_still_shown_to_help():
    with pytest.raises(InvalidInput, match="'forever' is not allowed"):
        v.memory_type("forever")


@pytest.mark.parametrize(
    "value",
    [
        "9999-12-31T23:59:59-05:00",
        "0001-01-01T00:00:00+05:00",
        "0999-12-31T23:59:59Z",
        "9000-01-01T00:00:00Z",
        "9999-12-31T23:59:59",
        "0001-01-01",
    ],
)
def test_times_near_the_calendars_ends_are_refused_in_our_words(value):
    with pytest.raises(InvalidInput) as err:
        v.timestamp("as_of", value)
    assert str(err.value) == "as_of: must be between 1000-01-01 and 9000-01-01 (UTC)"


@pytest.mark.parametrize("value", [5, True, ["2024-01-01"], {"t": 1}])
def test_times_must_be_strings(value):
    with pytest.raises(InvalidInput, match="as_of: must be an ISO 8601 date-time string"):
        v.timestamp("as_of", value)


def test_times_keep_their_offset_and_default_to_utc():
    assert v.timestamp("t", "2024-03-10T01:00:00+08:00").utcoffset().total_seconds() == 8 * 3600
    assert v.timestamp("t", "2024-03-10T01:00:00").tzinfo == timezone.utc
