"""The MCP adapter: one module per tool family, each with `register(server, session, prefix)`."""
