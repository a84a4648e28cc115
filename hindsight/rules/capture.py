"""What the IDE's lifecycle hooks keep. Pure: an event and the session's trail in, a decision
out (rules.policy.Decision), no I/O and no clock.

Hooks fire on everything the agent does, so most events are dropped, and what is kept is
what a later session needs:

    prompt        kept when it states a preference, a constraint or a correction ("always use
                  uv", "别自动 push", "no, I meant the staging branch"); questions, tasks and
                  chit-chat are not memories
    tool failed   kept when it is a lesson: a build, a test run, an install, a deploy, a
                  server's tool. Not when it was the agent looking around (ls of a missing
                  folder, grep finding nothing, diff finding differences, an edit whose text
                  had moved): those fail all day and teach nothing
    tool worked   kept when it fixed a failure of this session: the failure, what was done
                  since (files edited, commands run) and the command that then worked, as one
                  procedural memory. Reads, searches and edits are remembered in the trail only

Anything inside <private>…</private> is removed before any rule reads the text (an unclosed
tag hides the rest). Errors and outputs are cut to their telling lines; secrets are redacted
later by the write path, as in every other field.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from . import policy
from .policy import Decision, Interaction
from .text import one_line

MAX_COMMAND = 300  # characters of a command shown in a memory
MAX_ERROR = 400  # characters of an error shown in a memory
MAX_OPEN = 8  # failures a trail keeps waiting for their fix
MAX_STEPS = 12  # edits and commands a trail keeps between a failure and its fix

# Shell tools and edit tools of the clients that have hooks (Claude Code, Gemini CLI, Codex, Cursor).
SHELL_TOOLS = {"bash", "run_shell_command", "shell", "exec_command", "local_shell", "terminal", "shell_command"}
EDIT_TOOLS = {"edit", "multiedit", "write", "notebookedit", "replace", "write_file", "apply_patch", "edit_file"}
LOOK_TOOLS = {
    "read", "glob", "grep", "ls", "websearch", "webfetch", "todowrite", "todoread", "task", "toolsearch", "read_file",
    "read_many_files", "list_directory", "glob_tool", "search_file_content", "google_web_search", "view_image",
    "exitplanmode", "askuserquestion", "skill",
}  # fmt: skip
# Programs the agent runs to look around: their failure is an answer ("not there"), not a lesson.
LOOKING = {
    "ls", "cat", "head", "tail", "less", "more", "grep", "egrep", "rg", "ag", "ack", "find", "fd", "which",
    "whereis", "type", "test", "[", "stat", "file", "wc", "echo", "printf", "pwd", "cd", "tree", "du", "df",
    "ps", "env", "printenv", "true", "false", "diff", "cmp", "sort", "uniq", "cut", "tr", "basename",
    "dirname", "realpath", "readlink", "id", "whoami", "date", "sleep", "jq", "sed", "awk", "xargs", "command",
    "hash", "lsof", "pgrep", "uname", "hostname", "history", "man", "open", "code",
}  # fmt: skip
GIT_LOOKING = {"status", "log", "show", "diff", "branch", "rev-parse", "ls-files", "blame", "grep", "remote", "config"}
WRAPPERS = {"sudo", "time", "nice", "env", "command", "exec", "nohup", "timeout", "xvfb-run"}
RUNNERS = {("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"), ("npx",), ("bunx",)}

_PRIVATE = re.compile(r"(?is)<private>.*?(?:</private>|\Z)")
_EXIT_LINE = re.compile(r"(?m)^\s*(?:Exit code|exit status|Command exited with code)\s*-?\d+\s*$")
_TELLING = re.compile(
    r"(?i)error|exception|failed|failure|fatal|denied|not found|no such|cannot|can't|unable|refused|timed? ?out"
    r"|invalid|missing|undefined|traceback|panic|segmentation|killed|oom|错误|失败|异常|找不到|无法|拒绝|超时"
)


def without_private(text: str) -> str:
    """`text` with every <private>…</private> part removed (an unclosed tag hides the rest)."""
    return _PRIVATE.sub(" ", text) if "<private" in text.lower() else text


@dataclass(frozen=True)
class Failure:
    """A failure waiting for its fix."""

    key: str  # what a later success must match: program and subcommand ("pytest", "npm test")
    program: str
    flags: frozenset[str]  # its options: a success without one of them did not run the same thing
    shown: str  # the command or call, cut
    error: str  # its telling lines, cut
    tool: str


@dataclass
class Trail:
    """What a session did so far that a later event needs: failures not yet fixed (newest
    last), the steps taken since the oldest of them, and the failures already stored."""

    open: list[Failure] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    stored: set[tuple[str, str]] = field(default_factory=set)  # (key, error) of stored failures
    closed: Failure | None = None  # the failure the last fix closed


@dataclass(frozen=True)
class ToolEvent:
    tool: str  # as the client names it: Bash, Edit, mcp__server__tool, run_shell_command
    arguments: Any = None  # the tool's input (a dict, or JSON text)
    output: Any = None  # its response (a dict, or text)
    error: str | None = None  # the failure's text, when it failed


def prompt_decision(prompt: str) -> Decision:
    """A user's prompt: kept when it states a preference, a constraint or a correction."""
    text = without_private(prompt).strip()
    if not text:
        return Decision(False, "empty (or private) prompt")
    decided = policy.should_store(Interaction(content=text))
    if decided.store and decided.reason in ("preference", "constraint", "correction"):
        metadata = {k: v for k, v in decided.metadata.items() if k not in ("source",)}
        return Decision(True, decided.reason, decided.memory_type, decided.importance, text, metadata)
    return Decision(False, "a prompt that states no preference, constraint or correction")


