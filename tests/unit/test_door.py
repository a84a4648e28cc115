"""The door's request types: built once by services.store_request, recall_request and the
single-memory verbs' builders, every problem named by its field, frozen once built (no face
or part changes a checked call); and its result type, a Memory with real ids and times whose
JSON form the faces make."""

import dataclasses
import json
import uuid
from datetime import datetime, timezone

import pytest

from hindsight import services
from hindsight.errors import InvalidInput
from hindsight.services import RecallRequest, StoreRequest, recall_request, store_request


def test_a_store_request_is_checked_where_it_is_built_and_frozen():
    req = store_request("a", "Use pnpm in this repo", importance=4, tags=["tooling"])
    assert isinstance(req, StoreRequest) and req.importance == 4 and req.tags == ["tooling"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.slot = "package-manager"  # type: ignore[misc]
    with pytest.raises(InvalidInput, match="importance"):
        store_request("a", "Use pnpm", importance=9)
    with pytest.raises(InvalidInput, match="content"):
        store_request("a", "")


def test_a_recall_request_is_checked_where_it_is_built_and_frozen():
    req = recall_request("a", "Which package manager?", top_k=3, open_projects=("basket",))
    assert isinstance(req, RecallRequest) and req.top_k == 3 and req.open_projects == ("basket",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.top_k = 50  # type: ignore[misc]
    with pytest.raises(InvalidInput, match="top_k"):
        recall_request("a", "Which package manager?", top_k=0)
    with pytest.raises(InvalidInput, match="agent_id"):
        recall_request("", "Which package manager?")


MID = "0b064a4f-c859-5272-8d02-50dd7a047e3e"


def test_the_single_memory_requests_are_checked_where_they_are_built_and_frozen():
    got = services.get_request("a", MID, True)
    assert isinstance(got, services.GetRequest) and got.memory_id == uuid.UUID(MID) and got.reveal is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.agent_id = "b"  # type: ignore[misc]
    with pytest.raises(InvalidInput, match="memory_id"):
        services.get_request("a", "not-an-id")
    with pytest.raises(InvalidInput, match="reveal"):
        services.get_request("a", MID, "yes")
    changed = services.update_request("a", MID, importance=5)
    assert isinstance(changed, services.UpdateRequest) and (changed.importance, changed.content) == (5, None)
    with pytest.raises(InvalidInput, match="update_memory.*at least one"):
        services.update_request("a", MID)
    with pytest.raises(InvalidInput, match="importance"):
        services.update_request("a", MID, importance=9)
    gone = services.invalidate_request("a", MID, "password hunter2 moved to AKIAIOSFODNN7EXAMPLE")
    assert isinstance(gone, services.InvalidateRequest) and "AKIAIOSFODNN7EXAMPLE" not in gone.reason and gone.redacted
    with pytest.raises(InvalidInput, match="replaced_by.*another memory"):
        services.invalidate_request("a", MID, "moved", MID)
    with pytest.raises(InvalidInput, match="reason"):
        services.invalidate_request("a", MID, "  ")
    assert services.delete_request("a", MID).memory_id == uuid.UUID(MID)
    page = services.list_request("a", limit=5, offset=10, project="")
    assert isinstance(page, services.ListRequest) and (page.limit, page.offset, page.project) == (5, 10, "")
    for bad in ({"limit": 0}, {"include_shared": "yes"}, {"memory_type": "dream"}, {"offset": -1}):
        with pytest.raises(InvalidInput, match=next(iter(bad))):
            services.list_request("a", **bad)


def _row(**over: object) -> dict[str, object]:
    at = datetime(2026, 11, 30, 9, 15, tzinfo=timezone.utc)
    row: dict[str, object] = dict(
        id=uuid.UUID(MID), agent_id="a", session_id=None, memory_type="semantic", content="Use pnpm",
        metadata={"project": "basket"}, tags=["tooling"], importance=3, created_at=at, stored_at=at, updated_at=at,
        expires_at=None, invalidated_at=None, invalidation_reason=None, invalidated_by=None, shared=False, slot=None,
        flags=[], reinforce_count=0, strength=1.0, consolidated_into=None, sealed=False, project="basket",
    )  # fmt: skip
    return row | over


def test_a_memory_has_real_ids_and_times_and_its_json_form_is_made_when_a_face_answers():
    m = services.Memory.of(_row(decay_score=0.9, access_count=2, last_accessed=None), warning="not current")
    assert isinstance(m.id, uuid.UUID) and isinstance(m.created_at, datetime) and m.state is not None
    shown = m.json()
    assert shown["id"] == MID and shown["created_at"] == "2026-11-30T09:15:00+00:00"
    assert list(shown)[:3] == ["id", "agent_id", "session_id"]  # the columns' order, as before
    assert list(shown)[-4:] == ["decay_score", "access_count", "last_accessed", "warning"]
    assert json.loads(json.dumps(shown)) == shown  # nothing left that JSON cannot carry
    written = services.Memory.of(_row())  # what a write returns has no state columns
    assert "decay_score" not in written.json() and "notes" not in written.json()
    page = services.Listing((m, written), 20, 0).json()
    assert [x["id"] for x in page["memories"]] == [MID, MID] and (page["limit"], page["offset"]) == (20, 0)


def test_a_dismiss_request_names_both_memories():
    asked = services.dismiss_request("a", MID, "9e520788-12a0-5293-acda-683ab7ca2e0b")
    assert isinstance(asked, services.DismissRequest) and asked.new_id == uuid.UUID(MID) and asked.call == "ui"
    with pytest.raises(InvalidInput, match="old_id"):
        services.dismiss_request("a", MID, "nope")
    with pytest.raises(InvalidInput, match="new_id"):
        services.dismiss_request("a", None, MID)
