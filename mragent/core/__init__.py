"""The core: genome, read view, queries, graph stores, embeddings, corpus, retrieval stages."""
