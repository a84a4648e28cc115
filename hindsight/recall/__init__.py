"""The read path: the checked request, one recall (channels, ranking, the prompt block) and
the recall bookkeeping. Imports data, embedders, rules and the store's row conversion
(store.records); never a face nor services.
"""
