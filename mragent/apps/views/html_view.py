"""A standalone, offline HTML view of a trace, drawn by vis-network through pyvis.

pyvis builds and serialises the graph (nodes, edges, options); the page is
rendered from ``html_view.html`` beside this module, which inlines pyvis' bundled
copy of vis-network, so the file loads nothing from the network.

Columns, left to right: entry cues, tags by hop, contents (in final rank order).
What reached the context is drawn at first paint: the cue paths (solid, green),
the contents passage seeding brought in without a cue path (purple, dashed
border, tied to the cue of their title by a dashed "seeded" edge) and the bridge
hops to bridged contents (purple). A checkbox adds the paths to contents left
out (grey; pruned paths dashed red). Edge labels carry the evidence after that
edge (strongest path through it). Contents sharing a title are told apart by
the opening words of their text.

The page lays the columns out itself to fill the graph's width, with the zoom
kept at or above :data:`MIN_LABEL_PX` screen pixels per label line. It routes
the edges itself too, once vis-network has sized the nodes: orthogonal runs
through the channels between columns and the gaps between a column's nodes
(:data:`ROW_GAP`), each edge on its own lane, port and slot, so no edge passes
through a node it does not end at (vis-network's centre-to-centre curves did, and
read as edges of the nodes they crossed). Each label sits on its own route where
it covers no node, arrowhead or other label. The routes are painted under the
nodes, and hovering one shows its details.

After drawing, the page records in ``document.body.dataset`` what it drew
(``renderedNodes``: labels and groups of the visible nodes; ``renderedEdges``;
``renderedRoutes``: each edge's points and label box; ``nodeBoxes``;
``paintedPixels``; ``minLabelPx``; ``graphRect``), so a headless browser can check
the page.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from mragent.apps.views.explain import FATE_ORDER, Entry, Fate, Trace, TracePath
from mragent.core.files import PRIVATE, write_text_atomic

if TYPE_CHECKING:
    import jinja2
    from pyvis.network import Network

MIN_LABEL_PX = 12
"""Smallest node label, in screen pixels, at first paint (the page zooms no further out)."""
NODE_FONT = 16  # canvas units; MIN_LABEL_PX / NODE_FONT bounds the zoom from below
EDGE_FONT = 14
ROW_GAP = 30  # canvas units between the nodes of a column: room for the edges routed there
SNIPPET = 34  # characters of text that tell apart contents sharing a title

_SEEDED = "#8e44ad"
_COLOURS = {
    "cue": "#9ecbff",
    "tag": "#ffe08a",
    Fate.KEPT: "#7fd18b",
    Fate.DROPPED: "#f6b26b",
    Fate.CUT: "#c9c9c9",
    Fate.UNRANKED: "#e6e6e6",
    Fate.PRUNED: "#eeeeee",
}
_EDGE_COLOURS = {
    Fate.KEPT: "#2e8b3e",
    Fate.DROPPED: "#b07020",
    Fate.CUT: "#9a9a9a",
    Fate.UNRANKED: "#b5b5b5",
    Fate.PRUNED: "#d06060",
}
_OPTIONS = {
    "physics": {"enabled": False},
    "interaction": {"hover": True, "tooltipDelay": 120},
    "edges": {
        "arrows": {"to": {"enabled": True, "scaleFactor": 0.6}},
        "font": {"size": EDGE_FONT, "align": "middle", "background": "rgba(255,255,255,0.9)"},
        "smooth": {"type": "cubicBezier", "forceDirection": "horizontal", "roundness": 0.4},
    },
    "nodes": {
        "font": {"size": NODE_FONT},
        "borderWidth": 1,
        "widthConstraint": {"maximum": 210},
        "margin": 6,
    },
    # Colours by group (pyvis drops a node's own colour when it has a group).
    "groups": {
        "cue": {"shape": "box", "color": _COLOURS["cue"]},
        "tag": {"shape": "ellipse", "color": _COLOURS["tag"]},
        "tag-pruned": {"shape": "ellipse", "color": _COLOURS[Fate.PRUNED]},
        **{
            f"content-{fate.value}": {
                "shape": "box",
                "color": _COLOURS[fate],
                "shapeProperties": {"borderDashes": fate is Fate.PRUNED},
            }
            for fate in Fate
        },
    },
}
# A content passage seeding brought in: its fate's fill, a thick dashed purple border.
_SEEDED_NODE = {
    "borderWidth": 3,
    "shapeProperties": {"borderDashes": [6, 3]},
}


def _levels(trace: Trace, paths: list[TracePath]) -> dict[str, int]:
    """Column of every node: cues 0, a tag its shortest hop, contents last."""
    level: dict[str, int] = {cue.id: 0 for cue in trace.reconstruction.cues}
    for path in paths:
        for i, tag in enumerate(path.nodes[1:-1], 1):
            level[tag] = min(level.get(tag, i), i)
    for _seed, own, mentioned, _content in trace.bridges:
        level[own] = min(level.get(own, 1), 1)
        level[mentioned] = min(level.get(mentioned, 2), 2)
    last = max((v for v in level.values()), default=0) + 1
    for path in paths:
        level[path.nodes[-1]] = last
    for content in trace.contents:
        level[content.id] = last
    for seed, *_ in trace.bridges:
        level[seed] = last
    return level


def _used(trace: Trace) -> set[str]:
    """Nodes drawn at first paint: entry cues and everything that reached the context."""
    used = {cue.id for cue in trace.reconstruction.cues}
    used |= {n for p in trace.used_paths for n in p.nodes}
    used |= {n for b in trace.used_bridges for n in b}
    return used | {c.id for c in trace.used_seeded}


def build_network(trace: Trace) -> Network:
    """The pyvis network of a trace: cues, tags, contents; every path's edges.

    Each node carries ``col`` and ``row`` (its place in the page's columns) and
    ``layer``: ``used`` for what reached the context, ``other`` for the rest
    (drawn when the page's checkbox asks for it).
    """
    # pyvis brings networkx, IPython and jinja2 (most of a second to import): it is
    # loaded when a page is drawn, not by every command that imports this module.
    from pyvis.network import Network

    net = Network(directed=True, cdn_resources="in_line")
    level, used = _levels(trace, trace.paths), _used(trace)
    _add_cues(net, trace)
    _add_tags(net, trace, level, used)
    _add_contents(net, trace, level, used)
    _add_edges(net, trace, used)
    _add_seeding(net, trace, used)
    net.options = _OPTIONS
    return net


def _add_cues(net: Network, trace: Trace) -> None:
    for i, cue in enumerate(trace.reconstruction.cues, 1):
        net.add_node(
            cue.id,
            label=trace.name(cue.id),
            group="cue",
            shape="box",
            col=0,
            row=i,
            layer="used",
            title=f"entry cue #{i}\ndense {cue.dense:.3f}, sparse {cue.sparse:.3f}, "
            f"fused {cue.fused:.4f}\nentry evidence {cue.score:.3f}",
        )


def _add_tags(net: Network, trace: Trace, level: dict[str, int], used: set[str]) -> None:
    """Every tag on a path or bridge, coloured by the best fate through it, strongest first."""
    tag_fate: dict[str, Fate] = {}
    best: dict[str, float] = {}
    for path in trace.paths:
        for tag in path.nodes[1:-1]:
            if tag not in tag_fate or FATE_ORDER[path.fate] < FATE_ORDER[tag_fate[tag]]:
                tag_fate[tag] = path.fate
            best[tag] = max(best.get(tag, 0.0), path.evidence)
    for bridge in trace.bridges:
        for tag in bridge[1:3]:
            tag_fate.setdefault(tag, Fate.KEPT if tag in used else Fate.CUT)
    order = sorted(tag_fate, key=lambda t: (-best.get(t, 0.0), trace.name(t), t))
    for row, tag in enumerate(order):
        fate = tag_fate[tag]
        net.add_node(
            tag,
            label=trace.name(tag),
            group="tag" if fate is not Fate.PRUNED else "tag-pruned",
            shape="ellipse",
            col=level[tag],
            row=row,
            layer="used" if tag in used else "other",
            title=f"tag (best path: {fate.value})",
        )


def _labels(trace: Trace) -> dict[str, str]:
    """Content labels: "rank. title", and for titles shared, the text's opening words."""
    titles = Counter(c.title for c in trace.contents)
    labels = {}
    for c in trace.contents:
        label = f"{c.rank}. {c.title}" if c.rank is not None else c.title
        if titles[c.title] > 1:
            words = " ".join(c.text.split())
            snippet = words if len(words) <= SNIPPET else words[:SNIPPET].rsplit(" ", 1)[0] + "…"
            label += f"\n“{snippet}”"
        if c.entry is not Entry.PATH:
            label += f"\n[{trace.entry_text(c)}]"
        labels[c.id] = label
    return labels


def _add_contents(net: Network, trace: Trace, level: dict[str, int], used: set[str]) -> None:
    """The trace's contents in final order, then any content only a path or bridge reaches."""
    labels = _labels(trace)
    for row, c in enumerate(trace.contents):
        net.add_node(
            c.id,
            label=labels[c.id],
            group=f"content-{c.fate.value}",
            shape="box",
            col=level[c.id],
            row=row,
            layer="used" if c.id in used else "other",
            title=f"{c.title}: {c.fate.value}. {c.reason}\nentered by {trace.entry_text(c)}\n"
            f"evidence {c.evidence:.3f}\n\n{c.text}",
            **(_SEEDED_NODE if c.entry is not Entry.PATH else {}),
        )
    # A path may end at a content the trace does not list (the floorless shadow walk
    # reaches contents the real traversal never returned): draw it with its path's fate.
    ends = [(p.nodes[-1], p.fate) for p in trace.paths] + [(b[0], Fate.KEPT) for b in trace.bridges]
    row = len(trace.contents)
    for end, fate in ends:
        if end not in net.node_ids:
            net.add_node(
                end,
                label=trace.name(end),
                group=f"content-{fate.value}",
                shape="box",
                col=level[end],
                row=row,
                layer="used" if end in used else "other",
                title=f"{trace.name(end)}: {fate.value} (reached only by this walk)",
            )
            row += 1


def _add_edges(net: Network, trace: Trace, used: set[str]) -> None:
    """One edge per step of any path: its best fate, strongest evidence and path count."""
    content = {c.id for c in trace.contents} | {b[0] for b in trace.bridges}
    edges: dict[tuple[str, str], tuple[Fate, float, int]] = {}
    for path in trace.paths:
        steps = zip(path.nodes, path.nodes[1:], trace.prefix_evidence(path), strict=False)
        for src, dst, value in steps:
            fate, best, count = edges.get((src, dst), (path.fate, 0.0, 0))
            fate = min(fate, path.fate, key=FATE_ORDER.__getitem__)
            edges[(src, dst)] = (fate, max(best, value), count + 1)
    for (src, dst), (fate, best, count) in sorted(edges.items()):
        kind = "REFERENCES" if dst in content else "LINKED_TO"
        net.add_edge(
            src,
            dst,
            label=f"{best:.2f}",
            title=f"{kind} weight {trace.weights.get((src, dst), 0.0):.3f}\n"
            f"evidence after this edge (strongest path) {best:.3f}\n"
            f"on {count} path(s); best fate: {fate.value}",
            color=_EDGE_COLOURS[fate],
            dashes=fate is Fate.PRUNED,
            width=1 + 4 * min(best, 1.0) if fate is Fate.KEPT else 1,
            layer="used" if fate is Fate.KEPT else "other",
        )


def _add_seeding(net: Network, trace: Trace, used: set[str]) -> None:
    """Bridge hops, and a "seeded" edge from each seed's title cue to its passage."""
    drawn = {(e["from"], e["to"]) for e in net.edges}
    for seed, own, mentioned, target in trace.bridges:
        layer = "used" if target in used else "other"
        steps = [(own, seed, "REFERENCES (the seed's own tag)"),
                 (own, mentioned, "LINKED_TO (the seed mentions it)"),
                 (mentioned, target, "REFERENCES (its primary passage)")]  # fmt: skip
        for src, dst, what in steps:
            if (src, dst) not in drawn:
                drawn.add((src, dst))
                net.add_edge(src, dst, color=_SEEDED, width=2, layer=layer,
                             title=f"bridge walk from the seed {trace.name(seed)!r}: {what}, "
                             f"weight {trace.weights.get((src, dst), 0.0):.3f}")  # fmt: skip
    seeds = {c.id for c in trace.contents if c.entry is Entry.SEEDED}
    seeds |= {b[0] for b in trace.bridges}
    cue_score = {c.id: c.score for c in trace.reconstruction.cues}
    for content, cue in sorted(trace.seeded_by.items()):
        if content in seeds and content in net.node_ids and cue in net.node_ids:
            net.add_edge(
                cue,
                content,
                label=f"seed {cue_score.get(cue, 0.0):.2f}",
                color=_SEEDED,
                dashes=True,
                layer="used" if content in used else "other",
                title="passage seeding: BM25 over title and text chose this passage; it "
                "entered at the cue of its title (the label: its entry evidence)",
            )


def render_html(trace: Trace) -> str:
    """The standalone page (vis-network inlined; no network access needed)."""
    net = build_network(trace)
    nodes, edges, _heading, _height, _width, options = net.get_network_data()
    rec = trace.reconstruction
    answer = "abstained" if rec.answer.abstained else f"answer: {rec.answer.text}"
    seeded = [c for c in trace.kept if c.entry is not Entry.PATH]
    summary = (
        f"{answer}. {len(rec.context.items)} contents handed to synthesis "
        f"({len(trace.used_paths)} cue paths; {len(seeded)} brought in by passage seeding "
        f"with no cue path); {trace.engine}, namespace {trace.ns!r}; {rec.latency_ms:.1f} ms."
    )
    legend = [
        ("entry cue", _COLOURS["cue"], ""),
        ("tag", _COLOURS["tag"], ""),
        ("content in context", _COLOURS[Fate.KEPT], ""),
        ("seeded / bridged, no cue path", _COLOURS[Fate.KEPT], _SEEDED),
        ("dropped by prompt strategy", _COLOURS[Fate.DROPPED], ""),
        ("cut by maxContent", _COLOURS[Fate.CUT], ""),
        ("pruned / not returned", _COLOURS[Fate.PRUNED], ""),
    ]
    rows = [
        (c.rank or "-", c.evidence_rank or "-", c.title, f"{c.evidence:.3f}", c.reason,
         trace.entry_text(c))
        for c in trace.contents
    ]  # fmt: skip
    others = sum(1 for n in nodes if n["layer"] == "other")
    template = _templates().get_template("html_view.html")
    return template.render(
        question=trace.question,
        summary=summary,
        legend=legend,
        rows=rows,
        nodes=nodes,
        edges=edges,
        options=options,
        others=others,
        min_label_px=MIN_LABEL_PX,
        node_font=NODE_FONT,
        edge_font=EDGE_FONT,
        row_gap=ROW_GAP,
    )


def _templates() -> jinja2.Environment:
    """This module's page template, beside pyvis' own (it inlines pyvis' vis-network)."""
    import jinja2
    import pyvis

    loader = jinja2.ChoiceLoader(
        [
            jinja2.FileSystemLoader(str(Path(__file__).resolve().parent)),
            jinja2.FileSystemLoader(str(Path(pyvis.__file__).resolve().parent / "templates")),
        ]
    )
    return jinja2.Environment(loader=loader, autoescape=False)


def write_html(trace: Trace, path: Path) -> int:
    """Write the page atomically, readable by its owner only (0600: it holds memory
    texts, as an export does); returns its size in bytes."""
    html = render_html(trace)
    write_text_atomic(path, html, mode=PRIVATE)
    return len(html.encode("utf-8"))
