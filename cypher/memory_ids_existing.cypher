UNWIND $ids AS id
MATCH (m:Memory {id: id})
RETURN m.id AS id
