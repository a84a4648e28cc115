"""The MCP face: tools, resources and the prompt over stdio, and the boundary that
turns failures into MCP errors. Imports services and the parts below; nothing imports it.

    main        the entry point: arguments, signals, the front door first, then the server
    front       the stdio wire from the first moment, connect requests answered early
    handshake   those early answers, in the SDK's own words (standard library only)
    app         build() (tools, resources, the prompt, the lifespan on services.opening), serving
    params      the tools' parameter types: limits and descriptions of the published schema
    tools       the eight tools
    resources   memory://{agent_id}/profile and /recent, the configured agent's pair listed
    guidance    the instructions and the memory_guidance prompt
    boundary    HindsightServer: every failure as a clean MCP error
    arguments   strict tool arguments, refused in our words
    stdio       the transport: every line read is answered
    roots       the open project: roots, the project folder, the launch folder
    protocol    completion and logging/setLevel
    http        the team's transport: streamable HTTP with bearer tokens, POST only
    deadlines   slow HTTP clients: a request's headers and body within a deadline, else 408
    messages    one JSON-RPC message checked before the SDK sees it (stdio and HTTP), refused
                in one line of our words with its id
"""
