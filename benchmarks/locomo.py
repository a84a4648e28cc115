"""LoCoMo evidence recall on the development set, through `hindsight import` + `hindsight
recall --batch`, on a throwaway embedded database. One command:

    python benchmarks/locomo.py [--json-out results.json] [extra locomo_recall.py args]
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench" / "locomo_recall.py"


def main() -> int:
    if not BENCH.exists():
        print(f"missing {BENCH}: the shared LoCoMo bench sits beside this checkout", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hs-locomo-") as home:
        env = {**os.environ, "HINDSIGHT_HOME": home, "HINDSIGHT_LOG_LEVEL": "WARNING"}
        env.pop("HINDSIGHT_DATABASE_URL", None)
        env.pop("DATABASE_URL", None)
        cmd = (
            f"{shlex.quote(sys.executable)} {shlex.quote(str(HERE / 'locomo_adapter.py'))} "
            "{memories} {queries} {output} {conv}"
        )
        return subprocess.run(
            [sys.executable, str(BENCH), "--retriever", "external", "--cmd", cmd, *sys.argv[1:]], env=env
        ).returncode


if __name__ == "__main__":
    raise SystemExit(main())
