"""The rules and use cases: models, inputs, ranking, sorting, errors and the memory, retrieval,
reconcile and bulk-import services. Knows no transport and no engine types."""
