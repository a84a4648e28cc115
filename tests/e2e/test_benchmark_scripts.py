"""Every script in benchmarks/ runs on the landed schema and code, at its smallest size: a
benchmark that no longer runs (decay_1m.py did, for a release) is found here, not when its
figure is needed. Each runs as a user runs it, in a subprocess with a fresh HINDSIGHT_HOME;
the figures are not checked (the benchmarks are for that), only that it finishes and prints
its table."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "bench"

# script, arguments, a word its output must hold
RUNS = [
    ("cli_startup.py", ["--runs", "1"], "recall"),
    ("concurrent_load.py", ["--clients", "2", "--memories", "300", "--ops", "4", "--rounds", "1"], "ratio"),
    ("decay_1m.py", ["--rows", "3000", "--agents", "3", "--no-hnsw", "--recall-seconds", "1"], "decay"),
    ("decay_simulation.py", ["--days", "20", "--every", "10"], "day"),
    ("decay_table.py", [], "importance"),
    ("dedup_threshold.py", [], "threshold"),
    ("fuzz.py", ["--cases", "15"], "calls sent"),
    ("hook_latency.py", ["--sessions", "1", "--prompts", "2", "--commands", "2", "--memories", "20"], "p95"),
    ("hostile_store.py", ["--size", "2048", "--shapes", "one letter,base64"], "store s"),
    ("http_load.py", ["--clients", "2", "--seconds", "3"], "calls"),
    ("import_rate.py", ["--lines", "40", "--workers", "1", "--rounds", "1"], "memories"),
    ("outdated_rule.py", [], "precision"),
    ("recall_latency.py", ["--sizes", "300", "--queries", "8", "--plans", "--passes", "2"], "plain top 5 (baseline)"),
    ("replay.py", [], "stored"),
    ("roots_transcript.py", [], "roots"),
    ("secrets_detector.py", [], "caught"),
    ("startup.py", ["--starts", "1"], "initialize"),
    ("statement_ab.py", ["--against", "HEAD", "--size", "300", "--queries", "4", "--rounds", "1"], "this build"),
    ("stdio_latency.py", ["--memories", "30", "--queries", "6"], "p50"),
    ("store_throughput.py", ["--clients", "2", "--texts", "6", "--memories", "50"], "audit"),
    ("text_rules.py", ["--size", "4096"], "slowest"),
    ("trust_probe.py", ["--points", "1,7"], "agents"),
]
NEEDS_SHARED = [  # the shared benchmark data beside the checkout
    ("locomo.py", ["--convs", "conv-30"], "R@10"),
    (
        "locomo_sweep.py",
        ["--convs", "conv-30", "--pooled", "--sweep", '{"second_context": 0.0, "vector_candidates": 20}'],
        "single-hop",
    ),
    ("abstention.py", ["--limit", "6"], "empty prompt"),
    ("hooks_replay.py", ["--limit", "24"], "latency of a hook call"),
    ("hook_time.py", [], "prompts that name a time"),
    ("relevance_fit.py", ["--limit", "8", "--pairs", "{tmp}/pairs.jsonl"], "RELEVANT_AT"),
]
HELPERS = {"corpus.py", "locomo_adapter.py"}  # imported or launched by the scripts above
COVERED = {"tenants.py"}  # run at a tiny size, and its table checked, by test_tenants_benchmark.py


def test_every_script_is_listed():
    listed = {name for name, _, _ in RUNS + NEEDS_SHARED} | HELPERS | COVERED
    assert {p.name for p in (ROOT / "benchmarks").glob("*.py")} == listed


def _run(tmp_path, name, args, word):
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home"), "HINDSIGHT_LOG_LEVEL": "WARNING"}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / name), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, f"{name}: {done.stderr[-3000:]}"
    said = (done.stdout + done.stderr).lower()
    assert word.lower() in said, f"{name} printed no {word!r}: {said[-1500:]}"


@pytest.mark.parametrize("name, args, word", RUNS, ids=[r[0] for r in RUNS])
def test_a_benchmark_runs_at_its_smallest_size(tmp_path, name, args, word):
    _run(tmp_path, name, args, word)


@pytest.mark.parametrize("name, args, word", NEEDS_SHARED, ids=[r[0] for r in NEEDS_SHARED])
def test_a_benchmark_on_the_shared_data_runs(tmp_path, name, args, word):
    if not SHARED.exists():
        pytest.skip(f"{SHARED} (the shared benchmark data) is not beside this checkout")
    _run(tmp_path, name, args, word)
