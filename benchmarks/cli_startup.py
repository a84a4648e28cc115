"""How fast the command line answers: `hindsight --version`, `hindsight --help`, and a
`hindsight recall` against a database already running (another process holds the embedded
PostgreSQL, as an open IDE's server does), each run --runs times, median and slowest.

    python benchmarks/cli_startup.py [--runs 10] [--before /tmp/before/.venv]

--before times another build too (an older commit installed in its own virtualenv), each
build on its own HINDSIGHT_HOME with the same 200 memories, so two versions are compared on
the same machine in the same run. Hooks and scripts call the command line on every event.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOLD = """
import sys
from pathlib import Path
from hindsight.data import pg_embedded
print(pg_embedded.start(Path(sys.argv[1])), flush=True)
sys.stdin.read()
"""
TOPICS = ["deploys", "the CI pipeline", "code review", "the billing service", "pandas", "测试服务器", "提交信息"]


def memories() -> str:
    lines = []
    for n in range(200):
        topic = TOPICS[n % len(TOPICS)]
        lines.append(json.dumps({"content": f"Note {n} about {topic}: step {n % 13} was done with care on day {n}"}))
    return "\n".join(lines) + "\n"


def timed(cmd: list[str], env: dict, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        out.append((time.perf_counter() - began) * 1000)
    return out


def measure(venv: Path, runs: int) -> dict[str, list[float]]:
    bin_ = venv / "bin"
    with tempfile.TemporaryDirectory(prefix="hs-cli-") as home:
        env = {**os.environ, "HINDSIGHT_HOME": home, "HINDSIGHT_AGENT_ID": "bench"}
        for name in ("HINDSIGHT_DATABASE_URL", "DATABASE_URL", "HINDSIGHT_READ_DATABASE_URL"):
            env.pop(name, None)
        data = Path(home) / "memories.jsonl"
        data.write_text(memories(), encoding="utf-8")
        subprocess.run([str(bin_ / "hindsight"), "import", str(data)], env=env, check=True, capture_output=True)
        holder = subprocess.Popen(
            [str(bin_ / "python"), "-c", HOLD, home], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            holder.stdout.readline()  # the database is running
            found = {
                "--version": timed([str(bin_ / "hindsight"), "--version"], env, runs),
                "--help": timed([str(bin_ / "hindsight"), "--help"], env, runs),
                "recall": timed(
                    [str(bin_ / "hindsight"), "recall", "--query", "what broke in the CI pipeline?"], env, runs
                ),
            }
        finally:
            holder.stdin.close()
            holder.wait(timeout=120)
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--before", type=Path, help="the virtualenv of another build, timed first")
    args = ap.parse_args()
    builds = ([("before", args.before)] if args.before else []) + [("this build", Path(sys.executable).parent.parent)]
    print(f"{args.runs} runs each, ms (median / slowest)\n")
    print(f"{'build':<11} | {'--version':>15} | {'--help':>15} | {'recall, database running':>25}")
    for label, venv in builds:
        found = measure(venv, args.runs)
        cells = [f"{statistics.median(v):.0f} / {max(v):.0f}" for v in found.values()]
        print(f"{label:<11} | {cells[0]:>15} | {cells[1]:>15} | {cells[2]:>25}")


if __name__ == "__main__":
    main()
