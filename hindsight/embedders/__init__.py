"""Vectors: the embedder interface, the bundled e5-small, any OpenAI-compatible endpoint, bulk embedding.
May import config and errors only.
"""
