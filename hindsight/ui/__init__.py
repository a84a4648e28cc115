"""`hindsight ui`: a local web page to see, search, explain and correct what an agent
remembers.

    serve      start it: settings, database, a loopback socket, the token in the URL
    app        the Starlette routes: read a request, call the services, render a page
    security   the gate every request passes: host, token/session cookie, CSRF, headers
    data       what the pages read (sql/queries/ui.sql) and the dismissal of a conflict
    views      pages as HTML, from plain data (no I/O): widgets and the page_* modules
    explain    recall's score parts, channels, flags and history in words (pure)
    charts     bar charts as inline SVG (pure)
    html       escaping by default, the page layout and its stylesheet

Server-rendered HTML, no JavaScript, no external resources: it works offline and the
Content-Security-Policy allows only the page's own nonce'd stylesheet. Corrections go
through the same code as the MCP tools (call = "ui" in memory_history).
"""
