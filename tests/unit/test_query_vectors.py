"""AsyncEmbedder keeps the vectors of recent questions: a repeat is not embedded again."""

import asyncio

import numpy as np

from hindsight.embedders.base import AsyncEmbedder
from hindsight.embedders.e5 import E5Small


class Counting:
    """The real e5-small, counting the questions it embeds."""

    def __init__(self):
        self.inner, self.asked = E5Small(), []
        self.name, self.dimension = self.inner.name, self.inner.dimension

    def query(self, text):
        self.asked.append(text)
        return self.inner.query(text)

    def passages(self, texts):
        return self.inner.passages(texts)


def test_a_repeated_question_is_embedded_once_and_the_oldest_is_forgotten():
    counting = Counting()
    embedder = AsyncEmbedder(counting, remember=2)

    async def ask(*texts):
        return [await embedder.query(t) for t in texts]

    first, again = asyncio.run(ask("how do I run the tests?", "how do I run the tests?"))
    assert counting.asked == ["how do I run the tests?"]
    assert np.array_equal(first, again) and not again.flags.writeable  # shared, so nobody may change it
    asyncio.run(ask("部署到生产环境怎么做？", "where are the logs?", "how do I run the tests?"))
    assert counting.asked[1:] == ["部署到生产环境怎么做？", "where are the logs?", "how do I run the tests?"]


def test_without_remember_every_question_is_embedded():
    counting = Counting()
    embedder = AsyncEmbedder(counting)
    asyncio.run(embedder.query("q")), asyncio.run(embedder.query("q"))
    assert counting.asked == ["q", "q"]
