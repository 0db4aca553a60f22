// The namespace's graph version alone (retrieve_context reads it with its lexical channels).
// @include namespace_graph_version
RETURN version, memories, links, size_bytes
