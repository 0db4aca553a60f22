// Memory ids in lower case, as saves now write them: Qdrant reads a UUID point id in any case,
// so ids that differ only in case would name one vector. Ids given in capitals before that are
// lower-cased here, unless another memory already holds the lower-case form (`reconcile` then
// repairs the vector they share); superseded_by follows.
MATCH (m:Memory) WHERE m.id <> toLower(m.id) AND NOT EXISTS { MATCH (:Memory {id: toLower(m.id)}) } SET m.id = toLower(m.id);
MATCH (m:Memory) WHERE m.superseded_by <> toLower(m.superseded_by) SET m.superseded_by = toLower(m.superseded_by)
