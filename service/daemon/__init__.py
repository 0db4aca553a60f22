"""One owner of the local stores: the data folder's lock, the `serve` daemon and its discovery
file, the stdio bridge that relays MCP to it, and the client helper that finds or starts it."""
