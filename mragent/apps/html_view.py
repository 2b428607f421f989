"""A standalone, offline HTML view of a trace, drawn by vis-network through pyvis.

pyvis builds and serialises the graph (nodes, edges, options); the page is
rendered from this module's small template, which inlines pyvis' bundled copy
of vis-network, so the file loads nothing from the network. Columns, left to
right: entry cues, tags by hop, contents. Paths that reached the context are
solid and green, paths to contents left out are grey, pruned paths dashed.
Edge labels carry the evidence after that edge (strongest path through it).

After vis-network draws, the page records what it drew in
``document.body.dataset`` (``renderedNodes``: labels and groups of the drawn
nodes; ``renderedEdges``; ``paintedPixels``), so a headless browser can check
the graph was rendered without reading the canvas.
"""

from __future__ import annotations

import os
from pathlib import Path

import jinja2
import pyvis
from pyvis.network import Network

from mragent.apps.explain import FATE_ORDER, Fate, Trace, TracePath

_VIS_DIR = Path(pyvis.__file__).resolve().parent / "templates"
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
    "layout": {
        "hierarchical": {
            "enabled": True,
            "direction": "LR",
            "sortMethod": "directed",
            "levelSeparation": 320,
            "nodeSpacing": 40,
            "treeSpacing": 60,
        }
    },
    "physics": {"enabled": False},
    "interaction": {"hover": True, "tooltipDelay": 120},
    "edges": {
        "arrows": {"to": {"enabled": True, "scaleFactor": 0.5}},
        "font": {"size": 11, "align": "middle"},
        "smooth": {"type": "cubicBezier", "forceDirection": "horizontal"},
    },
    "nodes": {"font": {"size": 14}, "borderWidth": 1},
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

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>mragent explain: {{ question|e }}</title>
<style>
body { font-family: sans-serif; margin: 1em; color: #222; }
#graph { width: 100%; height: {{ height }}; border: 1px solid #ddd; }
.legend span { display: inline-block; margin-right: 1.2em; }
.swatch { display: inline-block; width: 1em; height: 1em; vertical-align: middle;
          border: 1px solid #888; margin-right: .3em; }
table { border-collapse: collapse; margin-top: 1em; }
td, th { border: 1px solid #ddd; padding: .2em .5em; text-align: left; }
div.vis-tooltip { position: absolute; padding: 5px; white-space: pre-wrap; max-width: 420px;
                  background: #fffbe6; border: 1px solid #999; font-size: 13px; }
</style>
<script>{% include 'lib/vis-9.1.2/vis-network.min.js' %}</script>
</head>
<body>
<h2>{{ question|e }}</h2>
<p>{{ summary|e }}</p>
<p class="legend">{% for name, colour in legend %}<span><i class="swatch"
 style="background: {{ colour }}"></i>{{ name|e }}</span>{% endfor %}
<span>dashed: pruned path</span></p>
<div id="graph"></div>
<table><tr><th>rank</th><th>evidence rank</th><th>content</th><th>evidence</th>
<th>fate</th></tr>{% for row in rows %}<tr>{% for cell in row %}<td>{{ cell|e }}</td>
{% endfor %}</tr>{% endfor %}</table>
<script>
var nodes = new vis.DataSet({{ nodes|tojson }});
var edges = new vis.DataSet({{ edges|tojson }});
var container = document.getElementById("graph");
var network = new vis.Network(container, {nodes: nodes, edges: edges}, {{ options }});
network.on("afterDrawing", function (ctx) {
  var drawn = network.body.nodeIndices.map(function (id) {
    var node = network.body.nodes[id];
    return {label: node.options.label, group: node.options.group};
  });
  var canvas = ctx.canvas, data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  var painted = 0;
  for (var i = 3; i < data.length; i += 4) { if (data[i] > 0) { painted++; } }
  document.body.dataset.renderedNodes = JSON.stringify(drawn);
  document.body.dataset.renderedEdges = String(network.body.edgeIndices.length);
  document.body.dataset.paintedPixels = String(painted);
});
</script>
</body>
</html>
"""


def _levels(trace: Trace, paths: list[TracePath]) -> dict[str, int]:
    level: dict[str, int] = {}
    deepest = max((len(p.nodes) - 2 for p in paths), default=1)
    for path in paths:
        level[path.nodes[0]] = 0
        for i, tag in enumerate(path.nodes[1:-1], 1):
            level[tag] = min(level.get(tag, i), i)
        level[path.nodes[-1]] = deepest + 1
    for cue in trace.reconstruction.cues:
        level.setdefault(cue.id, 0)
    return level


def build_network(trace: Trace) -> Network:
    """The pyvis network of a trace: cues, tags, contents; every path's edges."""
    net = Network(height="800px", width="100%", directed=True, cdn_resources="in_line")
    level = _levels(trace, trace.paths)
    _add_cues(net, trace)
    _add_tags(net, trace, level)
    _add_contents(net, trace, level)
    _add_edges(net, trace)
    net.options = _OPTIONS
    return net


def _add_cues(net: Network, trace: Trace) -> None:
    for i, cue in enumerate(trace.reconstruction.cues, 1):
        net.add_node(
            cue.id,
            label=trace.name(cue.id),
            group="cue",
            shape="box",
            level=0,
            title=f"entry cue #{i}\ndense {cue.dense:.3f}, sparse {cue.sparse:.3f}, "
            f"fused {cue.fused:.4f}\nentry evidence {cue.score:.3f}",
        )


def _add_tags(net: Network, trace: Trace, level: dict[str, int]) -> None:
    """Every tag on a path, coloured by the best fate of the paths through it."""
    tag_fate: dict[str, Fate] = {}
    for path in trace.paths:
        for tag in path.nodes[1:-1]:
            if tag not in tag_fate or FATE_ORDER[path.fate] < FATE_ORDER[tag_fate[tag]]:
                tag_fate[tag] = path.fate
    for tag, fate in sorted(tag_fate.items()):
        net.add_node(
            tag,
            label=trace.name(tag),
            group="tag" if fate is not Fate.PRUNED else "tag-pruned",
            shape="ellipse",
            level=level[tag],
            title=f"tag (best path: {fate.value})",
        )


def _add_contents(net: Network, trace: Trace, level: dict[str, int]) -> None:
    """The trace's contents, then any content only a path reaches."""
    for c in trace.contents:
        prefix = f"{c.rank}. " if c.rank is not None else ""
        net.add_node(
            c.id,
            label=prefix + c.title,
            group=f"content-{c.fate.value}",
            shape="box",
            level=level.get(c.id, 1),
            title=f"{c.title}: {c.fate.value}. {c.reason}\nevidence {c.evidence:.3f}\n\n{c.text}",
        )
    # A path may end at a content the trace does not list (the floorless shadow walk
    # reaches contents the real traversal never returned): draw it with its path's fate.
    shown = set(net.get_nodes())
    for path in trace.paths:
        end = path.nodes[-1]
        if end not in shown:
            shown.add(end)
            net.add_node(
                end,
                label=trace.name(end),
                group=f"content-{path.fate.value}",
                shape="box",
                level=level.get(end, 1),
                title=f"{trace.name(end)}: {path.fate.value} (reached only by this walk)",
            )


def _add_edges(net: Network, trace: Trace) -> None:
    """One edge per step of any path: its best fate, strongest evidence and path count."""
    content = {c.id for c in trace.contents}
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
        )


def render_html(trace: Trace) -> str:
    """The standalone page (vis-network inlined; no network access needed)."""
    net = build_network(trace)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(_VIS_DIR)), autoescape=False)
    nodes, edges, _heading, height, _width, options = net.get_network_data()
    rec = trace.reconstruction
    answer = "abstained" if rec.answer.abstained else f"answer: {rec.answer.text}"
    summary = (
        f"{answer}. {len(trace.used_paths)} paths reached {len(rec.context.items)} contents "
        f"handed to synthesis; {trace.engine}, namespace {trace.ns!r}; "
        f"{rec.latency_ms:.1f} ms."
    )
    legend = [
        ("entry cue", _COLOURS["cue"]),
        ("tag", _COLOURS["tag"]),
        ("content in context", _COLOURS[Fate.KEPT]),
        ("dropped by prompt strategy", _COLOURS[Fate.DROPPED]),
        ("cut by maxContent", _COLOURS[Fate.CUT]),
        ("pruned / not returned", _COLOURS[Fate.PRUNED]),
    ]
    rows = [
        (c.rank or "-", c.evidence_rank or "-", c.title, f"{c.evidence:.3f}", c.reason)
        for c in trace.contents
    ]
    return env.from_string(_TEMPLATE).render(
        question=trace.question,
        summary=summary,
        legend=legend,
        rows=rows,
        nodes=nodes,
        edges=edges,
        options=options,
        height=height,
    )


def write_html(trace: Trace, path: Path) -> int:
    """Write the page atomically (temporary file, then rename); returns its size in bytes."""
    html = render_html(trace)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, path)
    return len(html.encode("utf-8"))
