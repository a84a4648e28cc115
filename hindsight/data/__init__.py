"""PostgreSQL: the one pool and its error boundary, SQL by name and the rows of the long
statements, memories as JSON-ready records, migrations, readiness, the embedded server;
and the bilingual lexicon read from its file (and kept). Imports config, the embedders'
interface, rules and errors; knows no faces and no services.
"""
