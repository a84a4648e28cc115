"""What the hooks add to the user's wait, inside Claude Code itself (tests/node), with the
hooks `hindsight hooks install` writes and the server `hindsight mcp-config` configures.

    python benchmarks/hook_latency.py [--sessions 3] [--prompts 20] [--commands 4] [--memories 300]

Each session is one Claude Code process (`claude -p --input-format stream-json`, the scripted
model of tests/model_stub.py) given `--prompts` prompts one after another, as a user types
them; for each it runs `--commands` shell commands (every other one failing, each failure
followed by its fix) and ends its turn: UserPromptSubmit, PostToolUse, PostToolUseFailure
and Stop hooks, called by Claude Code as mcp_tool hooks. A tap on the wire
(tests/wire_tap.py) times each call of the `hook` tool from Claude Code's request to the
server's answer: the time Claude Code waits on the hook. A session's first prompt comes
while the server is still opening (the database, the embedder): it is reported apart. The
store first holds `--memories` memories (benchmarks/corpus.py), so that a prompt's recall has
something to search. Reports p50 / p95 per event.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402
from claude_code import CLAUDE, ClaudeCode, git_checkout, installed, wire  # noqa: E402
from mcp_client import server_env  # noqa: E402
from model_stub import ScriptedModel, text, tool  # noqa: E402

PROMPTS = [
    "Why does the pip install fail behind the proxy?",
    "Run the tests for the polars service",
    "上周的部署为什么失败了？",
    "Which dataframe library does the user prefer?",
    "Fix the failing docker build",
]


def script(commands: int, prompts: int) -> list[list[dict]]:
    """The model's turns for a session: for each prompt, the commands, then a text."""
    turns = []
    for n in range(commands):
        if n % 2 == 0:
            turns.append([tool("Bash", command=f"sh -c 'echo error: step {n} needs the cache >&2; exit 1'",
                               description="a step that fails")])  # fmt: skip
        else:
            turns.append([tool("Bash", command=f"sh -c 'echo step {n - 1} ok'", description="it again")])
    return (turns + [[text("Done.")]]) * prompts


def session(claude: ClaudeCode, project: Path, tap: Path, prompts: list[str]) -> None:
    """One Claude Code process given `prompts` one after another (stream-json input)."""
    command = [str(CLAUDE), "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
               "--mcp-config", str(claude.mcp_config(tap.parent, tap=tap)), "--strict-mcp-config",
               "--allowedTools", "Bash"]  # fmt: skip
    with subprocess.Popen(command, cwd=project, env=claude.env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as proc:  # fmt: skip
        assert proc.stdin and proc.stdout
        for prompt in prompts:
            proc.stdin.write(json.dumps({"type": "user", "message": {"role": "user", "content": prompt}}) + "\n")
            proc.stdin.flush()
            for line in proc.stdout:  # until this prompt's result
                if json.loads(line).get("type") == "result":
                    break
        proc.stdin.close()
        proc.wait(timeout=120)


def hook_times(records: list[dict]) -> list[tuple[str, float]]:
    """(event, ms) for every call of the hook tool on the wire; a session's first prompt is
    "UserPromptSubmit (first)"."""
    asked = {}
    for r in records:
        msg = r.get("msg") or {}
        if r.get("dir") == "in" and msg.get("method") == "tools/call" and msg["params"].get("name") == "hook":
            asked[msg["id"]] = (msg["params"]["arguments"].get("event"), r["t"])
    out = []
    for r in records:
        msg = r.get("msg") or {}
        if r.get("dir") == "out" and msg.get("id") in asked:
            event, started = asked.pop(msg["id"])
            if event == "UserPromptSubmit" and not any(e == event or e.startswith(event) for e, _ in out):
                event = "UserPromptSubmit (first)"
            out.append((event, (r["t"] - started) * 1000))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--prompts", type=int, default=20, help="prompts per session")
    ap.add_argument("--commands", type=int, default=4)
    ap.add_argument("--memories", type=int, default=300)
    args = ap.parse_args()
    if not installed():
        sys.exit("Claude Code is not installed: npm ci --prefix tests/node")
    took: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="hs-hooklat-") as scratch, ScriptedModel() as model:
        root = Path(scratch)
        env = server_env(HINDSIGHT_HOME=str(root / "home"), HINDSIGHT_LOG_LEVEL="WARNING")
        env.pop("PATH", None), env.pop("HOME", None)
        claude = ClaudeCode(root / "user", model, env, transcripts=True)
        lines = [json.dumps({"content": t}) for t in corpus.memories(args.memories)]
        (root / "seed.jsonl").write_text("\n".join(lines) + "\n")
        hindsight = str(Path(sys.executable).parent / "hindsight")
        run_env = {**os.environ, "HINDSIGHT_HOME": str(root / "home"), "HOME": str(claude.home)}
        subprocess.run([hindsight, "import", str(root / "seed.jsonl")], env=run_env, check=True, capture_output=True)
        subprocess.run([hindsight, "hooks", "install"], env=run_env, check=True, capture_output=True)
        project = git_checkout(root / "courier", "https://github.com/team/courier.git")
        for n in range(args.sessions):
            tap = root / f"s{n}" / "wire.jsonl"
            tap.parent.mkdir()
            model.play(script(args.commands, args.prompts))
            session(claude, project, tap, [PROMPTS[(n + i) % len(PROMPTS)] for i in range(args.prompts)])
            for event, ms in hook_times(wire(tap)):
                took[event].append(ms)
            print(f"session {n + 1}/{args.sessions}", file=sys.stderr, flush=True)
    print(f"\nhook calls inside Claude Code: {args.sessions} sessions of {args.prompts} prompts, {args.commands} "
          "commands each (request to answer on the wire, ms)")  # fmt: skip
    print(f"{'event':<20} {'n':>4} {'p50':>7} {'p95':>7} {'max':>7}")
    for event, values in sorted(took.items()):
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"{event:<20} {len(values):>4} {statistics.median(values):>7.1f} {p95:>7.1f} {ordered[-1]:>7.1f}")


if __name__ == "__main__":
    main()
