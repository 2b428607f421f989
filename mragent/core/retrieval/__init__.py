"""The reconstruction pipeline: cue search, traversal, rerank, synthesis."""
