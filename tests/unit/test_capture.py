"""What the IDE's hooks keep (rules.capture) and a session's outcome from its transcript
(rules.outcome): pure, on events as Claude Code sends them."""

from __future__ import annotations

from hindsight.rules import capture, outcome
from hindsight.rules.capture import ToolEvent, Trail, prompt_decision, tool_decision


def bash(command: str, error: str | None = None, stdout: str = "") -> ToolEvent:
    return ToolEvent("Bash", {"command": command}, None if error else {"stdout": stdout}, error)


def test_a_failed_test_run_is_kept_with_its_telling_lines_and_an_exploring_command_is_not():
    trail = Trail()
    looked = tool_decision(bash("ls /nonexistent", "Exit code 2\nls: cannot access '/nonexistent'"), trail)
    assert not looked.store and "looking around" in looked.reason
    grep = tool_decision(bash("rg TODO src", "Exit code 1"), trail)
    assert not grep.store
    error = "Exit code 1\n....\nE   ModuleNotFoundError: No module named 'requests'\n1 failed in 0.21s"
    failed = tool_decision(bash("uv run pytest tests/test_api.py", error), trail)
    assert failed.store and failed.reason == "tool_failed" and failed.memory_type == "procedural"
    assert failed.content.startswith("`uv run pytest tests/test_api.py` failed: ")
    assert "No module named 'requests'" in failed.content and "Exit code" not in failed.content
    assert failed.metadata["tools_used"] == ["pytest"] and failed.metadata["outcome"] == "failed"


def test_the_same_failure_twice_is_kept_once():
    trail = Trail()
    error = "Exit code 2\nmake: *** [build] Error 2"
    assert tool_decision(bash("make build", error), trail).store
    again = tool_decision(bash("make build", error), trail)
    assert not again.store and "again" in again.reason


def test_a_success_after_a_failure_keeps_the_fix_with_what_changed_in_between():
    trail = Trail()
    tool_decision(bash("npm test", "Exit code 1\nError: Cannot find module 'dotenv'"), trail)
    assert not tool_decision(ToolEvent("Read", {"file_path": "/r/package.json"}, "{...}"), trail).store
    assert not tool_decision(ToolEvent("Edit", {"file_path": "/r/app/package.json"}, {"ok": True}), trail).store
    assert not tool_decision(bash("npm install dotenv", stdout="added 1 package"), trail).store
    fixed = tool_decision(bash("npm test", stdout="12 passing"), trail)
    assert fixed.store and fixed.reason == "error_and_fix" and fixed.importance == 4
    assert "Cannot find module 'dotenv'" in fixed.content
    assert "edited app/package.json" in fixed.content and "ran `npm install dotenv`" in fixed.content
    assert fixed.metadata["fix"] == ["edited app/package.json", "ran `npm install dotenv`"]
    assert trail.open == [] and trail.closed is not None and trail.closed.key == "npm test"
    assert not tool_decision(bash("npm test", stdout="12 passing"), trail).store  # nothing left to fix


def test_a_success_without_the_failures_options_is_a_step_not_its_fix():
    trail = Trail()
    tool_decision(bash("yarn install --immutable", "YN0028: The lockfile would have been modified"), trail)
    step = tool_decision(bash("yarn install", stdout="Done in 14s"), trail)
    assert not step.store and trail.open
    fixed = tool_decision(bash("yarn install --immutable", stdout="Done in 3s"), trail)
    assert fixed.store and "ran `yarn install`" in fixed.content


def test_routine_successes_edits_and_reads_are_dropped():
    trail = Trail()
    for event in (
        bash("git status"),
        bash("python -m pytest -q", stdout="5 passed"),
        ToolEvent("Write", {"file_path": "/r/x.py", "content": "x = 1"}, {"ok": True}),
        ToolEvent("Grep", {"pattern": "TODO"}, "3 matches"),
        ToolEvent("Edit", {"file_path": "/r/x.py"}, None, "String to replace not found in file."),
    ):
        assert not tool_decision(event, trail).store


def test_a_server_tool_failure_is_kept_and_a_shell_reporting_its_exit_code_counts_as_failed():
    trail = Trail()
    mcp = tool_decision(ToolEvent("mcp__jira__create_issue", {"project": "OPS"}, None, "403 Forbidden"), trail)
    assert mcp.store and mcp.content.startswith("mcp__jira__create_issue") and "403 Forbidden" in mcp.content
    gemini = ToolEvent("run_shell_command", {"command": "go build ./..."}, {"exit_code": 1, "stderr": "undefined: Foo"})
    decided = tool_decision(gemini, trail)
    assert decided.store and "undefined: Foo" in decided.content


