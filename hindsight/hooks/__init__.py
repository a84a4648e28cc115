"""The IDE's lifecycle hooks (hindsight hooks install): what they capture, through the write
path, and what they bring back to the model, through recall. Imports store, recall, data and
rules; never a face nor services.
"""
