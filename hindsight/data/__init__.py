"""PostgreSQL: the one pool and its error boundary, SQL by name, migrations, getting a database ready, the embedded server.
May import embedders' interface, rules and errors; knows no faces and no services.
"""
