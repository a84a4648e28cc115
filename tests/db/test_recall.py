"""Recall: each channel finds what only it can find; filters, history and isolation hold."""

import asyncio
import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from faced import faced

from hindsight.errors import InvalidInput
from hindsight.recall.access import AccessRecorder
from hindsight.rules import relevance, scoring

NOW = datetime(2024, 6, 12, 15, 0, tzinfo=timezone.utc)  # a Wednesday
FILLER = [
    "The CI pipeline runs on GitHub Actions with three parallel jobs",
    "User prefers dark mode in every editor",
    "Database backups run nightly at 02:00 and are kept for 30 days",
    "The staging cluster has four nodes",
    "Code review needs two approvals before merge",
]


async def _fill(memories, agent="a"):
    for text in FILLER:
        await memories.store(agent, text, created_at=NOW - timedelta(days=60))


def _ids(result):
    return [m["id"] for m in result["memories"]]


async def test_chinese_memory_for_a_chinese_query(memories, recall):
    await _fill(memories)
    zh = await memories.store(
        "a", "部署之前必须先运行数据库迁移脚本", memory_type="procedural", created_at=NOW - timedelta(days=60)
    )
    hit = (await recall.retrieve("a", "部署前要做什么？", top_k=3, as_of=NOW))["memories"][0]
    assert hit["id"] == zh["id"]
    assert "keyword" in hit["channels"] and "vector" in hit["channels"]


@pytest.mark.parametrize(
    "text, query",
    [
        ("The timeout of the BatchEta call was raised to 30 seconds", "调用超时怎么解决的？"),
        ("元数据库现在放在 RDS 上，主机是 meta-db-01", "Where is the metadata database?"),
    ],
)
async def test_the_keyword_channel_reads_the_question_in_the_other_language(memories, recall, text, query):
    await _fill(memories)
    answer = await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=60))
    hits = (await recall.retrieve("a", query, top_k=3, as_of=NOW))["memories"]
    found = {h["id"]: h for h in hits}
    assert answer["id"] in found and "keyword" in found[answer["id"]]["channels"]  # shares no word with the question
    assert hits[0]["id"] == answer["id"]


async def test_the_session_neighbours_of_a_vector_hit_and_of_a_keyword_hit_are_both_candidates(memories, recall):
    """Keyword rows are fetched while the query is embedded and the vector channel's after
    it: both bring the memories just before and after them in their session."""
    await _fill(memories)
    for session, (question, reply) in {
        "s1": ("How do we rotate the signing key?", "Run `kms rotate --key signer` and redeploy the gateway"),
        "s2": ("Which port does the ledger listen on?", "It listens on 7443 behind the internal load balancer"),
    }.items():
        await memories.store("a", question, session_id=session, created_at=NOW - timedelta(days=3, minutes=2))
        await memories.store("a", reply, session_id=session, created_at=NOW - timedelta(days=3))
    hits = (await recall.retrieve("a", "rotate the signing key", top_k=5, as_of=NOW))["memories"]
    reply = next(h for h in hits if h["content"].startswith("Run `kms rotate"))
    assert "context" in reply["channels"] or "keyword" in reply["channels"]
    hits = (await recall.retrieve("a", "what is the ledger's port number", top_k=5, as_of=NOW))["memories"]
    assert any(h["content"].startswith("It listens on 7443") for h in hits)
    assert any("context" in h["channels"] for h in hits)


async def test_exact_identifier_beats_shared_words(memories, recall):
    await _fill(memories)
    exact = await memories.store(
        "a", "pip install failed with ERR_SSL_PROTOCOL_ERROR behind the proxy", created_at=NOW - timedelta(days=60)
    )
    await memories.store(
        "a", "The browser showed an SSL protocol error page once; a retry fixed it", created_at=NOW - timedelta(days=60)
    )
    await memories.store(
        "a", "Protocol buffers error: the schema file was missing", created_at=NOW - timedelta(days=60)
    )
    result = await recall.retrieve("a", "ERR_SSL_PROTOCOL_ERROR", top_k=3, as_of=NOW)
    assert result["memories"][0]["id"] == exact["id"]
    assert "keyword" in result["memories"][0]["channels"]


