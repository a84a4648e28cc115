"""The nightly job: decay, retention, archive and consolidation, re-embedding, and the APScheduler schedule.
May import store, data, embedders and rules; never a face.
"""
