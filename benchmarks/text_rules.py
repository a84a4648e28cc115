"""How long each text rule takes on 32 KB of each pathological shape (tests/unit/
test_linear_time.py's table), against the 50 ms target, with the growth from 4 KB to 32 KB
(about 8 for a linear rule, 64 for a quadratic one). Times are CPU time of this thread, best
of three, as the test measures them.

    python benchmarks/text_rules.py [--size 32768] [--over 50]

Prints a row per rule and shape that takes more than --over ms, and the slowest of each rule.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "unit"))
import test_linear_time as table
from shapes import SIZE


def best(rule, value, runs: int = 3) -> float:
    """The best of `runs` runs, in seconds of this thread's CPU time (the test's measure)."""
    return min(table.cpu_seconds(rule, value) for _ in range(runs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=SIZE)
    ap.add_argument("--over", type=float, default=50.0, help="ms: list the rule x shape pairs slower than this")
    args = ap.parse_args()
    small = max(1, args.size // 8)
    print(f"| rule | slowest shape | ms at {args.size} chars | growth from {small} |")
    print("| --- | --- | --- | --- |")
    over = []
    for name, rule in table.RULES.items():
        worst = (0.0, "", 0.0)
        for shape, value in table.SHAPES.items():
            big = (value * (args.size // len(value) + 1))[: args.size]
            took = best(rule, big)
            if took * 1000 > args.over:
                over.append((name, shape, took))
            if took > worst[0]:
                worst = (took, shape, took / max(best(rule, big[:small]), 1e-6))
        print(f"| {name} | {worst[1]} | {worst[0] * 1000:.1f} | {worst[2]:.1f} |")
    print(f"\n{len(over)} rule x shape pairs over {args.over:.0f} ms:")
    for name, shape, took in over:
        print(f"  {name} on {shape}: {took * 1000:.1f} ms")


if __name__ == "__main__":
    main()