@pytest.mark.parametrize("query", ["what did we deploy last week?", "上周部署了什么？"])
async def test_relative_time_finds_last_week(memories, recall, query):
    await _fill(memories)
    old = await memories.store("a", "Deployed version 2.3 of the billing service", created_at=NOW - timedelta(days=40))
    recent = await memories.store(
        "a", "Deployed version 2.4 of the billing service", created_at=NOW - timedelta(days=8)
    )
    result = await recall.retrieve("a", query, top_k=3, as_of=NOW)
    assert result["memories"][0]["id"] == recent["id"]
    assert "time" in result["memories"][0]["channels"]
    assert result["time_window"]["start"].startswith("2024-06-03")
    older = [h for h in result["memories"] if h["id"] == old["id"]]  # 40 days ago: not of last week
    assert all("time" not in h["channels"] for h in older)


async def test_failure_with_the_named_tool_comes_first_among_comparably_relevant(memories, recall):
    await _fill(memories)
    ok = await memories.store(
        "a",
        "Built the docker image and pushed it to the registry",
        created_at=NOW - timedelta(days=3),
        metadata={"tools_used": ["docker"], "outcome": "success"},
    )
    failed = await memories.store(
        "a",
        "Building the docker image broke: no space left on device; pruned old layers",
        created_at=NOW - timedelta(days=20),
        metadata={"tools_used": ["docker"], "outcome": "failure", "error": "no space left on device"},
    )
    result = await recall.retrieve("a", "about to build the docker image", tools=["docker"], top_k=3, as_of=NOW)
    assert _ids(result)[:2] == [failed["id"], ok["id"]]
    assert "tools" in result["memories"][0]["channels"]
    assert result["memories"][0]["score_parts"]["tools"] > result["memories"][1]["score_parts"]["tools"]


async def test_a_tool_hint_does_not_lift_an_unrelated_memory_of_that_tool(memories, recall):
    """Class 1: the tools channel reorders relevant memories; it cannot put a different
    failure of the same tool above the one the query describes."""
    await _fill(memories)
    wanted = await memories.store(
        "a",
        "dbt build: 'dbt_utils' is undefined; run dbt deps first to install packages",
        created_at=NOW - timedelta(days=30),
        memory_type="procedural",
        metadata={"tools_used": ["dbt"], "outcome": "failure", "error": "'dbt_utils' is undefined"},
    )
    for i, err in enumerate(
        [
            "Database Error: relation raw.orders does not exist",
            "Compilation Error: ambiguous column name in stg_payments",
            "Runtime Error: could not connect to the warehouse (timeout)",
        ]
    ):
        await memories.store(
            "a",
            f"dbt run failed: {err}; fixed it",
            created_at=NOW - timedelta(days=i + 1),
            memory_type="procedural",
            metadata={"tools_used": ["dbt"], "outcome": "failure", "error": err},
        )
    result = await recall.retrieve("a", "dbt build says 'dbt_utils' is undefined", tools=["dbt"], top_k=4, as_of=NOW)
    assert _ids(result)[0] == wanted["id"]


async def test_words_in_the_query_are_not_tool_names(memories, recall):
    """Class 1: "go ahead" is not the go tool."""
    await _fill(memories)
    pref = await memories.store(
        "a",
        "Ethan doesn't want the agent to commit or push by itself: show the diff first",
        memory_type="semantic",
        created_at=NOW - timedelta(days=50),
    )
    for i in range(3):
        await memories.store(
            "a",
            f"go build failed in CI with a toolchain mismatch number {i}",
            memory_type="procedural",
            created_at=NOW - timedelta(days=i + 1),
            metadata={"tools_used": ["go"], "outcome": "failure"},
        )
    result = await recall.retrieve(
        "a", "The change is done. Should I go ahead and commit and push it?", top_k=3, as_of=NOW
    )
    assert _ids(result)[0] == pref["id"]
    assert not any("tools" in m["channels"] for m in result["memories"])


async def test_entity_and_tag_words_are_found_by_keyword(memories, recall):
    await _fill(memories)
    person = await memories.store(
        "a",
        "She wants weekly summaries on Fridays",
        created_at=NOW - timedelta(days=60),
        metadata={"entities": ["Caroline"]},
    )
    tagged = await memories.store(
        "a", "Rotate the keys every quarter", tags=["security"], created_at=NOW - timedelta(days=60)
    )
    assert (await recall.retrieve("a", "What does Caroline want?", top_k=1, as_of=NOW))["memories"][0]["id"] == person[
        "id"
    ]
    hit = (await recall.retrieve("a", "security routine", top_k=1, as_of=NOW))["memories"][0]
    assert hit["id"] == tagged["id"] and "keyword" in hit["channels"]


