// space_trust: set the agents whose memories are accepted on write.
// params: ns, trusted
// returns: trusted, version
// scope: namespace-wide: who may write accepted memories is a property of the namespace
{{> bump space}}
SET space.trusted = $trusted
RETURN space.trusted AS trusted, space.version AS version
