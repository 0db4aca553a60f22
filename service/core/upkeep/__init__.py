"""Keeping the stores in shape: timeline, stats and LRU cleanup, export and import, reconcile,
and the background context indexer."""
