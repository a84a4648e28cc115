"""The read path: one recall (channels, ranking, the prompt block) and the bookkeeping of what was recalled.
May import data, embedders, rules and the store's row conversion; never a face.
"""
