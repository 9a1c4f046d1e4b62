#!/usr/bin/env bash
# Broker CPU per consumed MB, one consumer of 1,000 partitions
# (@platformatic/kafka, which uses fetch sessions when the broker opens
# them), against `troupe --serve` with fetch sessions (KIP-227) on
# (max.incremental.fetch.session.cache.slots=1000, Kafka's default) and off
# (0: every fetch full). Alternates the two RUNS times; prints a table.
#
#   bench/fetch_sessions/run.sh [TROUPE=build/troupe] [RUNS=2] [PARTITIONS=1000] [SECONDS=20]
set -euo pipefail
cd "$(dirname "$0")/../.."
troupe="${1:-build/troupe}"
runs="${2:-2}"
partitions="${3:-1000}"
seconds="${4:-20}"
rows=()
for run in $(seq 1 "$runs"); do
  for slots in 1000 0; do
    dir=$(mktemp -d /tmp/troupe-fsb-XXXXXX)
    port=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, "tests/lib"); from ports import free_port_range; print(free_port_range(4))')
    "$troupe" --serve --log-level warn --override port="$port" \
      --override "log.dirs=$dir/logs" --override group.initial.rebalance.delay.ms=0 \
      --override max.incremental.fetch.session.cache.slots="$slots" >"$dir/troupe.log" 2>&1 &
    pid=$!
    trap 'kill $pid 2>/dev/null || true; rm -rf "$dir"' EXIT
    for _ in $(seq 1 100); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
      sleep 0.1
    done
    out=$(timeout 180 node bench/fetch_sessions/consume.mjs "127.0.0.1:$port" "$pid" "$partitions" "$seconds")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    rm -rf "$dir"; trap - EXIT
    mb=$(awk '$2=="mb"{print $3}' <<<"$out")
    cpu=$(awk '$2=="cpu_s"{print $3}' <<<"$out")
    per=$(awk '$2=="cpu_ms_per_mb"{print $3}' <<<"$out")
    rows+=("| $run | $([ "$slots" = 0 ] && echo off || echo on) | $mb | $cpu | $per |")
  done
done
echo "| run | fetch sessions | MB consumed | broker CPU (s) | broker CPU ms per MB |"
echo "|---|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
