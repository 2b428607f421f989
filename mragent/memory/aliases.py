"""Entity resolution between tags, kept up by every write.

After a write's batches land, :func:`link_aliases` looks its tags' names up by their
keys (:mod:`mragent.core.aliases`: spelling variants, and a one-word name with the
few people whose surname it is), measures each pair by the cosine
similarity of the two names' embeddings (each tag's cue of the same text, embedded
by the namespace's embedder), and links the pair both ways with an alias edge: a
``LINKED_TO`` carrying ``alias`` = the similarity (1.0 for spelling variants), walked
by the traversal when it reaches the genome's ``aliasThreshold``, with the
``aliasWeight`` gene as its weight (``tag_alias_link``).

Every write path calls it with the tags it wrote (ingest, remember, correct, a
restored forget, import), and a re-embedded namespace re-measures every alias
(:func:`relink_namespace`). Forget and purge need nothing of their own: a tag that
loses its last content is deleted with its edges (``memory_prune_tags``), aliases
included, and a tag that keeps contents still names what its alias names.

The cost follows the write: two index lookups and one vector fetch per chunk of
names, never a pass over the namespace; a surname shared by many people sends back
:data:`~mragent.core.aliases.MAX_LONGER` + 1 of them, not all.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from mragent.core.aliases import MAX_LONGER, NameKeys, name_keys
from mragent.core.store.base import GraphStore

# Aliases linked per tag by one write, strongest first: a name shared by many tags
# is made no hub.
MAX_ALIASES = 4
_CHUNK = 2_000
SIMILARITY_DECIMALS = 6  # as cue similarities: the same links on every CPU


def link_aliases(store: GraphStore, ns: str, scope: str, names: Iterable[str]) -> int:
    """Link the named tags of ``scope`` to the tags naming the same thing.

    Returns:
        The number of alias edges written (each pair counts twice, once per way).
    """
    linked = 0
    for chunk in _chunks(sorted(set(names))):
        pairs = _pairs(store, ns, scope, chunk)
        if not pairs:
            continue
        similar = _similarities(store, ns, scope, pairs)
        links = strongest_links(similar)
        if links:
            columns = {
                "src": [a for a, _, _ in links],
                "dst": [b for _, b, _ in links],
                "similarity": [s for _, _, s in links],
            }
            rows = store.run("tag_alias_link", {"ns": ns, "scope": scope, "links": columns})
            linked += int(rows[0]["linked"]) if rows else 0
    return linked


def relink_namespace(store: GraphStore, ns: str) -> int:
    """Re-measure every alias of ``ns`` (after its names were re-embedded)."""
    by_scope: dict[str, list[str]] = defaultdict(list)
    for row in store.run("tag_names", {"ns": ns}):
        by_scope[row["scope"]].append(row["name"])
    return sum(link_aliases(store, ns, scope, names) for scope, names in by_scope.items())


def candidate_pairs(written: Sequence[str], found: dict[str, NameKeys]) -> set[tuple[str, str]]:
    """The pairs (ordered by name) the string rules let through among a write's
    names ``written`` and the tags ``found`` by their keys (``written`` included).

    A pair is two spelling variants (equal folded names), or a one-word name and a
    person's name with that surname, when at most :data:`MAX_LONGER` people in the
    scope have it (else the word names no one in particular).
    """
    by_akey: dict[str, list[str]] = defaultdict(list)
    people: dict[str, list[str]] = defaultdict(list)
    for name, keys in found.items():
        by_akey[keys.akey].append(name)
        if keys.tail:
            people[keys.tail].append(name)
    pairs: set[tuple[str, str]] = set()

    def add(a: str, b: str) -> None:
        if a != b:
            pairs.add((min(a, b), max(a, b)))

    for name in written:
        keys = found.get(name) or name_keys(name)
        if not keys.akey:
            continue
        for other in by_akey[keys.akey]:
            add(name, other)
        if keys.short and len(people[keys.akey]) <= MAX_LONGER:
            for other in people[keys.akey]:
                add(name, other)
        if keys.tail and len(people[keys.tail]) <= MAX_LONGER:
            for other in by_akey[keys.tail]:
                if found[other].short:
                    add(name, other)
    return pairs


def _pairs(store: GraphStore, ns: str, scope: str, names: list[str]) -> set[tuple[str, str]]:
    keys = {name: name_keys(name) for name in names}
    tails = {k.tail for k in keys.values() if k.tail}
    params = {
        "ns": ns,
        "scope": scope,
        "keys": sorted({k.akey for k in keys.values() if k.akey} | tails),
    }
    found = {
        row["name"]: name_keys(row["name"]) for row in store.run("tag_alias_candidates", params)
    }
    found.update(keys)
    # A surname is looked up only where a one-word tag may stand for it: the write's
    # own short names, and the write's people whose surname a found tag spells alone.
    alone = {k.akey for k in found.values() if k.short}
    wanted = {k.akey for k in keys.values() if k.short} | (tails & alone)
    if wanted:
        people = {"ns": ns, "scope": scope, "tails": sorted(wanted), "cap": MAX_LONGER + 1}
        for row in store.run("tag_alias_people", people):
            found.setdefault(row["name"], name_keys(row["name"]))
    return candidate_pairs(names, found)


def _similarities(
    store: GraphStore, ns: str, scope: str, pairs: set[tuple[str, str]]
) -> list[tuple[str, str, float]]:
    """Each pair with its names' cosine similarity (1.0 for spelling variants)."""
    names = sorted({name for pair in pairs for name in pair})
    rows = store.run("tag_name_vectors", {"ns": ns, "scope": scope, "names": names})
    vectors: dict[str, np.ndarray] = {}
    for row in rows:
        vector = np.asarray(row["embedding"], dtype=np.float64)
        norm = float(np.linalg.norm(vector))
        if norm > 0:
            vectors[row["name"]] = vector / norm
    similar = []
    for a, b in sorted(pairs):
        if name_keys(a).akey == name_keys(b).akey:
            similar.append((a, b, 1.0))
        elif a in vectors and b in vectors:
            cosine = max(0.0, float(vectors[a] @ vectors[b]))
            similar.append((a, b, round(cosine, SIMILARITY_DECIMALS)))
    return similar


def strongest_links(similar: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
    """Both ways of each pair, at most :data:`MAX_ALIASES` per source tag, strongest
    first (ties on the name), in a stable order."""
    out: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for a, b, similarity in similar:
        out[a].append((similarity, b))
        out[b].append((similarity, a))
    links: list[tuple[str, str, float]] = []
    for src in sorted(out):
        ranked = sorted(out[src], key=lambda pair: (-pair[0], pair[1]))[:MAX_ALIASES]
        links.extend((src, dst, similarity) for similarity, dst in ranked)
    return links


def _chunks(names: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(names), _CHUNK):
        yield names[start : start + _CHUNK]