async def test_a_shared_entity_does_not_flood_out_the_answer(memories, recall):
    """Class 2: five memories about courier do not push out the one rule that answers."""
    await _fill(memories)
    for i, text in enumerate(
        [
            "courier serves ETAs over HTTP on port 8080",
            "courier runs on Nomad with three allocations",
            "courier reads store features from Redis",
            "courier's logs go to Loki",
            "courier deploys go through GitLab CI",
        ]
    ):
        await memories.store(
            "a",
            text,
            memory_type="semantic",
            metadata={"entities": ["courier"]},
            created_at=NOW - timedelta(days=i + 1),
        )
    rule = await memories.store(
        "a",
        "In Go handlers wrap errors with fmt.Errorf and %w; never panic on a request path",
        memory_type="semantic",
        created_at=NOW - timedelta(days=40),
    )
    result = await recall.retrieve(
        "a", "How should errors be handled in a new courier HTTP handler?", top_k=3, as_of=NOW
    )
    assert rule["id"] in _ids(result)[:2]


async def test_a_short_fact_is_not_punished_for_being_short(memories, recall):
    """Class 3: no length prior; importance and the guard only nudge."""
    await _fill(memories)
    short = await memories.store(
        "a", "Prefers polars over pandas for dataframes.", memory_type="semantic", created_at=NOW - timedelta(days=30)
    )
    for i in range(3):
        await memories.store(
            "a",
            f"pip install failed with a resolver conflict while adding a package, attempt {i}; "
            "pinned numpy and retried, the tool output was long and noisy",
            memory_type="procedural",
            importance=5,
            created_at=NOW - timedelta(days=i + 1),
            metadata={"tools_used": ["pip"], "outcome": "failure"},
        )
    sweeping = await memories.store(
        "a",
        "Never use pandas for new code, always polars.",
        memory_type="semantic",
        created_at=NOW - timedelta(days=31),
    )
    result = await recall.retrieve("a", "dataframe library?", top_k=5, as_of=NOW)
    assert set(_ids(result)[:2]) == {short["id"], sweeping["id"]}


async def test_recent_memories_of_the_same_task_type(memories, recall):
    await _fill(memories)
    m = await memories.store(
        "a",
        "Step 3 of the migration is done",
        metadata={"task_type": "db-migration"},
        created_at=NOW - timedelta(days=1),
    )
    result = await recall.retrieve("a", "where was I?", task_type="db-migration", top_k=2, as_of=NOW)
    assert result["memories"][0]["id"] == m["id"] and "recent" in result["memories"][0]["channels"]


async def test_filters(memories, recall, db):
    await _fill(memories)
    proc = await memories.store(
        "a",
        "Restart the worker when the queue stalls",
        memory_type="procedural",
        tags=["ops"],
        metadata={"task_type": "ops"},
        created_at=NOW - timedelta(days=2),
    )
    sem = await memories.store(
        "a", "The queue is RabbitMQ", memory_type="semantic", created_at=NOW - timedelta(days=90)
    )
    q = "queue stalls"
    assert _ids(await recall.retrieve("a", q, memory_type="procedural", as_of=NOW)) == [proc["id"]]
    assert _ids(await recall.retrieve("a", q, tags=["ops"], as_of=NOW)) == [proc["id"]]
    assert _ids(await recall.retrieve("a", q, metadata={"task_type": "ops"}, as_of=NOW)) == [proc["id"]]
    window = {"start": (NOW - timedelta(days=100)).isoformat(), "end": (NOW - timedelta(days=80)).isoformat()}
    assert _ids(await recall.retrieve("a", q, time_range=window, as_of=NOW)) == [sem["id"]]
    await db.pool.execute("UPDATE memory_state SET decay_score = 0.1 WHERE id = $1", uuid.UUID(sem["id"]))
    assert sem["id"] not in _ids(await recall.retrieve("a", "RabbitMQ queue", top_k=10, as_of=NOW))
    assert sem["id"] in _ids(await recall.retrieve("a", "RabbitMQ queue", top_k=10, as_of=NOW, min_decay_score=0))
    for bad, field in (
        ({"time_range": {"start": "x"}}, "time_range.start"),
        ({"format": "xml"}, "format"),
        ({"min_decay_score": 2}, "min_decay_score"),
        ({"top_k": 0}, "top_k"),
        ({"as_of": "soon"}, "as_of"),
        ({"tools": "docker"}, "tools"),
    ):
        with pytest.raises(InvalidInput) as err:
            await recall.retrieve("a", q, **bad)
        assert err.value.field == field


