#!/usr/bin/env bash
# Run the whole test suite against real databases: the embedded FalkorDB (started
# by the tests themselves) and a local Neo4j 5.26 started from Maven jars.
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# A fresh machine may lack the Java the Neo4j server runs on and the headless
# browser two tests drive: install them from Debian's packages when apt-get can.
missing=()
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
command -v chromium >/dev/null || missing+=(chromium)
if [ "${#missing[@]}" -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi

bash scripts/neo4j-local.sh start
trap 'bash scripts/neo4j-local.sh stop >/dev/null 2>&1 || true' EXIT

export MRAGENT_TEST_NEO4J_URL="${MRAGENT_TEST_NEO4J_URL:-bolt://127.0.0.1:7687}"
export MRAGENT_DB_PASSWORD="${MRAGENT_DB_PASSWORD:-mragent-dev}"
export MRAGENT_REQUIRE_BACKENDS="${MRAGENT_REQUIRE_BACKENDS:-falkordb,neo4j,chromium}"

ruff check .
mypy mragent
python3 -m pytest -q -rs "$@"
