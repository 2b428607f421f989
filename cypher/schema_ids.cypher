// schema_ids: id and key lookups, one index per lookup the product makes.
// params:
// returns:
CREATE INDEX cue_id IF NOT EXISTS FOR (c:Cue) ON (c.id);
CREATE INDEX cue_text IF NOT EXISTS FOR (c:Cue) ON (c.ns, c.text);
CREATE INDEX tag_id IF NOT EXISTS FOR (t:Tag) ON (t.id);
CREATE INDEX tag_name IF NOT EXISTS FOR (t:Tag) ON (t.ns, t.name);
// Entity resolution's name keys (tag_alias_candidates).
CREATE INDEX tag_akey IF NOT EXISTS FOR (t:Tag) ON (t.ns, t.akey);
CREATE INDEX tag_tail IF NOT EXISTS FOR (t:Tag) ON (t.ns, t.tail);
CREATE INDEX content_id IF NOT EXISTS FOR (m:Content) ON (m.id);
CREATE INDEX content_key IF NOT EXISTS FOR (m:Content) ON (m.ns, m.key);
CREATE INDEX content_lineage IF NOT EXISTS FOR (m:Content) ON (m.lineage);
CREATE INDEX content_hash IF NOT EXISTS FOR (m:Content) ON (m.hash);
// The change feed: nodes stamped after a reader's version (index_cues, index_contents).
CREATE INDEX cue_v IF NOT EXISTS FOR (c:Cue) ON (c.ns, c.v);
CREATE INDEX content_v IF NOT EXISTS FOR (m:Content) ON (m.ns, m.v);
// One MemorySpace per namespace, even when several processes write a new namespace at
// once: MERGE alone can create two under concurrency; a uniqueness constraint cannot.
// (Its own index replaces the plain one earlier versions created.)
DROP INDEX memory_space_ns IF EXISTS;
CREATE CONSTRAINT memory_space_ns_unique IF NOT EXISTS
FOR (s:MemorySpace) REQUIRE s.ns IS UNIQUE;