async def test_history_as_of_and_invalidation(memories, recall, db):
    old = await memories.store("a", "The team uses Python 3.10", memory_type="semantic")
    new = await memories.store("a", "The team uses Python 3.12", memory_type="semantic")
    await faced(memories).invalidate("a", old["id"], "upgraded", replaced_by=new["id"])
    before = datetime.now(timezone.utc) - timedelta(seconds=1)
    await db.pool.execute("UPDATE memories SET created_at = now() - interval '10 days' WHERE agent_id = 'a'")
    await db.pool.execute(
        "UPDATE memories SET created_at = now() - interval '1 day' WHERE id = $1", uuid.UUID(new["id"])
    )
    assert _ids(await recall.retrieve("a", "Python version", top_k=5)) == [new["id"]]
    then = await recall.retrieve("a", "Python version", top_k=5, as_of=(before - timedelta(days=2)).isoformat())
    assert _ids(then) == [old["id"]]  # what we held then: the old fact, before the new one existed


async def test_keyword_statistics_follow_every_write(memories, db):
    a = await memories.store("a", "alpha beta gamma")
    await memories.store("a", "beta delta")
    await memories.store("b", "gamma epsilon zeta")
    await faced(memories).update("a", a["id"], content="alpha alpha omega")
    await faced(memories).delete("a", a["id"])
    await memories.store("a", "紫色 的 猫")
    stats = {r["agent_id"]: (r["n_docs"], r["total_len"]) for r in await db.pool.fetch("SELECT * FROM agent_stats")}
    truth = {
        r["agent_id"]: (r["n"], r["len"])
        for r in await db.pool.fetch(
            "SELECT agent_id, count(*) AS n, sum(doc_len) AS len FROM memories GROUP BY agent_id"
        )
    }
    assert stats == truth
    postings = await db.pool.fetchval("SELECT count(*) FROM memory_terms")
    expected = await db.pool.fetchval("SELECT count(*) FROM memories, unnest(search_vector)")
    assert postings == expected
    assert await db.pool.fetchval("SELECT count(*) FROM memory_terms WHERE term = 'omega'") == 0


async def test_keyword_channel_is_per_agent(memories, recall):
    await memories.store("b", "kubernetes ingress returns 502 after deploy")
    mine = await memories.store("a", "Lunch is at noon")
    result = await recall.retrieve("a", "kubernetes ingress 502", top_k=5)
    assert _ids(result) == [mine["id"]]  # only the vector channel's nearest of a's own
    assert "keyword" not in result["memories"][0]["channels"]


async def test_prompt_format_and_confidence(memories, recall):
    for i in range(6):
        await memories.store(
            "a",
            f"Deploy note {i}: " + "the release train leaves on Tuesdays " * 12,
            memory_type="procedural",
            created_at=NOW - timedelta(days=i),
        )
    result = await recall.retrieve(
        "a", "when does the release train leave?", top_k=6, format="prompt", max_tokens=120, as_of=NOW
    )
    lines = result["prompt"].splitlines()
    assert lines[1].startswith("1. [procedural | confidence ")
    assert re.search(r"\| 2024-06-(0[7-9]|1[0-2])\] Deploy note", lines[1]) and lines[1].endswith("…")
    assert len(lines[1].split("] ", 1)[1]) <= 200
    assert "current information" in lines[-1]
    assert result["token_estimate"] <= 120 and len(lines) < 8
    assert "memories" not in result and len(result["ids"]) == len(lines) - 2  # the block alone, as shown
    as_json = await recall.retrieve("a", "when does the release train leave?", top_k=6, as_of=NOW)
    assert all(0 <= m["confidence"] <= 1 for m in as_json["memories"])
    scores = [m["score"] for m in as_json["memories"]]
    assert scores == sorted(scores, reverse=True)  # "most relevant first" is the score's order
    assert _ids(as_json)[: len(result["ids"])] == result["ids"]  # the block shows the first of them


async def test_access_is_recorded_off_the_latency_path(memories, db, embedder):
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.recall.search import Recall

    m = await memories.store("a", "The VPN needs a token refresh every morning")
    recorder = AccessRecorder(db)
    recall = Recall(db, AsyncEmbedder(embedder), on_access=recorder.record)
    await recall.retrieve("a", "VPN token")
    await recall.retrieve("a", "VPN refresh")
    row = await db.pool.fetchrow(
        "SELECT access_count, last_accessed FROM memory_state WHERE id = $1", uuid.UUID(m["id"])
    )
    assert row["access_count"] == 0  # not written by recall itself
    await recorder.flush()
    row = await db.pool.fetchrow(
        "SELECT access_count, last_accessed FROM memory_state WHERE id = $1", uuid.UUID(m["id"])
    )
    assert row["access_count"] == 2 and row["last_accessed"] is not None


