"""The MCP face: the tools, resources and prompt over stdio, and the boundary that turns failures into MCP errors.
May import every part below it (store, recall, data, embedders, rules) and services; nothing imports it but the entry points.
"""
