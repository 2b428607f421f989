#!/usr/bin/env bash
# The scheduled evolution job, runnable locally with one command:
#   bash scripts/evolve-job.sh [evolution/<name>.toml] [output folder]
# Runs the test suite (scripts/test.sh), `mragent bench` on the reference corpus
# and one experiment from evolution/ (default: the reference one), and keeps the
# bench report and the experiment's reports in the output folder (default:
# evolve-job/), which the workflow uploads as an artifact.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

experiment="${1:-evolution/reference.toml}"
out="${2:-evolve-job}"
[ -f "$experiment" ] || { echo "evolve-job: no experiment file $experiment" >&2; exit 2; }
mkdir -p "$out"

echo "== tests"
bash scripts/test.sh
echo "== bench (reference corpus, default genome)"
mragent bench --out "$out/bench.json"
echo "== experiment $experiment"
status=0
mragent evolve --experiment "$experiment" --out "$out/$(basename "$experiment" .toml)" || status=$?
# 3 means the gate kept the baseline: a result, not a failure of the job.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  exit "$status"
fi
echo "evolve-job: reports in $out/"
