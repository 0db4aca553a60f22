"""The rules and use cases: read/ (searches), write/ (saves), upkeep/ (lifecycle, backup,
reconcile, the context indexer) and the shared models. Knows no transport and no engine types."""
