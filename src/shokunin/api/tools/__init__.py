"""The Tools face (seed 003): list, settings, execute, stream, abort; agents' own tools;
the MCP servers whose tools are listed."""
