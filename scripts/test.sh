#!/usr/bin/env bash
# Run the whole test suite against real databases: the embedded FalkorDB (started
# by the tests themselves) and a local Neo4j 5.26 started from Maven jars.
# Usage: bash scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Said before anything runs, so a fresh machine learns what it needs up front.
echo "scripts/test.sh needs, besides Python: Java 17 and (for its first start) Maven for" \
  "the local Neo4j, Chromium for the HTML view's browser tests, jq for the README's" \
  "shell example; as root with apt-get it installs the missing ones, else it stops naming them."
# Debian's package names, installed only when the command is missing.
missing=()
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
if [ ! -f "${NEO4J_LOCAL_HOME:-.mragent/neo4j}/lib/.installed" ]; then
  command -v mvn >/dev/null || missing+=(maven)
fi
command -v chromium >/dev/null || missing+=(chromium)
command -v jq >/dev/null || missing+=(jq)
if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "missing: ${missing[*]} (Debian's names): install them, then run this again" >&2
    exit 1
  fi
fi

bash scripts/neo4j-local.sh start
trap 'bash scripts/neo4j-local.sh stop >/dev/null 2>&1 || true' EXIT

export MRAGENT_TEST_NEO4J_URL="${MRAGENT_TEST_NEO4J_URL:-bolt://127.0.0.1:7687}"
export MRAGENT_DB_PASSWORD="${MRAGENT_DB_PASSWORD:-mragent-dev}"
export MRAGENT_REQUIRE_BACKENDS="${MRAGENT_REQUIRE_BACKENDS:-falkordb,neo4j,chromium}"

ruff check .
mypy mragent
python3 -m pytest -q -rs "$@"
