// space_schema: mark a namespace as written in the current store schema.
// params: ns, schema
// returns: schema
// scope: namespace-wide: the schema version belongs to the namespace
MATCH (s:MemorySpace)
WHERE s.ns = $ns
SET s.schema = $schema
RETURN s.schema AS schema
