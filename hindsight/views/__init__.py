"""What operators see: the overview of an agent's memory (the UI's first page and `hindsight
stats`), one memory's page with its links, the open conflicts, the archive. Reads only, on
the read replicas when there are some. Imports data and rules; never a face nor services.
"""
