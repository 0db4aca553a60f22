// Fulltext (Lucene BM25) over the text fields; see docs/search.md for the analyzer choice.
CREATE FULLTEXT INDEX memory_fulltext IF NOT EXISTS FOR (m:Memory) ON EACH [m.title, m.summary, m.content, m.tags_text, m.key] OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}};
