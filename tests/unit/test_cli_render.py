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


def test_a_maintenance_report_reads_as_lines():
    report = {"status": "succeeded", "config": {"x": 1}, "decay": {"changed": 3, "threshold": 0.3}, "agents": []}
    assert render.report_lines(report, skip=("config",)) == [
        "status: succeeded",
        "decay.changed: 3",
        "decay.threshold: 0.3",
        "agents: -",
    ]
