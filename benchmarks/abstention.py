"""Does recall say "nothing relevant is remembered" when that is the truth, and only then?

    python benchmarks/abstention.py [--bench ../shared/bench/idebench_dev] [--dump FILE]

Loads the IDE benchmark's memories (as its runner does: live-like lines through
`hindsight import`) into a fresh embedded database, then asks, in process:
- the questions of benchmarks/data/no_answer_questions.jsonl and no_answer_questions_2.jsonl
  to no_answer_questions_6.jsonl (EN + ZH; nothing in the memories answers them;
  `--no-answer FILE` for others): the share whose `format: "prompt"` block holds no memory,
  for each file and for all, and the share for which an IDE hook would show nothing (its
  stricter floor, rules.injection.worth_showing). relevance_fit.py fits on half of the first
  two; the third to the sixth, each written before a change to the decision and never
  fitted on, tell how it does on questions it has not seen (no_answer_questions_7.jsonl and _8 too);
- the benchmark's own questions (as_of, tools, task type, session; the project as the open
  one, as roots would declare it): Hit@5 of the JSON answer, of the prompt block (a gold
  memory among the memories it shows) and of what a hook would show;
- questions a memory does answer that neither the benchmark nor any fit has seen
  (benchmarks/data/answerable_questions_1.jsonl and _2, written with their gold memories before
  they were first asked; `--answerable FILE` for others): how many are withheld (an empty block)
  and their Hit@5, so a decision that only fits the benchmark's own questions shows.
`--dump FILE` writes each question's answer: its relevance, and each hit's.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).parent
NO_ANSWER = (
    "no_answer_questions.jsonl",
    "no_answer_questions_2.jsonl",
    "no_answer_questions_3.jsonl",
    "no_answer_questions_4.jsonl",
    "no_answer_questions_5.jsonl",
    "no_answer_questions_6.jsonl",
    "no_answer_questions_7.jsonl",
    "no_answer_questions_8.jsonl",
)  # benchmarks/data
ANSWERABLE = (
    "answerable_questions_1.jsonl",
    "answerable_questions_2.jsonl",
)  # benchmarks/data, gold as the benchmark's memory ids


def load_bench(folder: Path):
    sys.path.insert(0, str(folder))
    import run as ide  # the IDE benchmark's runner: its import lines and names

    memories = [json.loads(line) for line in open(folder / "memories.jsonl", encoding="utf-8")]
    queries = [json.loads(line) for line in open(folder / "queries.jsonl", encoding="utf-8")]
    return ide, memories, queries


async def ask(url, settings, agent, questions, now, sweep):
    from hindsight import services

    out = []
    async with services.opened(settings, url) as s:
        await s.recall.warm()
        weights = dict(sweep)
        s.recall.vector_candidates = weights.pop("vector_candidates", s.recall.vector_candidates)
        s.recall.weights = dataclasses.replace(s.recall.weights, **weights)
        for q in questions:
            hints = q.get("hints") or {}
            options = dict(top_k=5, as_of=datetime.fromisoformat(q.get("as_of") or now))
            for key in ("tools", "task_type", "session_id"):
                if hints.get(key):
                    options[key] = hints[key]
            if hints.get("project"):
                options["open_projects"] = (hints["project"],)
            shown = await s.recall.retrieve(agent, q["query"], format="prompt", **options)
            listed = await s.recall.retrieve(agent, q["query"], **options)
            out.append((q, shown, listed))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", default=str(HERE.parent.parent / "shared" / "bench" / "idebench_dev"))
    ap.add_argument(
        "--no-answer",
        action="append",
        help="a file of questions nothing answers (again for more; default: the seven of benchmarks/data)",
    )
    ap.add_argument(
        "--answerable",
        action="append",
        help="a file of questions with their gold memories, never fitted on (default: benchmarks/data's)",
    )
    ap.add_argument("--limit", type=int, help="ask only the first N questions of each set (a smoke run)")
    ap.add_argument("--dump", help="write every question's hits (similarity, confidence, shown or not) here")
    ap.add_argument(
        "--sweep",
        type=json.loads,
        action="append",
        help='scoring weights to try instead of the defaults, as JSON: {"alpha": 0.5} '
        '(and "vector_candidates": how many the statement after the embedding brings per channel)',
    )
    args = ap.parse_args()
    ide, memories, queries = load_bench(Path(args.bench))
    files = args.no_answer or [str(HERE / "data" / name) for name in NO_ANSWER]
    unanswerable = [
        dict(json.loads(line), file=Path(name).name)
        for name in files
        for line in open(name, encoding="utf-8")
        if line.strip()
    ]
    held_out = [
        dict(json.loads(line), file=Path(name).name)
        for name in args.answerable or [str(HERE / "data" / name) for name in ANSWERABLE]
        for line in open(name, encoding="utf-8")
        if line.strip()
    ]
    if args.limit:
        queries, unanswerable, held_out = queries[: args.limit], unanswerable[: args.limit], held_out[: args.limit]

    with bench_database(ide, memories, "hs-abstain-") as (settings, url):
        for sweep in args.sweep or [{}]:
            none = asyncio.run(ask(url, settings, ide.AGENT, unanswerable, ide.DEFAULT_NOW, sweep))
            some = asyncio.run(ask(url, settings, ide.AGENT, queries, ide.DEFAULT_NOW, sweep))
            held = asyncio.run(ask(url, settings, ide.AGENT, held_out, ide.DEFAULT_NOW, sweep))
            if sweep:
                print(f"\nweights {sweep}")
            report(none, some, held, args.dump, lambda bench_id: str(ide.mem_uuid(bench_id)))


@contextmanager
def bench_database(ide, memories: list[dict], prefix: str) -> Iterator[tuple]:
    """The IDE benchmark's memories, imported as its runner writes them (live-like lines through
    `hindsight import`), in a fresh embedded database: (settings, url), released afterwards."""
    from hindsight.config import Settings
    from hindsight.data import bootstrap
    from hindsight.data import pg_embedded as embedded

    with tempfile.TemporaryDirectory(prefix=prefix) as home:
        env = {**os.environ, "HINDSIGHT_HOME": home}
        env.pop("HINDSIGHT_DATABASE_URL", None)
        lines, _ = ide.import_lines(memories, "live-like", set(), None, project_field=True)
        path = Path(home) / "import.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        exe = Path(sys.executable).parent / "hindsight"
        subprocess.run([str(exe), "import", str(path), "--agent", ide.AGENT], check=True, env=env, capture_output=True)
        os.environ.update(HINDSIGHT_HOME=home)
        os.environ.pop("HINDSIGHT_DATABASE_URL", None)
        settings = Settings.from_env()
        try:
            yield settings, bootstrap.prepare(settings)
        finally:
            embedded.release()


def share(flags: list[bool]) -> float:
    return sum(flags) / max(1, len(flags))


def hook_shows(listed: dict) -> set[str]:
    """The ids an IDE hook's block would show of this answer (rules.injection.worth_showing:
    nothing below INJECT_AT; a new session, nothing seen yet). The hook asks for its own
    top_k (hooks.service.TOP_K); this reads the answer's five."""
    from hindsight.rules.injection import worth_showing

    return {str(m["id"]) for m in listed["memories"] if worth_showing(listed, m, set(), None)}


