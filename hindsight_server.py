"""hindsight's stdio MCP server: `python hindsight_server.py` (same as `hindsight-server`)."""

from hindsight.server.main import main

if __name__ == "__main__":
    main()
