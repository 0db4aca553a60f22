UNWIND $ids AS id
MATCH (t:VectorTombstone {id: id})
DELETE t
