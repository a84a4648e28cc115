"""Vectors: the embedder interface, the bundled e5-small, OpenAI-compatible endpoints, bulk embedding.
Imports config and errors only.
"""
