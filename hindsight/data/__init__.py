"""PostgreSQL: the one pool and its error boundary, SQL by name, migrations, readiness, the embedded server.
Imports the embedders' interface, rules and errors; knows no faces and no services.
"""
