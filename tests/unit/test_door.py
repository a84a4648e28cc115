"""The door's request types: built once by services.store_request / recall_request, every
problem named by its field, frozen once built (no face or part changes a checked call)."""

import dataclasses

import pytest

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
