"""The write path: store, update, invalidate, forget; interactions; import and export.
Imports data, embedders and rules; never recall, a face nor services.
"""
