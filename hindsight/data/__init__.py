"""PostgreSQL: the one pool and its error boundary, SQL by name and the rows of the long
statements, migrations, readiness, the embedded server. Imports config, the embedders'
interface and errors; knows no faces and no services.
"""
