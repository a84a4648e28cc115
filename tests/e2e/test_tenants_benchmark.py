"""benchmarks/tenants.py runs on the landed schema at a tiny size and reports what it
promises: every variant for every agent size, the product's count of rows (recall's
VECTOR_CANDIDATES), the large agent alone (rows built
from two texts each, the shape without near-copies)."""

import os
import subprocess
import sys
from pathlib import Path

from hindsight.recall.statement import VECTOR_CANDIDATES

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "tenants.py"


def test_the_tenant_benchmark_runs_at_a_tiny_size(pg_tmp):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    done = subprocess.run(
        [sys.executable, str(BENCH), "--small", "3x60", "--medium", "1x300", "--large", "900", "--texts", "40",
         "--queries", "3", "--sample", "2", "--home", str(pg_tmp / "home"), "--plans", "--rows", "mixed"],
        capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert (
        "1,380 memories (mixed rows) across 5 agents" in out
        and "the large agent alone in its database (900 memories)" in out
    )
    for variant in ("before", "settings", "product"):
        for size in (60, 300, 900):
            assert f"{variant:>9} | {size:>10} |" in out, (variant, size, out)
    product = [line for line in out.splitlines() if line.startswith("  product |")]
    assert all(float(line.split("|")[2]) == 1.0 for line in product[:2]), product  # small agents: exact
    assert f"rows of {VECTOR_CANDIDATES}" in out
    assert all(float(line.split("|")[3]) == VECTOR_CANDIDATES for line in product), product  # a full count each
    assert "the vector channel (exact) for small-0000" in out and "One-Time Filter: false" in out
    assert not (pg_tmp / "home").exists()  # removed without --keep


def test_an_unknown_variant_is_refused_before_anything_is_loaded(tmp_path):
    done = subprocess.run(
        [sys.executable, str(BENCH), "--variants", "product,fast", "--home", str(tmp_path / "home")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--variants: one or more of before, settings, product, not product,fast" in done.stderr
    assert not (tmp_path / "home").exists()
