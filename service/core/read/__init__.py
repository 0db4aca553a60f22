"""The read side: memory_search, memory_fulltext_search and retrieve_context (channels, fusion,
the graph walk). It reads memories and never writes them."""
