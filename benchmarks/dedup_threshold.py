"""How well does cosine similarity (the configured embedder) tell a duplicate from a changed
fact, and what do the dedup rule and its thresholds make of the labelled pairs?

    python benchmarks/dedup_threshold.py [--pairs tests/data/dedup_pairs.jsonl]

Labels: duplicate (same fact, different surface), conflict (same subject, a different or
opposite value), related (same topic, compatible), unrelated.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from hindsight.config import Settings
from hindsight.embedders.base import create
from hindsight.rules import dedup

LABELS = ("duplicate", "conflict", "related", "unrelated")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default=str(Path(__file__).parent.parent / "tests" / "data" / "dedup_pairs.jsonl"))
    args = ap.parse_args()
    pairs = [json.loads(x) for x in Path(args.pairs).read_text(encoding="utf-8").splitlines() if x.strip()]
    settings = Settings.from_env()
    embedder = create(settings)
    for p in pairs:
        a, b = embedder.passages([p["a"], p["b"]])
        p["cos"] = float(np.dot(a, b))
        p["same_words"] = dedup.lexical_key(p["a"]) == dedup.lexical_key(p["b"])

    print(f"embedder {settings.embedder}: cosine by label ({len(pairs)} pairs)")
    for label in LABELS:
        cs = sorted(p["cos"] for p in pairs if p["label"] == label)
        print(f"  {label:<10} n={len(cs):>2}  min {cs[0]:.3f}  median {cs[len(cs) // 2]:.3f}  max {cs[-1]:.3f}")

    print("\ncosine alone as the duplicate test (threshold: duplicates caught / changed facts swallowed)")
    n_dup = sum(p["label"] == "duplicate" for p in pairs)
    for t in (0.90, 0.93, 0.95, 0.96, 0.97, 0.98, 0.99):
        caught = sum(p["label"] == "duplicate" and p["cos"] >= t for p in pairs)
        swallowed = sum(p["label"] != "duplicate" and p["cos"] >= t for p in pairs)
        print(f"  >= {t:.2f}: {caught}/{n_dup} duplicates, {swallowed} non-duplicates swallowed")

    rule = dedup.DEFAULT_THRESHOLD
    caught = sum(p["label"] == "duplicate" and p["cos"] >= rule and p["same_words"] for p in pairs)
    swallowed = sum(p["label"] != "duplicate" and p["cos"] >= rule and p["same_words"] for p in pairs)
    print(
        f"\nhindsight's rule (cosine >= {rule} and the same content words in order): "
        f"{caught}/{n_dup} duplicates, {swallowed} non-duplicates swallowed"
    )
    ct = dedup.DEFAULT_CONFLICT_THRESHOLD
    flagged = {
        label: sum(p["label"] == label and p["cos"] >= ct and not (p["cos"] >= rule and p["same_words"]) for p in pairs)
        for label in LABELS[1:]
    }
    totals = {label: sum(p["label"] == label for p in pairs) for label in LABELS[1:]}
    print(
        f"possible_conflicts (cosine >= {ct}, not a duplicate): "
        + ", ".join(f"{flagged[k]}/{totals[k]} {k}" for k in flagged)
    )


if __name__ == "__main__":
    main()
