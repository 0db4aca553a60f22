// Unique memory id, unique key per namespace.
CREATE CONSTRAINT memory_id_unique IF NOT EXISTS FOR (m:Memory) REQUIRE m.id IS UNIQUE;
CREATE CONSTRAINT memory_namespace_key_unique IF NOT EXISTS FOR (m:Memory) REQUIRE (m.namespace, m.key) IS UNIQUE;
CREATE CONSTRAINT vector_tombstone_id_unique IF NOT EXISTS FOR (t:VectorTombstone) REQUIRE t.id IS UNIQUE;
CREATE CONSTRAINT schema_migration_name_unique IF NOT EXISTS FOR (s:SchemaMigration) REQUIRE s.name IS UNIQUE;
