MATCH (s:SchemaMigration {name: $name})
RETURN s.checksum AS checksum
