"""A server's lifetime holdings are out of the garbage collector's sight once it has loaded
them (services.start.settle_heap): a full collection walks only what calls make and drop,
not the lexicon's hundred thousand words in the middle of a recall."""

from __future__ import annotations

import gc

from hindsight.config import Settings
from hindsight.services import start


async def test_the_lexicon_a_server_loads_is_not_walked_by_a_collection(db_url, embedder):
    settings = Settings.from_env({"HINDSIGHT_DATABASE_URL": db_url})
    gc.unfreeze()  # whatever an earlier test froze is back in sight
    try:
        async with start.opened(settings, db_url, warm_recall=True, embedder=embedder) as services:
            lexicon = await services.recall._lexicon()
            assert len(lexicon.zh_en) > 10_000
            assert gc.get_freeze_count() > 0
            assert not any(held is lexicon.zh_en or held is lexicon.en_zh for held in gc.get_objects())
            answer = await services.recall.retrieve("dev", "how do we deploy", top_k=3)
            assert "memories" in answer  # recall works on the settled heap
    finally:
        gc.unfreeze()


async def test_a_command_that_loads_no_lexicon_leaves_the_heap_alone(db_url, embedder):
    settings = Settings.from_env({"HINDSIGHT_DATABASE_URL": db_url})
    gc.unfreeze()
    try:
        async with start.opened(settings, db_url, embedder=embedder):
            assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
