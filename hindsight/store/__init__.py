"""The write path: storing, updating, invalidating and forgetting memories, interactions, import and export.
May import data, embedders and rules; never a face.
"""
