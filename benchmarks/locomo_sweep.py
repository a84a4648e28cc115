"""LoCoMo evidence recall in process, for comparing ranking weights on the same import:

    python benchmarks/locomo_sweep.py [--convs conv-26,conv-30] [--home DIR] [--pooled] \
        [--sweep '{"second_context": 0.1}' --sweep '{"second_context": 0.3}']

Imports the development set's conversations (../shared/bench/locomo_dev.json) the way
`locomo.py` does (each LoCoMo session one hindsight session, `metadata.speaker` on each turn,
through `hindsight import`) into a throwaway embedded database, or into `--home` to reuse it
the next time; then asks every question (categories 1-4, those with evidence) in process at
each setting: the build's weights first, then each `--sweep` (a JSON object of
`rules.scoring.Weights` fields, and `vector_candidates`: how many the statement after the
embedding brings per channel). Prints R@5 / R@10 / R@20 per category and how many top-20
lists differ from the first setting's. `locomo.py` is the figure of record (it runs the
command line a user runs); this is for seeing what a weight does without importing again.
`--pooled` imports every conversation into one agent (2,019 memories for the dev set), so
each question is asked among three other conversations' turns: a larger, harder store.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from locomo_adapter import import_line  # noqa: E402  (the same lines as locomo.py imports)

SHARED = HERE.parent.parent / "shared" / "bench"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 20)


def conversations(names: list[str] | None):
    sys.path.insert(0, str(SHARED))
    import locomo_recall  # the shared harness: its turns, timestamps and evidence

    samples = json.load(open(SHARED / "locomo_dev.json", encoding="utf-8"))
    convs, _ = locomo_recall.build_conversations(samples)
    return [c for c in convs if not names or c["id"] in names]


POOLED = "pooled"  # --pooled: every conversation's turns in this one agent


def turn_id(conv: str, turn: str, pooled: bool) -> str:
    """A turn's id as imported: the conversation's own ("D1:3"), or, pooled, named by its
    conversation too ("conv-26/D1:3")."""
    return f"{conv}/{turn}" if pooled else turn


def import_all(home: str, convs, pooled: bool = False) -> None:
    exe = Path(sys.executable).parent / "hindsight"
    env = {**os.environ, "HINDSIGHT_HOME": home, "HINDSIGHT_LOG_LEVEL": "WARNING"}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    for c in convs:
        lines = [import_line(dict(m, id=turn_id(c["id"], m["id"], pooled)), c["id"]) for m in c["memories"]]
        path = Path(home) / f"{c['id']}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        agent = POOLED if pooled else c["id"]
        subprocess.run(
            [str(exe), "import", str(path), "--agent", agent], check=True, env=env, stdout=subprocess.DEVNULL
        )
    Path(home, "locomo_sweep.done").write_text(done_mark(convs, pooled))


def done_mark(convs, pooled: bool) -> str:
    return ",".join(c["id"] for c in convs) + (" pooled" if pooled else "")


async def ask(url, settings, convs, sweeps, pooled: bool = False):
    from hindsight import services
    from hindsight.recall.statement import VECTOR_CANDIDATES

    first = None
    async with services.opened(settings, url) as s:
        await s.recall.warm()
        base = s.recall.weights
        for sweep in sweeps:
            settings_of = dict(sweep)
            s.recall.vector_candidates = settings_of.pop("vector_candidates", VECTOR_CANDIDATES)
            s.recall.weights = dataclasses.replace(base, **settings_of)
            scores: dict[tuple[int, str], list[float]] = collections.defaultdict(list)
            tops = {}
            for c in convs:
                now = datetime.fromisoformat(c["now"])
                for q in c["qa"]:
                    if q["category"] not in CATEGORIES or not q["evidence"]:
                        continue
                    agent = POOLED if pooled else c["id"]
                    answer = await s.recall.retrieve(agent, q["question"], top_k=max(KS), as_of=now)
                    ids = [m["metadata"].get("external_id") for m in answer["memories"]]
                    tops[c["id"], q["qid"]] = ids
                    evidence = [turn_id(c["id"], e, pooled) for e in q["evidence"]]
                    for k in KS:
                        share = sum(e in ids[:k] for e in evidence) / len(evidence)
                        scores[(k, "all")].append(share)
                        scores[(k, CATEGORIES[q["category"]])].append(share)
            first = first or tops
            moved = sum(tops[k] != first[k] for k in tops)
            moved10 = sum(tops[k][:10] != first[k][:10] for k in tops)
            name = json.dumps(sweep) if sweep else "the build weights"
            print(
                f"\n{name}  ({len(tops)} questions; lists unlike the first setting's: top 20 {moved}, top 10 {moved10})"
            )
            print(f"{'slice':>12} | " + " | ".join(f"R@{k:<3}" for k in KS))
            for cat in ("all", *CATEGORIES.values()):
                if scores[(KS[0], cat)]:
                    print(
                        f"{cat:>12} | " + " | ".join(f"{sum(scores[(k, cat)]) / len(scores[(k, cat)]):.3f}" for k in KS)
                    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--convs", help="comma list of conversations (default: every one of the dev set)")
    ap.add_argument("--home", help="import into this HINDSIGHT_HOME once and reuse it next time")
    ap.add_argument("--sweep", action="append", default=[], help="a JSON object of Weights fields (repeatable)")
    ap.add_argument(
        "--pooled",
        action="store_true",
        help="every conversation's turns in one agent: each question asked among the other conversations' turns too",
    )
    args = ap.parse_args()
    if not (SHARED / "locomo_dev.json").exists():
        sys.exit(f"missing {SHARED / 'locomo_dev.json'}: the shared LoCoMo bench sits beside this checkout")
    convs = conversations(args.convs.split(",") if args.convs else None)
    sweeps = [{}] + [json.loads(s) for s in args.sweep]

    from hindsight.config import Settings
    from hindsight.data import bootstrap

    with tempfile.TemporaryDirectory(prefix="hs-locomo-sweep-") as scratch:
        home = args.home or scratch
        os.makedirs(home, exist_ok=True)
        done = Path(home, "locomo_sweep.done")
        if not done.exists() or done.read_text() != done_mark(convs, args.pooled):
            if done.exists():
                sys.exit(f"{home} holds other conversations ({done.read_text()}): use another --home")
            import_all(home, convs, args.pooled)
        os.environ["HINDSIGHT_HOME"] = home
        os.environ.pop("HINDSIGHT_DATABASE_URL", None)
        settings = Settings.from_env()
        url = bootstrap.prepare(settings)
        try:
            asyncio.run(ask(url, settings, convs, sweeps, args.pooled))
        finally:
            from hindsight.data import pg_embedded as embedded

            embedded.release()


if __name__ == "__main__":
    main()
