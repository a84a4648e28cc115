"""Precision and recall of the rule "the newer memory says the older one changed" on a
labelled set of pairs (benchmarks/data/outdated_pairs.jsonl: English, Chinese and mixed;
real changes, and look-alike pairs where the newer one says something else changed).

    python benchmarks/outdated_rule.py [--pairs FILE]

Each pair is embedded as the write path embeds memories (e5-small passages); the table
compares the rule before (cosine >= 0.90 and a change word) with hindsight/rules/changes.py.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from hindsight.data import lexicon
from hindsight.embedders.e5 import E5Small
from hindsight.rules import bilingual, changes

HERE = Path(__file__).parent


def before(old: str, new: str, cosine: float) -> bool:
    return changes.states_change(new) and cosine >= 0.90


def table(pairs: list[dict], cosines: np.ndarray, decide) -> dict[str, dict[str, float]]:
    out = {}
    for lang in ("en", "zh", "mixed", "all"):
        tp = fp = fn = 0
        for pair, cos in zip(pairs, cosines):
            if lang != "all" and pair["lang"] != lang:
                continue
            said = decide(pair["old"], pair["new"], float(cos))
            tp += said and pair["label"]
            fp += said and not pair["label"]
            fn += (not said) and pair["label"]
        out[lang] = {
            "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / (tp + fn) if tp + fn else 1.0,
            "false_positives": fp,
            "pairs": sum(1 for p in pairs if lang == "all" or p["lang"] == lang),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", default=str(HERE / "data" / "outdated_pairs.jsonl"))
    args = ap.parse_args()
    pairs = [json.loads(line) for line in open(args.pairs, encoding="utf-8") if line.strip()]
    embedder = E5Small()
    old = embedder.passages([p["old"] for p in pairs])
    new = embedder.passages([p["new"] for p in pairs])
    cosines = (old * new).sum(1) / np.linalg.norm(old, axis=1) / np.linalg.norm(new, axis=1)
    translate = bilingual.glosses(lexicon.load())
    rule = changes.ChangeRule()
    after = table(pairs, cosines, lambda o, n, c: changes.says_changed(o, n, c, rule, translate))
    prior = table(pairs, cosines, before)
    print(f"{len(pairs)} pairs ({sum(p['label'] for p in pairs)} real changes)")
    head = f"{'recall':>6} {'FP':>3}"
    print(f"{'pairs':>6} | {'before: precision':>17} {head} | {'after: precision':>16} {head}")
    for lang in ("en", "zh", "mixed", "all"):
        b, a = prior[lang], after[lang]
        print(
            f"{lang:>6} | {b['precision']:>17.2f} {b['recall']:>6.2f} {b['false_positives']:>3} | "
            f"{a['precision']:>16.2f} {a['recall']:>6.2f} {a['false_positives']:>3}"
        )


if __name__ == "__main__":
    main()
