// fragment: visible(m)
// params: ns, scopes, trust, as_of
// The read view, written once: content m lies in the namespace and in one of $scopes,
// is not forgotten, was the current version at record time $as_of, and was then in
// one of the trust states $trust (trust_at).
m.ns = $ns AND m.scope IN $scopes AND m.forgotten_at IS NULL
  AND m.recorded_at <= $as_of AND (m.superseded_at IS NULL OR m.superseded_at > $as_of)
  AND {{> trust_at m}} IN $trust
