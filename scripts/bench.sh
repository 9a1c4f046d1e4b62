#!/usr/bin/env bash
# The benchmark suite: builds, then runs the stress harness
#  1. every scenario on 10,000 members in one group (range, then
#     cooperative-sticky for churn),
#  2. the heartbeat ceiling (10,000 members heartbeating every 5 ms),
#     and the coordinator's own memory per member (100,000 raw members),
#  3. cold start for one group of 1,000 .. 100,000 members, with each
#     group protocol (classic, and consumer: KIP-848),
# writes JSON to bench/results/ and draws bench/rebalance_vs_group_size.svg.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh >/dev/null
out=bench/results
mkdir -p "$out"
h=./build/stress_harness

$h --members 10000 --groups 1 --json "$out/scenarios_range.json" \
   --steady-seconds 10 --commit-seconds 5 --session-timeout-ms 10000
$h --members 10000 --groups 1 --assignor cooperative-sticky \
   --json "$out/scenarios_cooperative.json" -s churn
$h --members 10000 --groups 10 --heartbeat-interval-ms 5 -s steady \
   --steady-seconds 10 --json "$out/heartbeat_ceiling.json"
$h --coordinator-memory 100000 | tee "$out/coordinator_memory.txt"
sizes=(1000 2000 5000 10000 20000 50000 100000)
files=()
for n in "${sizes[@]}"; do
  $h --members "$n" --groups 1 -s none --json "$out/cold_$n.json"
  $h --members "$n" --groups 1 -s none --group-protocol consumer \
     --json "$out/cold_consumer_$n.json"
  files+=("$out/cold_$n.json" "$out/cold_consumer_$n.json")
done
python3 scripts/plot_stress.py bench/rebalance_vs_group_size.svg "${files[@]}"
echo "wrote $out/*.json and bench/rebalance_vs_group_size.svg"