async def test_tool_index_follows_every_write(memories, db):
    m = await memories.store("a", "Set up the build", metadata={"tools_used": ["Docker", "pip"], "outcome": "success"})
    rows = lambda: db.pool.fetch("SELECT tool, failed FROM memory_tools ORDER BY tool")  # noqa: E731
    assert [tuple(r) for r in await rows()] == [("docker", False), ("pip", False)]
    await faced(memories).update("a", m["id"], metadata={"tools_used": ["pip"], "error": "resolution failed"})
    assert [tuple(r) for r in await rows()] == [("pip", True)]
    await memories.store("a", "odd metadata", metadata={"tools_used": "not-a-list"})
    await faced(memories).delete("a", m["id"])
    assert await rows() == []


async def test_metadata_words_are_searchable(memories, recall, db):
    await _fill(memories)
    m = await memories.store(
        "a",
        "Fixed the import by pinning the package",
        created_at=NOW - timedelta(days=60),
        metadata={"error": "ModuleNotFoundError: No module named 'yaml'", "external_id": "zzq9"},
    )
    hit = (await recall.retrieve("a", "No module named yaml", top_k=1, as_of=NOW))["memories"][0]
    assert hit["id"] == m["id"] and "keyword" in hit["channels"]
    assert await db.pool.fetchval("SELECT count(*) FROM memory_terms WHERE term = 'zzq9'") == 0  # ids are not words
    await faced(memories).update("a", m["id"], metadata={"error": "PermissionError on /var/log"})
    hit = (await recall.retrieve("a", "PermissionError /var/log", top_k=1, as_of=NOW))["memories"][0]
    assert hit["id"] == m["id"] and "keyword" in hit["channels"]


async def test_reranker_seam_reorders_candidates(memories, db, embedder):
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.recall.search import Recall

    for text in ("alpha notes on caching", "beta notes on caching", "gamma notes on caching"):
        await memories.store("a", text)

    class Reverse:
        seen = 0

        async def rerank(self, query, hits):
            Reverse.seen = len(hits)
            return list(reversed(hits))

    plain = await Recall(db, AsyncEmbedder(embedder)).retrieve("a", "notes on caching", top_k=3)
    reranked = await Recall(db, AsyncEmbedder(embedder), reranker=Reverse()).retrieve("a", "notes on caching", top_k=3)
    assert _ids(reranked) == _ids(plain)[::-1] and Reverse.seen == 3


async def test_a_time_phrase_in_a_question_not_about_time_pulls_nothing_in(memories, recall):
    """Class 4: "yesterday's numbers" at an as_of does not put yesterday's unrelated
    memories above the rule that answers."""
    await _fill(memories)
    rule = await memories.store(
        "a",
        "The daily models must be finished by 07:00 SGT: ops reviews the numbers after lunch",
        memory_type="semantic",
        created_at=NOW - timedelta(days=80),
    )
    for text in (
        "Lunch order for the team offsite",
        "Yesterday the coffee machine broke again",
        "Paired with Kwame on the VPN rollout",
    ):
        await memories.store("a", text, created_at=NOW - timedelta(days=1, hours=2))
    result = await recall.retrieve(
        "a",
        "The ops team looks at yesterday's numbers after lunch. By when must the daily models be finished?",
        top_k=3,
        as_of=NOW,
    )
    assert _ids(result)[0] == rule["id"]


async def test_a_question_about_the_past_recalls_what_was_current_then(memories, recall, db):
    """Class 4: at an earlier as_of, the fact current then comes first, even after decay
    faded it today."""
    await _fill(memories)
    old = await memories.store(
        "a", "courier is on Go 1.22", memory_type="semantic", slot="courier:go", created_at=NOW - timedelta(days=90)
    )
    new = await memories.store(
        "a", "courier is on Go 1.24 now", memory_type="semantic", slot="courier:go", created_at=NOW - timedelta(days=10)
    )
    await db.pool.execute(
        "UPDATE memories SET invalidated_at = $2 WHERE id = $1", uuid.UUID(old["id"]), NOW - timedelta(days=10)
    )
    await db.pool.execute("UPDATE memory_state SET decay_score = 0.05 WHERE id = $1", uuid.UUID(old["id"]))
    await db.pool.execute(
        "INSERT INTO maintenance_runs (as_of, dry_run, trigger, status) VALUES ($1, false, 'cli', 'succeeded')", NOW
    )
    then = await recall.retrieve("a", "Which Go version is courier on?", as_of=NOW - timedelta(days=30), top_k=3)
    assert _ids(then)[0] == old["id"] and new["id"] not in _ids(then)
    now = await recall.retrieve("a", "Which Go version is courier on?", as_of=NOW, top_k=3)
    assert _ids(now)[0] == new["id"] and old["id"] not in _ids(now)


