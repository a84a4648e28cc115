"""The nightly job: decay, retention, archive, consolidation, re-embedding, the schedule.
Imports store, data, embedders and rules; never a face.
"""
