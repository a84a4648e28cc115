"""LoCoMo external-retriever adapter: drives the product through its public interface.

    locomo_adapter.py MEMORIES QUERIES OUTPUT CONV

`hindsight import` loads the conversation's turns into a fresh agent (each LoCoMo session
is one hindsight session: turns in file order), then
`hindsight recall --batch --json` answers every query; results map back to dialogue ids
through metadata.external_id. HINDSIGHT_HOME / HINDSIGHT_DATABASE_URL come from the
environment (benchmarks/locomo.py sets a throwaway home).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path


def hindsight() -> str:
    beside = Path(sys.executable).parent / "hindsight"
    return str(beside) if beside.exists() else "hindsight"


def import_line(m: dict, conv: str) -> str:
    """A LoCoMo turn (the harness's memory: text, timestamp, id, metadata) as a line of
    `hindsight import`: each LoCoMo session one hindsight session."""
    meta = m.get("metadata", {})
    line = {"content": m["text"], "timestamp": m["timestamp"], "id": m["id"], "metadata": meta}
    if meta.get("session") is not None:  # the conversation's session is ours
        line["session_id"] = f"{conv}-session-{meta['session']}"
    return json.dumps(line, ensure_ascii=False)


def main(memories: str, queries: str, output: str, conv: str) -> None:
    agent = f"locomo-{conv}-{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        to_import = Path(tmp) / "import.jsonl"
        with open(memories, encoding="utf-8") as src, open(to_import, "w", encoding="utf-8") as dst:
            for line in src:
                dst.write(import_line(json.loads(line), conv) + "\n")
        batch = Path(tmp) / "queries.jsonl"
        with open(queries, encoding="utf-8") as src, open(batch, "w", encoding="utf-8") as dst:
            for line in src:
                q = json.loads(line)
                dst.write(
                    json.dumps(
                        {"qid": q["qid"], "query": q["query"], "k": q["k"], "as_of": q.get("now")}, ensure_ascii=False
                    )
                    + "\n"
                )
        subprocess.run([hindsight(), "import", str(to_import), "--agent", agent], check=True, stdout=subprocess.DEVNULL)
        done = subprocess.run(
            [hindsight(), "recall", "--agent", agent, "--batch", str(batch), "--json"],
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
    with open(output, "w", encoding="utf-8") as out:
        for line in done.stdout.splitlines():
            row = json.loads(line)
            ids = [r["metadata"].get("external_id") for r in row["results"]]
            out.write(json.dumps({"qid": row["qid"], "ids": [i for i in ids if i]}) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:5])
