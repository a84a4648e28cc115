"""`hindsight hooks install | uninstall`: hindsight's entries merged into a client's settings
file next to the user's own hooks, once, backed up, and taken out again (no database)."""

from __future__ import annotations

import json

import pytest

from hindsight.cli import hook_blocks as blocks
from hindsight.cli.main import main

USERS_OWN = {
    "model": "opus",
    "hooks": {
        "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "npx prettier --write"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
}


def run(*args: str) -> None:
    with pytest.raises(SystemExit) as done:
        main(["hooks", *args])
    assert done.value.code == 0


def test_install_keeps_the_users_hooks_adds_ours_once_and_backs_the_file_up(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps(USERS_OWN))
    run("install", "--file", str(path))
    run("install", "--file", str(path))  # twice: nothing changes
    settings = json.loads(path.read_text())
    assert settings["model"] == "opus"
    post = settings["hooks"]["PostToolUse"]
    assert post[0] == USERS_OWN["hooks"]["PostToolUse"][0]  # the user's own, first and untouched
    ours = [h for e in settings["hooks"].values() for entry in e for h in entry["hooks"] if h.get("type") == "mcp_tool"]
    assert len(ours) == 6 and {h["input"]["event"] for h in ours} == set(blocks.CLAUDE_FIELDS)
    assert all(h["server"] == "hindsight" and h["tool"] == "hook" and h["timeout"] == 15 for h in ours)
    prompt = next(h for h in ours if h["input"]["event"] == "UserPromptSubmit")
    assert prompt["input"] == {"event": "UserPromptSubmit", "session_id": "${session_id}", "cwd": "${cwd}",
                               "prompt": "${prompt}"}  # fmt: skip
    backups = list(tmp_path.glob("settings.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == USERS_OWN

    run("uninstall", "--file", str(path))
    assert json.loads(path.read_text()) == USERS_OWN


def test_print_shows_the_result_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "settings.json"
    run("install", "--file", str(path), "--print")
    assert not path.exists()
    shown = json.loads(capsys.readouterr().out)
    assert set(shown["hooks"]) == set(blocks.CLAUDE_FIELDS)
    assert shown["hooks"]["SessionStart"][0]["matcher"] == "clear|compact"


def test_a_settings_file_that_is_not_json_is_refused_and_left_alone(tmp_path, capsys):
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    with pytest.raises(SystemExit) as done:
        main(["hooks", "install", "--file", str(path)])
    assert done.value.code != 0 and path.read_text() == "{not json"
    assert "is not valid JSON" in capsys.readouterr().err


@pytest.mark.parametrize("client", ["gemini", "codex", "cursor"])
def test_the_command_clients_get_hindsight_hook_in_their_own_shape(tmp_path, client):
    path = tmp_path / "hooks.json"
    run("install", "--client", client, "--file", str(path))
    settings = json.loads(path.read_text())
    assert set(settings["hooks"]) == set(blocks.COMMAND_EVENTS[client])
    commands = [
        (entry.get("command") or entry["hooks"][0]["command"]) for e in settings["hooks"].values() for entry in e
    ]
    assert all(c.endswith(f"hindsight-hook --client {client}") for c in commands)
    if client == "cursor":
        assert settings["version"] == 1
    run("uninstall", "--client", client, "--file", str(path))
    assert "hooks" not in json.loads(path.read_text())
