"""What `hindsight recall` prints: every hit's type, confidence and what recall knows about it,
and its content whole, wrapped to the width."""

from hindsight.cli import render

HIT = {
    "id": "0d6f1c9e-1111-4222-8333-444455556666",
    "score": 0.8123,
    "confidence": 0.87,
    "created_at": "2026-05-01T10:00:00+00:00",
    "memory_type": "semantic",
    "content": "The test server moved to test-02.example.cn on Monday; " * 4,
    "possibly_outdated_by": "9a8b7c6d-0000-4000-8000-000000000000",
    "project": "courier",
    "flags": ["low_trust", "something_else"],
}


def test_a_hit_says_type_confidence_outdated_project_and_flags_then_its_content_wrapped():
    lines = render.recall_table([HIT], 80)
    assert lines[0] == " 1. 0.812  0d6f1c9e  2026-05-01  semantic  confidence 0.87"
    assert lines[1] == "    [possibly outdated by 9a8b7c6d; project courier; low_trust]"
    body = lines[2:]
    assert all(line.startswith("    ") and len(line) <= 80 for line in body)
    assert " ".join(" ".join(body).split()) == " ".join(HIT["content"].split())  # nothing cut


def test_a_plain_hit_has_no_marks_beyond_its_confidence():
    plain = {k: v for k, v in HIT.items() if k not in ("possibly_outdated_by", "project", "flags")}
    plain["content"] = "Short."
    assert render.recall_table([plain], 80) == [
        " 1. 0.812  0d6f1c9e  2026-05-01  semantic  confidence 0.87",
        "    Short.",
    ]


def test_doctor_names_the_embedded_databases_socket_not_a_port():
    from hindsight.cli.offline import _embedded_where

    said = _embedded_where("postgresql://postgres@/postgres?host=/home/me/.hindsight/pgdata&port=5432")
    assert "unix socket in /home/me/.hindsight/pgdata" in said and "no TCP port" in said and "port=5432" not in said


def test_a_maintenance_report_reads_as_one_line_per_step():
    report = {
        "run": 12,
        "as_of": "2026-05-01T03:00:00.123+00:00",
        "dry_run": False,
        "config": {"decay_lambda": 0.05},
        "decay": {"changed": 40, "sank_below": 3, "recovered": 1, "threshold": 0.3, "pages": 2, "seconds": 0.1},
        "archive": {"archived_expired": 2, "archived_superseded": 5},
        "consolidation": {"clusters": 1, "examples": [{"size": 3}], "created": 1, "reinforced": 0, "sources_marked": 3},
        "agent_indexes": {"kept": 1, "dropped": [], "built": [{"agent_id": "dev", "index": "x", "rows": 30000}]},
        "counts": {"before": {"live": 90, "archived": 10}, "after": {"live": 84, "archived": 17}, "reconciled": True},
        "seconds": 0.4,
        "status": "succeeded",
    }
    assert render.maintenance_lines(report) == [
        "maintenance run 12 as of 2026-05-01 03:00 UTC: succeeded in 0.4 s",
        "decay: 40 memories rescored; 3 fell below the recall cut 0.3, 1 rose above it",
        "archive: 2 expired and 5 long-superseded memories archived",
        "consolidation: 1 cluster of similar episodes; 1 new fact, 0 reinforced, 3 episodes marked",
        "vector indexes per agent: 1 kept; built: dev; dropped: none",
        "memories: 90 current and 10 archived before, 84 and 17 after",
    ]
    skipped = {"status": "skipped", "reason": "another maintenance run holds the lock", "run": 13}
    assert render.maintenance_lines(skipped) == ["maintenance run 13 skipped: another maintenance run holds the lock"]
