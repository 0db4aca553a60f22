// Near-duplicate detection on save: memories of a namespace with the same content hash.
CREATE INDEX memory_namespace_text_sha256 IF NOT EXISTS FOR (m:Memory) ON (m.namespace, m.text_sha256)
