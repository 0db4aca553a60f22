// The two fulltext indexes of one namespace, over the memories labelled `NS_<namespace>`: Lucene's
// BM25 statistics (how rare a word is, how long a text is) then count that namespace alone.
// `<namespace>` stands for the namespace, escaped for backticks; see docs/search.md for the
// analyzer choice.
CREATE FULLTEXT INDEX `memory_fulltext__<namespace>` IF NOT EXISTS
FOR (m:`NS_<namespace>`) ON EACH [m.title, m.summary, m.content, m.tags_text, m.key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}};
CREATE FULLTEXT INDEX `memory_context_fulltext__<namespace>` IF NOT EXISTS
FOR (m:`NS_<namespace>`) ON EACH [m.context_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-folding', `fulltext.eventually_consistent`: false}}
