"""Views of one reconstruction: ``mragent explain`` and the stored traces behind it.

:mod:`~mragent.apps.views.explain` builds the trace (what was found, how, and
what was dropped); it is shown on the terminal
(:mod:`~mragent.apps.views.explain_screen`), as JSON
(:mod:`~mragent.apps.views.explain_json`), as an offline HTML page
(:mod:`~mragent.apps.views.html_view`) and as Cypher for Neo4j Browser
(:mod:`~mragent.apps.views.browser_view`); :mod:`~mragent.apps.views.trace_store`
persists traces in the graph.
"""
