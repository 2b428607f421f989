"""The paths a reconstruction used, as Cypher for a graph browser.

:func:`browser_cypher` writes one query (Neo4j Browser, Memgraph Lab,
FalkorDB's browser) that draws exactly what reached the context: every cue path
to a content handed to synthesis, every bridge hop to a bridged content, and
every seed passage no cue path reached, as a path of its own node. Its ``entry``
column says which of the three each row is.

Neo4j Browser adds, with "Connect result nodes" on (its default), every
relationship between the drawn nodes, used or not, and captions a node with no
``name`` or ``title`` by whatever property comes first (a cue by its namespace).
So the text opens with the two commands to run once, which the Browser keeps:
``:config autoComplete: false`` and ``:style`` with the shipped
``views/mragent.grass`` (captions: cue text, tag name, content title, trace
question; a colour per label; edge weights and trace visit kinds on the edges).
The sheet's captions are large for their nodes: the Browser fits the whole result
into a frame about 460 px high at first paint, which shrinks 10-11 px captions to
about 5 px; 18 px captions in 95 px circles paint at about 9 px, mostly whole
(bigger circles spread the layout and shrink it as much again).
Embeddings stay node properties, as the vector indexes need; the Browser's
inspector cuts them to a few lines ahead of "Show all".
"""

from __future__ import annotations

import re
from pathlib import Path

from mragent.apps.views.explain import Entry, Trace
from mragent.core.errors import MragentError
from mragent.core.paths import shipped

# What may be printed into Cypher text between quotes: ids are uuid4 strings.
_UUIDISH = re.compile(r"[0-9a-f][0-9a-f-]{0,63}")
CONNECT_OFF = ":config autoComplete: false"


def grass_path() -> Path:
    """The Neo4j Browser style sheet shipped with mragent."""
    return shipped("_views/mragent.grass", "views/mragent.grass")


def style_command() -> str:
    """``:style`` and the style sheet on one line, as the Browser's editor takes it."""
    return ":style " + " ".join(grass_path().read_text(encoding="utf-8").split())


def checked_id(node_id: str) -> str:
    """``node_id`` if it is uuid-like (safe between quotes in Cypher text).

    Raises:
        MragentError: when the id holds anything but lowercase hex and dashes.
    """
    if not isinstance(node_id, str) or not _UUIDISH.fullmatch(node_id):
        raise MragentError(f"node id {node_id!r} is not a uuid; refusing to print it as Cypher")
    return node_id


def _node(label: str, node_id: str) -> str:
    return f"({label} {{id: '{checked_id(node_id)}'}})"


def path_pattern(nodes: tuple[str, ...]) -> str:
    """The Cypher pattern of one cue path, by ids: Cue, LINKED_TO Tags, REFERENCES Content."""
    out = _node(":Cue", nodes[0])
    for tag in nodes[1:-1]:
        out += "-[:LINKED_TO]->" + _node(":Tag", tag)
    return out + "-[:REFERENCES]->" + _node(":Content", nodes[-1])


def bridge_pattern(nodes: tuple[str, ...]) -> str:
    """The Cypher pattern of one bridge hop: seed <- its tag -> mentioned tag -> content."""
    seed, own, mentioned, content = nodes
    return (
        f"{_node(':Content', seed)}<-[:REFERENCES]-{_node(':Tag', own)}"
        f"-[:LINKED_TO]->{_node(':Tag', mentioned)}-[:REFERENCES]->{_node(':Content', content)}"
    )


def _header(trace: Trace) -> list[str]:
    by_path = {p.nodes[-1] for p in trace.used_paths}
    question = " ".join(trace.question.split())
    lines = [
        f"// mragent explain: {len(trace.kept)} contents handed to synthesis; "
        f"{len(trace.used_paths)} cue paths reached {len(by_path)} of them",
        f"// question: {question}",
    ]
    seeded = [c for c in trace.kept if c.entry is not Entry.PATH]
    if seeded:
        names = "; ".join(f"{c.title} ({trace.entry_text(c)})" for c in seeded)
        lines.append(f"// brought in by passage seeding, no cue path: {names}")
        lines.append("// (a seed passage is drawn alone, a bridged one with its bridge hop)")
    return [
        *lines,
        "// Neo4j Browser: run these two lines once, each on its own and without the //",
        "// (the Browser keeps both; undo with :config autoComplete: true and :style reset).",
        '// The first stops "Connect result nodes" adding edges that were not used; the',
        f"// second captions and colours the nodes ({grass_path().name}, shipped with mragent).",
        f"// {CONNECT_OFF}",
        f"// {style_command()}",
    ]


def browser_cypher(trace: Trace) -> str:
    """A query that draws exactly what reached the context, for a graph browser.

    One ``MATCH p = ... RETURN p, entry`` per cue path, bridge hop and unreached
    seed passage, joined by ``UNION``; ids are literal (this text is for a person
    to paste, mragent never runs it) and each is checked to be uuid-like first.

    Raises:
        MragentError: when nothing reached the context, or an id is not uuid-like.
    """
    branches = [(path_pattern(p.nodes), "cue path") for p in trace.used_paths]
    branches += [(bridge_pattern(b), "bridge from a seed passage") for b in trace.used_bridges]
    branches += [(_node(":Content", c.id), "seeded, no cue path") for c in trace.used_seeded]
    if not branches:
        raise MragentError("no path reached the context: there is nothing to draw")
    body = "\nUNION\n".join(
        f"MATCH p = {pattern}\nRETURN p, '{entry}' AS entry" for pattern, entry in branches
    )
    return "\n".join(_header(trace)) + "\n" + body + "\n"
