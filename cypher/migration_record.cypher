MERGE (s:SchemaMigration {name: $name})
SET s.checksum = $checksum, s.applied_at = datetime()
