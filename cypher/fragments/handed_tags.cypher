// fragment: handed_tags(m)
// params: hand_refs
// The names of the specific tags content m mentions or is about: those referencing at
// most $hand_refs contents (a year or a country leads everywhere, so it is no bridge).
// A later round of reconstruction enters at their cues. $hand_refs 0 (one round):
// none, and no edge is read.
[(m)<-[:REFERENCES]-(h:Tag) WHERE coalesce(h.refs, $hand_refs + 1) <= $hand_refs | h.name]