async def test_an_unlinked_change_ranks_the_newer_memory_first_and_names_it(memories, recall):
    """Class 5: two facts that changed without slot or supersedes both stay current; the
    newer, which says it changed, outranks the older, and the older is marked."""
    await _fill(memories)
    old = await memories.store(
        "a",
        "Crash reporting in basket is Firebase Crashlytics; the EAS build hook uploads dSYMs",
        memory_type="semantic",
        created_at=NOW - timedelta(days=80),
    )
    new = await memories.store(
        "a",
        "basket reports crashes to Sentry now: @sentry/react-native, project basket-mobile",
        memory_type="semantic",
        created_at=NOW - timedelta(days=20),
    )
    result = await recall.retrieve("a", "Where do I look at basket crash reports?", top_k=5, as_of=NOW)
    ids = _ids(result)
    assert ids[0] == new["id"]
    if old["id"] in ids:
        stale = result["memories"][ids.index(old["id"])]
        assert stale["possibly_outdated_by"] == new["id"]
        assert stale["score"] <= 0.3 * result["memories"][0]["score"] + 1e-6


async def test_possible_conflicts_say_which_is_older_and_how_to_confirm(memories, recall):
    old = await memories.store(
        "a", "The team uses Python 3.10", memory_type="semantic", created_at=NOW - timedelta(days=40)
    )
    new = await memories.store(
        "a", "The team moved to Python 3.12", memory_type="semantic", created_at=NOW - timedelta(days=1)
    )
    conflict = next(c for c in new["possible_conflicts"] if c["id"] == old["id"])
    assert conflict["older"] and conflict["likely_outdated"] and conflict["similarity"] >= 0.9
    assert f"replaced_by='{new['id']}'" in new["conflict_hint"]
    both = _ids(await recall.retrieve("a", "Which Python version does the team use?", as_of=NOW))
    assert both.index(new["id"]) < both.index(old["id"]) if old["id"] in both else both[0] == new["id"]
    await faced(memories).invalidate("a", old["id"], "moved to 3.12", replaced_by=new["id"])  # the confirmation
    assert _ids(await recall.retrieve("a", "Which Python version does the team use?")) == [new["id"]]
    assert [h["action"] for h in await memories.history("a", old["id"])] == ["create", "supersede"]


async def test_a_chinese_change_marks_only_what_it_is_about(memories, recall, db):
    """The newcomer's case: e5 rates unrelated Chinese notes ~0.90 similar; only the test
    server's old address is likely outdated, and the exact answer ranks first."""
    nginx = await memories.store(
        "a",
        "Nginx 改完配置以后要执行 systemctl restart nginx 重启。",
        memory_type="procedural",
        created_at=NOW - timedelta(days=30),
    )
    docker = await memories.store(
        "a",
        "docker 构建失败是因为磁盘满了，清理一下镜像就好了。",
        memory_type="procedural",
        created_at=NOW - timedelta(days=30),
    )
    old = await memories.store(
        "a", "项目的测试服务器地址是 test-01.example.cn。", memory_type="semantic", created_at=NOW - timedelta(days=20)
    )
    new = await memories.store(
        "a",
        "项目的测试服务器地址已经换成 test-02.example.cn。",
        memory_type="semantic",
        created_at=NOW - timedelta(days=2),
    )
    outdated = {c["id"] for c in new.get("possible_conflicts", []) if c["likely_outdated"]}
    assert outdated == {old["id"]}
    listed = {c["id"] for c in new.get("possible_conflicts", [])}
    assert nginx["id"] not in listed and docker["id"] not in listed
    replaces = await db.pool.fetchval("SELECT likely_replaces FROM memories WHERE id = $1", uuid.UUID(new["id"]))
    assert [str(r) for r in replaces] == [old["id"]]
    await memories.store(
        "a", "项目的预发服务器现在改成 pre-02 了。", memory_type="semantic", created_at=NOW - timedelta(days=1)
    )
    hits = (await recall.retrieve("a", "测试服务器地址是什么", top_k=3, as_of=NOW))["memories"]
    assert hits[0]["id"] == new["id"] and "possibly_outdated_by" not in hits[0]