def tool_decision(event: ToolEvent, trail: Trail) -> Decision:
    """A tool call's outcome; the trail is updated (failures opened, steps noted, fixes closed)."""
    name = event.tool.lower()
    arguments = _as_dict(event.arguments)
    command = _command(name, arguments)
    failed = bool(event.error) or _shell_failed(name, event.output)
    if failed:
        return _failure(event, command, arguments, trail)
    if name in EDIT_TOOLS:
        path = arguments.get("file_path") or arguments.get("path") or arguments.get("notebook_path")
        _step(trail, f"edited {_short_path(str(path))}" if path else f"edited with {event.tool}")
        return Decision(False, "an edit (kept in the trail, for a fix that may follow)")
    if command is None:
        return Decision(False, f"{event.tool} worked: routine" if name in LOOK_TOOLS else f"{event.tool} worked")
    program, key = signature(command)
    fixed = _fixed_by(trail, key, program, _flags(command))
    if fixed is None:
        if program not in LOOKING and trail.open:
            _step(trail, f"ran `{one_line(command, 120)}`")
        return Decision(False, "a command that worked (no failure of it waiting for a fix)")
    return _fix(fixed, command, program, trail)


def _failure(event: ToolEvent, command: str | None, arguments: dict[str, Any], trail: Trail) -> Decision:
    name = event.tool.lower()
    error = telling_lines(event.error or _shell_error(event.output))
    if name in LOOK_TOOLS or name in EDIT_TOOLS:
        return Decision(False, f"{event.tool} failed: the agent looking around or editing, not a lesson")
    if command is not None:
        program, key = signature(command)
        if program in LOOKING or (program == "git" and key.split(" ")[-1] in GIT_LOOKING):
            return Decision(False, f"`{program}` failed: looking around, not a lesson")
        shown = f"`{one_line(command, MAX_COMMAND)}`"
    else:
        program = key = event.tool
        shown = _call(event.tool, arguments)
    failure = Failure(key, program, _flags(command), shown, error, event.tool)
    trail.open = [f for f in trail.open if f.key != key][-(MAX_OPEN - 1) :] + [failure]
    if (key, error) in trail.stored:
        return Decision(False, "the same failure again in this session (stored once)")
    trail.stored.add((key, error))
    metadata = {"tools_used": [program], "error": error, "outcome": "failed"}
    if command is not None:
        metadata["command"] = one_line(command, MAX_COMMAND)
    return Decision(True, "tool_failed", "procedural", 3, f"{shown} failed: {error}", metadata, from_tool=True)


def _fix(fixed: Failure, command: str, program: str, trail: Trail) -> Decision:
    steps = list(dict.fromkeys(trail.steps))
    trail.open = [f for f in trail.open if f is not fixed]
    trail.closed = fixed
    if not trail.open:
        trail.steps = []
    how = f" What changed: {'; '.join(steps)}." if steps else ""
    worked = f"`{one_line(command, MAX_COMMAND)}`"
    then = "it then worked" if worked == fixed.shown else f"then {worked} worked"
    content = f"{fixed.shown} failed: {fixed.error}.{how} Fixed: {then}."
    metadata = {
        "tools_used": list(dict.fromkeys([fixed.program, program])),
        "error": fixed.error,
        "outcome": "fixed",
        "command": one_line(command, MAX_COMMAND),
    }
    if steps:
        metadata["fix"] = steps
    return Decision(True, "error_and_fix", "procedural", 4, content, metadata)


def _fixed_by(trail: Trail, key: str, program: str, flags: frozenset[str]) -> Failure | None:
    """The open failure a success of `key` fixes: the same command (program and subcommand:
    `npm install` fixes no `npm test`) with at least its options (`yarn install` does not fix
    `yarn install --immutable`), else, for a failure of a program run without a subcommand,
    the same program."""
    for failure in reversed(trail.open):
        if failure.key == key and failure.flags <= flags:
            return failure
    same = (f for f in reversed(trail.open) if f.key == f.program == program and f.flags <= flags)
    return next(same, None) if program not in LOOKING else None


