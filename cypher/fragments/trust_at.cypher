// fragment: trust_at(m)
// params: as_of
// The trust state content m was in at record time $as_of: the current one unless it
// changed after $as_of, else the logged state in force then (trust_at and trust_log
// are parallel lists, oldest first).
CASE WHEN m.trust_since <= $as_of THEN m.trust
     ELSE m.trust_log[size([at IN m.trust_at WHERE at <= $as_of]) - 1] END
