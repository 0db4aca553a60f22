// Keyword scores of a namespace depend on that namespace alone (docs/search.md): each memory
// carries its namespace's label, `NS_` and the namespace, and each namespace has its own two
// fulltext indexes (cypher/namespace/keyword_indexes.cypher, made by the store on the namespace's
// first keyword read). The store-wide indexes of 003 and 004 go.
MATCH (m:Memory) WHERE m.namespace IS NOT NULL
CALL (m) { SET m:$('NS_' + m.namespace) } IN TRANSACTIONS OF 10000 ROWS;
DROP INDEX memory_fulltext IF EXISTS;
DROP INDEX memory_context_fulltext IF EXISTS
