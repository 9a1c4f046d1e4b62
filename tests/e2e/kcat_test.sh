#!/usr/bin/env bash
# kcat (librdkafka 2.0) against `troupe --serve`: produce to one partition and
# to every partition, read everything back from the beginning, then read it
# again as a member of a consumer group (JoinGroup, SyncGroup, OffsetFetch,
# Fetch, OffsetCommit through the Kafka listener).
set -euo pipefail
troupe="$1"
port="${KCAT_TEST_PORT:-19092}"
broker="127.0.0.1:$port"
dir=$(mktemp -d /tmp/troupe-kcat-XXXXXX)

"$troupe" --serve --log-level info \
  --override "log.dirs=$dir/logs" --override port="$port" \
  --override group.initial.rebalance.delay.ms=0 \
  --override num.partitions=3 --override default.replication.factor=3 \
  >"$dir/server.log" 2>&1 &
pid=$!
cleanup() {
  status=$?
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then
    echo "--- server log (tail)"
    tail -n 40 "$dir/server.log"
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done

check() { # name expected actual
  if diff -q <(sort "$2") <(sort "$3") >/dev/null; then
    echo "ok: $1 ($(wc -l <"$3") records)"
  else
    echo "FAIL: $1"
    diff <(sort "$2") <(sort "$3") | head -n 20
    exit 1
  fi
}

seq 1 100 | sed 's/^/p0-/' >"$dir/sent0"
kcat -b "$broker" -P -t demo -p 0 -X request.required.acks=all <"$dir/sent0"
echo "produced $(wc -l <"$dir/sent0") records to demo/0"
timeout 30 kcat -b "$broker" -C -t demo -p 0 -o beginning -e -q >"$dir/got0"
check "demo/0 from the beginning" "$dir/sent0" "$dir/got0"

seq 1 300 | sed 's/^/any-/' >"$dir/sent_any"
kcat -b "$broker" -P -t demo -X request.required.acks=1 <"$dir/sent_any"
echo "produced $(wc -l <"$dir/sent_any") records to demo (every partition)"
cat "$dir/sent0" "$dir/sent_any" >"$dir/sent"
timeout 30 kcat -b "$broker" -C -t demo -o beginning -e -q >"$dir/got"
check "demo, every partition, from the beginning" "$dir/sent" "$dir/got"

timeout 60 kcat -b "$broker" -G grp -X auto.offset.reset=earliest -e -q \
  demo >"$dir/got_group" || true
check "consumer group grp reads every record" "$dir/sent" "$dir/got_group"

# The group committed its offsets: a new member starts at the end.
timeout 60 kcat -b "$broker" -G grp -X auto.offset.reset=earliest -e -q \
  demo >"$dir/got_again" || true
check "consumer group grp resumes at its committed offsets" /dev/null \
  "$dir/got_again"
