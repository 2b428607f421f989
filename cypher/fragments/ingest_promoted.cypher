// fragment: ingest_promoted(ts)
// params: promote
// Mark primary the tags an earlier batch of the same ingest wrote that this batch makes
// some content's primary tag: $promote holds their positions in the batch's tags `ts`
// (they are looked up, never sent whole again). `primary` only ever turns true.
FOREACH (t IN [i IN $promote | ts[i]] | SET t.primary = true)
WITH *
