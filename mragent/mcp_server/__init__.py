"""The MCP server: the facade's agent tools on the official ``mcp`` SDK.

``mragent mcp --transport stdio|http`` (:func:`~mragent.mcp_server.server.serve`).
The tools are declared in :mod:`mragent.mcp_server.catalog` (remember, recall,
correct, forget, history, explain; no review, trust or purge tool). Needs the
``mcp`` extra (``pip install 'mragent[mcp]'``).

May import every layer up to the facade; only the command line imports it.
"""
