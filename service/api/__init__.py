"""The adapters, thin: HTTP routers and MCP tool families, auth, metrics and the one tool
table both read."""
