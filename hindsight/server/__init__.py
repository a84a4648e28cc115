"""The MCP face: tools, resources and the prompt over stdio, and the boundary that
turns failures into MCP errors. Imports services and the parts below; nothing imports it.

    main        build() (tools, resources, the prompt, the lifespan on services.serving), main()
    params      the tools' parameter types: limits and descriptions of the published schema
    tools       the eight tools
    resources   memory://{agent_id}/profile and /recent, the configured agent's pair listed
    guidance    the instructions and the memory_guidance prompt
    boundary    HindsightServer: every failure as a clean MCP error
    arguments   strict tool arguments, refused in our words
    stdio       the transport: every line read is answered
"""
