"""Neo4j 5.26+ (Bolt): ``neo4j://``, ``neo4j+s://``, or a ``bolt://`` server of no other engine."""

from __future__ import annotations

from mragent.core.engines import Engine

ENGINE = Engine(
    name="neo4j",
    wire="bolt",
    schemes={"neo4j": "neo4j", "neo4j+s": "neo4j+s"},
    default_port=7687,
    # db.index.vector.queryNodes scores cosine as (1 + cos) / 2.
    vector_score="cosine01",
    transactions=True,
    agent=None,  # what a Bolt server is when it does not say it is another engine
    databases=True,
    # The version as the database reports it; the Bolt agent's is the fallback.
    version_query="CALL dbms.components() YIELD versions RETURN versions[0] AS v",
)
