// Claims of the context indexer (context_claim): one node per claimed memory, its id unique, so
// that concurrent claimers of one memory serialize on it and one of them wins.
CREATE CONSTRAINT context_claim_id IF NOT EXISTS FOR (c:ContextClaim) REQUIRE c.id IS UNIQUE;
