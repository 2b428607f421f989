"""mragent: reconstructive graph memory for LLM agents.

A memory is a Cue -> Tag -> Content graph in a real graph database; questions
are answered by hybrid cue search, a Cypher traversal, rerank and synthesis.
"""

__version__ = "0.1.0"
