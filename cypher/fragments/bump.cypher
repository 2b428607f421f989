// fragment: bump(space)
// params: ns
// Every write starts here: match the namespace's MemorySpace and bump its version in
// the same statement as the change. The writing query then stamps `v = space.version`
// on each node it creates or whose visibility it changes, and returns
// `space.version AS version`: no MemorySpace, no row, and nothing is written.
MATCH (space:MemorySpace)
WHERE space.ns = $ns
SET space.version = coalesce(space.version, 0) + 1
