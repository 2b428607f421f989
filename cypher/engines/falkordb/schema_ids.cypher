// schema_ids: id and key lookups (FalkorDB: single-property range indexes).
// params:
// returns:
CREATE INDEX FOR (c:Cue) ON (c.id);
CREATE INDEX FOR (c:Cue) ON (c.text);
CREATE INDEX FOR (c:Cue) ON (c.ns);
CREATE INDEX FOR (t:Tag) ON (t.id);
CREATE INDEX FOR (t:Tag) ON (t.name);
CREATE INDEX FOR (t:Tag) ON (t.akey);
CREATE INDEX FOR (t:Tag) ON (t.tail);
CREATE INDEX FOR (m:Content) ON (m.id);
CREATE INDEX FOR (m:Content) ON (m.key);
CREATE INDEX FOR (m:Content) ON (m.ns);
CREATE INDEX FOR (m:Content) ON (m.lineage);
CREATE INDEX FOR (m:Content) ON (m.hash);
CREATE INDEX FOR (c:Cue) ON (c.v);
CREATE INDEX FOR (m:Content) ON (m.v);
CREATE INDEX FOR (s:MemorySpace) ON (s.ns);
