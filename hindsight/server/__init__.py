"""The MCP face: tools, resources and the prompt over stdio, and the boundary that
turns failures into MCP errors. Imports services and the parts below; nothing imports it.
"""
