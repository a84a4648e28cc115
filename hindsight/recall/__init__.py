"""The read path: one recall (channels, ranking, the prompt block) and the recall bookkeeping.
Imports data, embedders, rules and the store's row conversion; never a face.
"""