def report(none, some, held, dump, to_id) -> None:
    def by_lang(rows, lang):
        return [r for r in rows if lang == "all" or r[0]["lang"] == lang]

    def hits(rows):
        """Hit@5 of the JSON answer, of the prompt block and of what a hook shows, per question."""
        hit_json, hit_prompt, hit_hook = [], [], []
        for q, shown, listed in rows:
            gold = {to_id(g) for g in q["gold"]}
            hit_json.append(bool(gold & {m["id"] for m in listed["memories"]}))
            hit_prompt.append(bool(gold & set(shown["ids"])))
            hit_hook.append(bool(gold & hook_shows(listed)))
        return hit_json, hit_prompt, hit_hook

    print(f"no-answer questions: {len(none)}; answerable (the IDE benchmark's): {len(some)}")
    print(
        f"{'':>6} | {'no answer: empty prompt':>23} {'hook shows none':>15} | "
        f"{'Hit@5 JSON':>10} {'Hit@5 prompt':>12} {'hook':>5}"
    )
    for lang in ("en", "zh", "all"):
        empty = [not r[1]["ids"] for r in by_lang(none, lang)]
        quiet = [not hook_shows(r[2]) for r in by_lang(none, lang)]
        hit_json, hit_prompt, hit_hook = hits(by_lang(some, lang))
        print(
            f"{lang:>6} | {share(empty):>23.2f} {share(quiet):>15.2f} | "
            f"{share(hit_json):>10.2f} {share(hit_prompt):>12.2f} {share(hit_hook):>5.2f}"
        )
    withheld = [q["query"] for q, shown, _ in some if not shown["ids"]]
    print(
        f"answerable withheld (an empty block): {len(withheld)} of {len(some)} "
        f"({len(withheld) / max(1, len(some)):.3f})"
    )
    for query in withheld:
        print(f"  {query}")
    for name in sorted({r[0]["file"] for r in held}):
        rows = [r for r in held if r[0]["file"] == name]
        print(f"answerable, never fitted, {name} ({len(rows)} questions):")
        for lang in ("en", "zh", "all"):
            part = by_lang(rows, lang)
            hit_json, hit_prompt, hit_hook = hits(part)
            withheld_here = [not shown["ids"] for _, shown, _ in part]
            print(
                f"{lang:>6} | withheld {sum(withheld_here):>2} of {len(part):>2} ({share(withheld_here):.3f}) | "
                f"Hit@5 JSON {share(hit_json):.2f}, prompt {share(hit_prompt):.2f}, hook {share(hit_hook):.2f}"
            )
        for q, shown, _ in rows:
            if not shown["ids"]:
                print(f"  withheld: {q['query']}")
    files = sorted({r[0]["file"] for r in none})
    if len(files) > 1:
        for name in files:
            rows = [r for r in none if r[0]["file"] == name]
            shares = [share([not r[1]["ids"] for r in by_lang(rows, lang)]) for lang in ("en", "zh", "all")]
            print(
                f"no answer, {name}: empty {shares[2]:.2f} "
                f"(en {shares[0]:.2f}, zh {shares[1]:.2f}; {len(rows)} questions); "
                f"hook shows none {share([not hook_shows(r[2]) for r in rows]):.2f}"
            )
    if dump:
        with open(dump, "w", encoding="utf-8") as fh:
            for kind, rows in (("none", none), ("some", some), ("held", held)):
                for q, shown, listed in rows:
                    hits = [
                        {k: m.get(k) for k in ("id", "similarity", "confidence", "score", "channels", "relevant")}
                        for m in listed["memories"]
                    ]
                    gold = [to_id(g) for g in q.get("gold") or ()]
                    line = {"kind": kind, "query": q["query"], "file": q.get("file"), "lang": q.get("lang")}
                    line.update(gold=gold, shown=shown["ids"], relevance=listed.get("relevance"), hits=hits)
                    fh.write(json.dumps(line, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
