"""`hindsight import` throughput, end to end (parse, embed, write), on real text.

    python benchmarks/import_rate.py [--lines N] [--workers 1,2] [--rounds 2]

The memories are the LoCoMo development turns ("Speaker: text", 2,019 lines; from
../shared/bench/locomo_dev.json when it is there, else the synthetic corpus). Each round
imports the file into a fresh agent of one throwaway embedded database once per worker
count (HINDSIGHT_EMBED_THREADS), interleaved, so the settings meet the same machine load;
the load average is printed beside each figure (the development machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "bench" / "locomo_dev.json"


def locomo_lines() -> list[dict]:
    out = []
    for conv in json.loads(LOCOMO.read_text(encoding="utf-8")):
        c, n = conv["conversation"], 1
        while f"session_{n}" in c:
            when = datetime.strptime(c[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y").isoformat()
            for turn in c[f"session_{n}"]:
                out.append(
                    {
                        "id": f"{conv['sample_id']}/{turn['dia_id']}",
                        "timestamp": when,
                        "content": f"{turn['speaker']}: {turn['text']}",
                    }
                )
            n += 1
    return out


def synthetic_lines(n: int) -> list[dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import corpus

    return [{"id": i, "content": text} for i, text in enumerate(corpus.memories(n, seed=7))]


def postgres_cpu(home: Path) -> float:
    """CPU seconds the embedded PostgreSQL's finished backends used (the postmaster's
    children's time, counted when it reaps them)."""
    pid = int((home / "pgdata" / "postmaster.pid").read_text().split()[0])
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=None, help="how many lines (default: every LoCoMo turn)")
    ap.add_argument("--workers", default="1,2", help="HINDSIGHT_EMBED_THREADS values to compare")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    lines = locomo_lines() if LOCOMO.exists() else synthetic_lines(args.lines or 2000)
    lines = lines[: args.lines] if args.lines else lines
    exe = Path(sys.executable).parent / "hindsight"
    with tempfile.TemporaryDirectory(prefix="hs-import-") as tmp:
        src = Path(tmp) / "memories.jsonl"
        src.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
        env = {**os.environ, "HINDSIGHT_HOME": str(Path(tmp) / "home")}
        env.pop("HINDSIGHT_DATABASE_URL", None)
        home = Path(env["HINDSIGHT_HOME"])
        keeper = subprocess.Popen(
            [str(exe), "scheduler"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )  # holds the embedded server between imports
        while not (home / "pgdata" / "postmaster.pid").exists():
            time.sleep(0.2)
        time.sleep(3)
        print(f"{len(lines)} lines; {os.cpu_count()} cores")
        for rnd in range(args.rounds):
            for workers in args.workers.split(","):
                load = os.getloadavg()[0]
                cpu_before, pg_before = resource.getrusage(resource.RUSAGE_CHILDREN), postgres_cpu(home)
                started = time.perf_counter()
                done = subprocess.run(
                    [str(exe), "import", str(src), "--agent", f"bench-{rnd}-{workers}"],
                    env={**env, "HINDSIGHT_EMBED_THREADS": workers},
                    capture_output=True,
                    text=True,
                    check=True,
                )
                wall = time.perf_counter() - started
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = after.ru_utime + after.ru_stime - cpu_before.ru_utime - cpu_before.ru_stime
                pg = postgres_cpu(home) - pg_before
                said = re.search(r"\(([\d.]+) memories/s\)", done.stderr).group(1)
                print(
                    f"round {rnd + 1}, {workers} embedding worker(s): {len(lines) / wall:6.1f} memories/s "
                    f"end to end ({said} as the command reports it, start-up excluded); CPU: import "
                    f"{cpu:.0f} s + PostgreSQL {pg:.0f} s = {len(lines) / (cpu + pg):.1f} memories per CPU-second; "
                    f"load average before: {load:.2f}",
                    flush=True,
                )
        keeper.terminate()
        keeper.wait(timeout=60)


if __name__ == "__main__":
    main()
