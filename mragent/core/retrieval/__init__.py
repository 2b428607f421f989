"""The reconstruction pipeline: cue search, traversal, rerank, synthesis.

Part of the core layer: imports nothing above :mod:`mragent.core`.
"""
