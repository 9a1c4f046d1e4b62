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
  # setpriv: the writer dies with this script, a ctest timeout included.
  setpriv --pdeathsig KILL -- "$tool" write --log-dirs "$dir/logs" \
    >>"$dir/acked" 2>"$dir/write.err" &
  pid=$!
  # Let it write for a while, then kill it mid-write.
  for _ in $(seq 1 100); do
    if [ "$(wc -l <"$dir/acked")" -gt $((before + 500)) ]; then break; fi
    sleep 0.1
  done
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
  after=$(wc -l <"$dir/acked")
  echo "round $round: $after records acknowledged so far"
  # A writer that acknowledged nothing would make the check below vacuous.
  if [ "$after" -le $((before + 500)) ]; then
    echo "FAIL: round $round acknowledged only $((after - before)) records"
    cat "$dir/write.err"
    exit 1
  fi
done
"$tool" verify --log-dirs "$dir/logs" --acked "$dir/acked"
