// space_schema: mark a namespace as written in the current store schema.
// params: ns, schema, uid
// returns: schema, version
// scope: namespace-wide: the schema version belongs to the namespace
// A namespace stamped before it had an identity gets one here ($uid, kept if set).
{{> bump space}}
SET space.schema = $schema, space.uid = coalesce(space.uid, $uid)
RETURN space.schema AS schema, space.version AS version