async def test_recall_says_when_nothing_relevant_is_remembered(memories, recall):
    await _fill(memories)
    await memories.store("a", "Kwame is the Vault admin", memory_type="semantic", created_at=NOW - timedelta(days=9))
    foreign = await recall.retrieve("a", "What is the Wi-Fi password of the Lisbon office?", as_of=NOW, format="prompt")
    assert foreign["nothing_relevant"] and foreign["ids"] == [] and foreign["prompt"] == scoring.NOTHING_RELEVANT
    listed = await recall.retrieve("a", "What is the Wi-Fi password of the Lisbon office?", as_of=NOW)
    assert listed["nothing_relevant"] and listed["memories"] and not any(m["relevant"] for m in listed["memories"])
    known = await recall.retrieve("a", "Who is the Vault admin?", as_of=NOW)
    assert "nothing_relevant" not in known and known["memories"][0]["content"] == "Kwame is the Vault admin"
    assert known["memories"][0]["relevant"] and known["relevance"] > listed["relevance"]
    # each hit is judged on its own: those the question is not after are marked, not padded in
    floor = relevance.hit_floor([m["relevance"] for m in known["memories"]])  # HIT_AT, and a share of the best
    assert [m["relevant"] for m in known["memories"]] == [m["relevance"] >= floor for m in known["memories"]]
    assert not all(m["relevant"] for m in known["memories"])
    confidences = [m["confidence"] for m in known["memories"]]
    assert confidences == sorted(confidences, reverse=True)


async def test_a_chinese_question_about_nothing_stored_gets_no_memories_in_its_prompt(memories, recall):
    """The newcomer's case: "怎么重启 nginx" put a test-server note into the prompt."""
    for text in (
        "docker 构建失败是因为磁盘满了，用 docker system prune 清理镜像就好了",
        "项目的测试服务器地址已经换成 test-02.example.cn",
    ):
        await memories.store("a", text, memory_type="semantic", created_at=NOW - timedelta(days=3))
    asked = await recall.retrieve("a", "怎么重启 nginx", as_of=NOW, format="prompt")
    assert asked["nothing_relevant"] and asked["ids"] == []
    known = await recall.retrieve("a", "测试服务器地址是什么", as_of=NOW, format="prompt")
    assert "nothing_relevant" not in known and "test-02.example.cn" in known["prompt"]


@pytest.mark.parametrize("hints", [{}, {"tools": ["pytest"], "session_id": "s1"}, {"query": "what failed last week?"}])
async def test_one_statement_after_the_query_is_embedded(memories, db, embedder, hints):
    """Everything recall reads after the embedding comes back in one round trip: the vector
    channel (and the hints' channels) with the rows not in hand yet (issue 33), a statement
    planned while the query was embedded (hindsight.data.ahead), so that only its execution
    follows the embedding."""
    from hindsight.embedders.base import AsyncEmbedder
    from hindsight.recall.search import Recall

    await _fill(memories)
    await memories.store(
        "a", "pytest failed on test_login last week", session_id="s1", metadata={"tools_used": ["pytest"]}
    )
    after: list[str] = []
    planned: list[str] = []
    embedded = []

    class Run:  # a statement planned ahead: what runs when it is given the embedding
        def __init__(self, inner, statement):
            self.inner, self.statement = inner, statement

        async def fetch(self, value):
            (after if embedded else planned).append(f"{self.statement} (run)")
            return await self.inner.fetch(value)

    class Spy:
        def __getattr__(self, name):
            async def call(statement, *args):
                (after if embedded else planned).append(statement)
                result = await getattr(db, name)(statement, *args)
                return Run(result, statement) if name == "plan_ahead" else result

            return call

    class Embedder(AsyncEmbedder):
        async def query(self, text):
            vector = await super().query(text)
            # the keyword phase runs its statements one after another while the query is
            # embedded, then the last one is planned; on a loaded test machine a short query's
            # embedding can end first, and what is asked here is which statements need the
            # embedding, not which is quicker
            await asyncio.sleep(0.5)
            embedded.append(text)
            return vector

    query = hints.pop("query", "which tests failed?")
    result = await Recall(Spy(), Embedder(embedder)).retrieve("a", query, top_k=3, as_of=NOW, **hints)
    assert result["memories"]
    last = "recall_vector_hinted" if hints or "week" in query else "recall_vector"
    assert after == [f"{last} (run)"]
    assert planned[-1] == last and last not in planned[:-1]


