"""The `serve` daemon that owns the local stores, the stdio bridge that relays MCP to it, and the
client helper that finds or starts it (the folder's lock and discovery: service/data_folder)."""
