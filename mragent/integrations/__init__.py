"""Framework integrations over the facade: each in its own module, each behind an extra.

* :mod:`mragent.integrations.langgraph`: a LangGraph ``BaseStore``
  (``pip install 'mragent[langgraph]'``).
* :mod:`mragent.integrations.langchain`: a LangChain ``BaseRetriever``
  (``pip install 'mragent[langchain]'``).
* :mod:`mragent.integrations.hooks` and :mod:`mragent.integrations.hook_server`:
  coding-agent hooks and their resident server (no extra).

They sit on the layer above :mod:`mragent.facade` and reach the memory only
through a :class:`~mragent.facade.session.MemorySession`, so the trust rules
(review of agents' writes, forgetting, scopes) hold for them exactly as for the
facade and the MCP server. Importing this package imports neither framework.
"""