def test_signatures_see_past_cd_variables_and_runners():
    assert capture.signature("cd app && FOO=1 sudo uv run python -m pytest -q") == ("pytest", "pytest")
    assert capture.signature("npm test -- --watch") == ("npm", "npm test")
    assert capture.signature("git push origin main") == ("git", "git push")
    assert capture.signature("./scripts/check") == ("check", "check")
    assert capture.signature("sh check.sh") == ("sh", "sh")


def test_prompts_keep_preferences_rules_and_corrections_in_both_languages():
    for said, reason in (
        ("always use uv, never pip", "constraint"),
        ("别自动 push", "constraint"),
        ("不要直接改 main 分支", "constraint"),
        ("don't push by yourself", "constraint"),
        ("I prefer tabs in Makefiles", "preference"),
        ("no, I meant the staging branch", "correction"),
        ("以后请用中文写提交信息", "preference"),
        ("以后改 marts 的模型之前先跟我确认一下", "constraint"),
        ("回复赵敏的时候用中文", "constraint"),
    ):
        decided = prompt_decision(said)
        assert decided.store and decided.reason == reason, (said, decided)
    for said in (
        "fix the failing test",
        "what does this function do?",
        "thanks!",
        "continue",
        "特别好",
        "区别是什么？",
    ):
        assert not prompt_decision(said).store, said


def test_private_text_is_never_read():
    decided = prompt_decision("<private>my token is ghp_secret</private> please use pnpm from now on")
    assert decided.store and decided.content == "please use pnpm from now on"
    assert not prompt_decision("<PRIVATE>always use uv</PRIVATE>").store
    assert capture.without_private("keep <private>hide this and all that follows") == "keep  "
    failed = tool_decision(bash("make deploy <private>TOKEN=abc</private>", "Error: denied"), Trail())
    assert "TOKEN=abc" not in failed.content


def _transcript(*turns):
    """Transcript entries as Claude Code writes them: a prompt, then tool calls and results."""
    entries, n = [], 0
    for turn in turns:
        if isinstance(turn, str):
            entries.append({"type": "user", "message": {"role": "user", "content": turn}})
            continue
        n += 1
        name, arguments, result, failed = turn
        entries.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}", "name": name, "input": arguments}]}})  # fmt: skip
        entries.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{n}", "content": result, "is_error": failed}]}})  # fmt: skip
    return entries


def test_a_sessions_outcome_names_the_goal_the_failure_the_fix_and_the_decision():
    found = outcome.read(_transcript(
        "Make the checks pass",
        ("Bash", {"command": "sh check.sh"}, "Exit code 3\nerror: .env.test is missing", True),
        ("Edit", {"file_path": "/r/settings.py"}, "ok", False),
        ("Bash", {"command": "cp .env.example .env.test"}, "", False),
        ("Bash", {"command": "sh check.sh"}, "all 12 checks passed", False),
        "from now on always run the checks before committing",
    ))  # fmt: skip
    assert found.worth_keeping()
    text = found.text("2026-12-02", "courier")
    assert text.startswith("Session of 2026-12-02 in courier: Make the checks pass.")
    assert "Failed: `sh check.sh` failed: error: .env.test is missing." in text
    assert "Fixed: `sh check.sh` works after edited r/settings.py; ran `cp .env.example .env.test`." in text
    assert "Edited: settings.py." in text and "Decided: from now on always run the checks" in text


def test_a_session_that_only_looked_around_leaves_no_outcome():
    found = outcome.read(_transcript(
        "where is the config read?",
        ("Grep", {"pattern": "config"}, "app/config.py", False),
        ("Bash", {"command": "ls nope"}, "Exit code 2\nls: cannot access", True),
    ))  # fmt: skip
    assert not found.worth_keeping()


def test_a_transcript_is_complete_when_its_last_message_is_the_assistants():
    entries = _transcript("Make the checks pass", ("Bash", {"command": "sh check.sh"}, "ok", False))
    assert not outcome.complete(entries)  # the tool's result came last: the answer is not written yet
    answered = entries + [{"type": "assistant", "message": {"role": "assistant", "content": "Done."}}]
    assert outcome.complete(answered)
    assert outcome.complete(answered + [{"type": "summary", "summary": "checks"}])  # not a message
    assert not outcome.complete([{"type": "file-history-snapshot"}])  # only the file's head is there
