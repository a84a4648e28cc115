"""A stdio session in which the open repository changes: the same question, each repository's
answer first, as the IDE's MCP roots change.

    python benchmarks/roots_transcript.py

A fresh HINDSIGHT_HOME (embedded PostgreSQL); the installed `hindsight-server` driven by the
MCP SDK's stdio client, which declares roots and answers roots/list with one folder at a
time, sending notifications/roots/list_changed when it switches. Prints each request and the
answer's first hits (project, score, content).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import ListRootsResult, Root

MEMORIES = [
    ("courier", "courier's tests: `make test` runs go test ./... with the race detector; integration tests need "
     "`docker compose -f compose.test.yml up -d` first."),
    ("granary", "granary's tests: `uv run pytest tests/` for the Python, `dbt test --select state:modified+` for "
     "the models."),
    ("basket", "basket's tests: `yarn test` (jest); `yarn e2e:ios` runs Detox against a simulator build."),
    ("", "I prefer small commits with Conventional Commit messages."),
]  # fmt: skip
QUESTION = "How do I run the tests in this repo?"


def show(found: dict) -> None:
    print(f"   open_projects: {found.get('open_projects')}")
    for n, m in enumerate(found["memories"], 1):
        print(f"   {n}. [{m['project'] or 'global'}] {m['score']:.3f}  {m['content'][:90]}")


async def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="hs-roots-"))
    folders = {name: home / "src" / name for name in ("courier", "granary", "basket")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    current = [folders["courier"].as_uri()]

    async def list_roots(_context) -> ListRootsResult:
        print(f"<- roots/list: {current}")
        return ListRootsResult(roots=[Root(uri=uri) for uri in current])

    server = shutil.which("hindsight-server") or str(Path(sys.executable).parent / "hindsight-server")
    env = {**os.environ, "HINDSIGHT_HOME": str(home), "HINDSIGHT_AGENT_ID": "dev", "HINDSIGHT_LOG_LEVEL": "WARNING"}
    env.pop("HINDSIGHT_DATABASE_URL", None)
    warnings.simplefilter("ignore")  # the SDK marks roots deprecated for a future protocol version
    try:
        async with stdio_client(StdioServerParameters(command=server, env=env)) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots) as session:
                await session.initialize()
                for project, content in MEMORIES:
                    print(f"-> store_memory(project={project!r}): {content[:60]}…")
                    await session.call_tool("store_memory", {"content": content, "memory_type": "procedural",
                                                             "project": project})  # fmt: skip
                for name in ("courier", "granary", "basket"):
                    if current != [folders[name].as_uri()]:
                        current[:] = [folders[name].as_uri()]
                        print(f"-> notifications/roots/list_changed (the IDE opened {name})")
                        await session.send_roots_list_changed()
                        await asyncio.sleep(0.5)
                    print(f"-> retrieve_memory(query={QUESTION!r}, top_k=3)")
                    result = await session.call_tool("retrieve_memory", {"query": QUESTION, "top_k": 3})
                    show(result.structured_content)
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
