"""The read path: the checked request, one recall (channels, ranking, the prompt block) and
the recall bookkeeping. Imports data, embedders and rules; never store, a face nor
services.
"""
