"""1,000 hostile calls over the real stdio transport (tests/fuzzcases.py): every one answered
within 5 s, none with an internal error or internals in the text, every malformed line with
the JSON-RPC error it deserves, stdout pure JSON-RPC, and no row written, lost or changed
by a call that was refused. benchmarks/fuzz.py runs 10,000 and more."""

from __future__ import annotations

import fuzzcases
from mcp_client import server_command
from rawrpc import RawServer, server_env, structured

SEED = 11


async def test_a_thousand_hostile_calls_are_answered_cleanly_and_write_nothing(db_url, tmp_path):
    errlog = tmp_path / "server.log"
    server = RawServer(
        [server_command()],
        server_env(HINDSIGHT_DATABASE_URL=db_url, HINDSIGHT_AGENT_ID="fuzz", HINDSIGHT_LOG_LEVEL="INFO"),
        stderr=errlog.open("w"),
    )
    await server.start()
    try:
        ids = [
            structured(await server.call("store_memory", {"content": f"seed memory {i} about deploys"}))["id"]
            for i in range(6)
        ]
        before = await fuzzcases.rows(db_url)
        report = await fuzzcases.run(server, fuzzcases.cases(SEED, 1000, ids), limit=5.0)
    finally:
        code = await server.close()
    audit = fuzzcases.audit(before, await fuzzcases.rows(db_url), report)
    print(fuzzcases.summary(report, audit))
    assert report.sent == 1000 and report.ok > 50 and report.refused > 500
    assert report.hangs == [] and report.internal == [] and report.wrong_reply == []
    assert report.valid_failed == []
    assert audit["written by refused calls"] == [] and audit["lost"] == [] and audit["changed by refused calls"] == []
    assert server.stray == [] and code == 0
    log = errlog.read_text()
    assert "Traceback" not in log and "failed unexpectedly" not in log