async def test_the_door_returns_typed_results_and_the_faces_json_is_the_tools(memories, recall):
    """keep and ask return StoreResult and RecallResult (real ids and datetimes); their JSON
    form is what store_memory and retrieve_memory answer."""
    from hindsight import services

    kept = await memories.keep(services.store_request("a", "The staging database is pg-stg-02", memory_type="semantic"))
    assert isinstance(kept, services.StoreResult) and isinstance(kept.id, uuid.UUID) and kept.status == "created"
    assert kept.memory.id == kept.id and isinstance(kept.memory.created_at, datetime)
    shown = kept.json()
    assert shown["id"] == str(kept.id) and list(shown)[-1] == "memory" and shown["memory"]["id"] == str(kept.id)
    again = await memories.keep(
        services.store_request("a", "The staging database is pg-stg-02", memory_type="semantic")
    )
    assert (
        again.status == "duplicate" and again.duplicate_of == kept.id and again.json()["duplicate_of"] == str(kept.id)
    )

    found = await recall.ask(services.recall_request("a", "Which database does staging use?", top_k=3))
    assert isinstance(found, services.RecallResult) and found.hits and found.prompt is None
    first = found.hits[0]
    assert isinstance(first, services.Hit) and first.id == kept.id and isinstance(first.created_at, datetime)
    answer = found.json()
    assert answer["memories"][0]["id"] == str(kept.id)
    assert answer["memories"][0]["created_at"] == first.created_at.isoformat()
    tool = await recall.retrieve("a", "Which database does staging use?", top_k=3)  # the tool's form
    assert [list(m) for m in tool["memories"]] == [list(m) for m in answer["memories"]] and list(tool) == list(answer)
    block = await recall.ask(services.recall_request("a", "Which database does staging use?", format="prompt"))
    assert block.hits is None and block.ids == (kept.id,) and block.json()["ids"] == [str(kept.id)]
    assert "pg-stg-02" in block.json()["prompt"] and "memories" not in block.json()


async def test_the_keyword_channel_scores_okapi_bm25_from_the_agents_term_statistics(memories, db):
    """channel_keyword is Okapi BM25 (k1 1.2, b 0.75) over the agent's postings, a word of the
    other language and a tool of a kind asked each counted at its weight: its scores equal the
    formula computed here from the same statistics (the statement computes each term's idf once,
    in float8)."""
    from math import log

    from hindsight.recall.request import Filters
    from hindsight.rules.text import keyword_text

    await _fill(memories)
    await memories.store("a", "Backups of the orders database are checked, backups restored weekly", created_at=NOW)
    await memories.store("b", "Database backups of another agent do not count", created_at=NOW)
    text, other, weight = keyword_text("database backups nightly"), "editor", 0.5
    tools, tool_weight = "restored backups", 2.0  # a tool of a kind asked, at its weight ("backups": the higher)
    filters = Filters("a", True, NOW + timedelta(minutes=1), None, None, None, None, None, 0.0)
    got = await db.fetch("channel_keyword", *filters, 50, text, 1000, other, weight, tools, tool_weight)

    async with db.pool.acquire() as conn:
        words = {
            r["lexeme"]: 1.0 for r in await conn.fetch("SELECT lexeme FROM unnest(to_tsvector('english', $1))", text)
        }
        for extra, counted in ((other, weight), (tools, tool_weight)):
            for r in await conn.fetch("SELECT lexeme FROM unnest(to_tsvector('english', $1))", extra):
                words[r["lexeme"]] = max(words.get(r["lexeme"], 0.0), counted)
        n, total = await conn.fetchrow("SELECT n_docs, total_len FROM agent_stats WHERE agent_id = 'a'")
        df = dict(
            await conn.fetch("SELECT term, df FROM term_stats WHERE agent_id = 'a' AND term = ANY($1)", list(words))
        )
        postings = await conn.fetch(
            "SELECT term, memory_id, tf, doc_len FROM memory_terms WHERE agent_id = 'a' AND term = ANY($1)", list(words)
        )
    avgdl = max(total / max(n, 1), 1)
    expected: dict = {}
    for p in postings:
        idf = words[p["term"]] * log(1 + (n - df[p["term"]] + 0.5) / (df[p["term"]] + 0.5))
        part = idf * p["tf"] * 2.2 / (p["tf"] + 1.2 * (0.25 + 0.75 * p["doc_len"] / avgdl))
        expected[p["memory_id"]] = expected.get(p["memory_id"], 0.0) + part
    assert len(got) == len(expected) == 3  # the backups memory, the nightly backups one, the editor one
    assert [r["id"] for r in got] == sorted(expected, key=lambda m: -expected[m])
    for r in got:
        assert float(r["score"]) == pytest.approx(expected[r["id"]], rel=1e-9)
