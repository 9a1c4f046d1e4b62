#!/usr/bin/env bash
# kill -9 during acks=all writes: every acknowledged record survives the
# restart, in order, and recovery cuts whatever batch was half-written.
set -euo pipefail
tool="$1"
dir=$(mktemp -d /tmp/troupe-crash-XXXXXX)
trap 'rm -rf "$dir"' EXIT
touch "$dir/acked"
for round in 1 2 3; do
  before=$(wc -l <"$dir/acked")
  "$tool" write --log-dirs "$dir/logs" >>"$dir/acked" 2>"$dir/write.err" &
  pid=$!
  # Let it write for a while, then kill it mid-write.
  for _ in $(seq 1 100); do
    if [ "$(wc -l <"$dir/acked")" -gt $((before + 500)) ]; then break; fi
    sleep 0.1
  done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  echo "round $round: $(wc -l <"$dir/acked") records acknowledged so far"
done
"$tool" verify --log-dirs "$dir/logs" --acked "$dir/acked"