def _flags(command: str | None) -> frozenset[str]:
    """The options of the command that matters in a line (`--immutable`, `-x`)."""
    if not command:
        return frozenset()
    return frozenset(w.split("=")[0] for w in _words(_first_command(command)) if w.startswith("-") and len(w) > 1)


def _step(trail: Trail, step: str) -> None:
    if trail.open:
        trail.steps = (trail.steps + [step])[-MAX_STEPS:]


def signature(command: str) -> tuple[str, str]:
    """(program, key) of a shell command: the first command of a line, past `cd … &&`,
    variables, sudo and runners (`uv run pytest` is pytest); the key adds the subcommand of a
    tool that has them (`npm test`, `git push`, `go build`)."""
    words = _words(_first_command(command))
    while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in WRAPPERS):
        words = words[1:]
    for runner in RUNNERS:
        if tuple(words[: len(runner)]) == runner:
            words = words[len(runner) :]
    if len(words) >= 3 and _base(words[0]).startswith("python") and words[1] == "-m":
        words = words[2:]
    if not words:
        return "", ""
    program = _base(words[0])
    sub = next((w for w in words[1:] if not w.startswith("-")), "")
    if sub and re.fullmatch(r"[a-z][a-z0-9:_-]{0,30}", sub) and not sub.endswith((".py", ".js", ".ts", ".sh")):
        return program, f"{program} {sub}"
    return program, program


def _first_command(command: str) -> str:
    """The command that matters in a line: past leading `cd x &&` / `source …;` / `export …`."""
    parts = [p.strip() for p in re.split(r"&&|\|\||;|\n", command) if p.strip()]
    for part in parts:
        head = part.split()[0] if part.split() else ""
        if head not in ("cd", "source", ".", "export", "set", "pushd", "popd", "clear"):
            return part.split("|")[0]
    return parts[0] if parts else ""


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command, posix=True)
    except ValueError:
        return command.split()


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def telling_lines(text: str | None, limit: int = MAX_ERROR) -> str:
    """The lines of an error or output that say what went wrong (an exit code alone says
    little): the last exception line of a traceback and lines with an error word, else the
    first lines; cut to `limit` characters."""
    if not text:
        return "no error text"
    lines = [ln.strip() for ln in _EXIT_LINE.sub("", without_private(str(text))).splitlines() if ln.strip()]
    if not lines:
        return one_line(str(text).strip(), limit) or "no error text"
    telling = [ln for ln in lines if _TELLING.search(ln)]
    chosen = list(dict.fromkeys((telling[-3:] if telling else lines[:3])))
    return one_line(" | ".join(chosen), limit)


def _command(name: str, arguments: dict[str, Any]) -> str | None:
    if name not in SHELL_TOOLS:
        return None
    command = arguments.get("command") or arguments.get("cmd")
    if isinstance(command, list):
        command = " ".join(str(c) for c in command)
    return without_private(command) if isinstance(command, str) and command.strip() else None


_EXIT_CODE = re.compile(r"(?im)^\s*Exit Code:\s*(-?\d+)\s*$")  # how Gemini CLI's shell tool reports it
_OUTPUT = re.compile(r"(?s)Output:\s*(.*?)(?:\n(?:Exit Code|Process Group PGID|Error):|</untrusted_context>|\Z)")


def _shell_failed(name: str, output: Any) -> bool:
    """A shell tool that reports its exit code in its output (Gemini CLI, Codex) and failed."""
    if name not in SHELL_TOOLS:
        return False
    found = _as_dict(output)
    for key in ("exit_code", "exitCode", "returncode"):
        if isinstance(found.get(key), int):
            return bool(found[key] != 0)
    text = found.get("llmContent") if isinstance(found.get("llmContent"), str) else output
    code = _EXIT_CODE.search(text) if isinstance(text, str) else None
    return code is not None and code.group(1) != "0"


def _shell_error(output: Any) -> str:
    found = _as_dict(output)
    text = found.get("stderr") or found.get("output") or found.get("llmContent") or found.get("stdout") or output or ""
    if isinstance(text, str) and (said := _OUTPUT.search(text)):
        return said.group(1)
    return str(text)


def _call(tool: str, arguments: dict[str, Any]) -> str:
    brief = json.dumps(arguments, ensure_ascii=False, sort_keys=True) if arguments else ""
    return f"{tool} {one_line(brief, 200)}".strip()


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            found = json.loads(value)
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}
    return {}


def _short_path(path: str) -> str:
    parts = path.replace("\\", "/").split("/")
    return "/".join(parts[-2:]) if len(parts) > 2 else path
