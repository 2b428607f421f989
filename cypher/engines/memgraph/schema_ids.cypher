// schema_ids: id and key lookups (Memgraph label-property indexes).
// params:
// returns:
CREATE INDEX ON :Cue(id);
CREATE INDEX ON :Cue(text);
CREATE INDEX ON :Cue(ns);
CREATE INDEX ON :Tag(id);
CREATE INDEX ON :Tag(name);
CREATE INDEX ON :Tag(akey);
CREATE INDEX ON :Tag(tail);
CREATE INDEX ON :Content(id);
CREATE INDEX ON :Content(key);
CREATE INDEX ON :Content(ns);
CREATE INDEX ON :Content(lineage);
CREATE INDEX ON :Content(hash);
CREATE INDEX ON :Cue(v);
CREATE INDEX ON :Content(v);
CREATE INDEX ON :MemorySpace(ns);
// One MemorySpace per namespace under concurrent first writes (see the common file).
CREATE CONSTRAINT ON (s:MemorySpace) ASSERT s.ns IS UNIQUE;
