#!/usr/bin/env bash
# kcat (librdkafka 2.0) against `troupe --serve`: produce to one partition and
# to every partition, read everything back from the beginning, then read it
# again as a member of a consumer group (JoinGroup, SyncGroup, OffsetFetch,
# Fetch, OffsetCommit through the Kafka listener).
set -euo pipefail
troupe="$1"
. "$(dirname "$0")/../lib/troupe_server.sh"
port=$(troupe_ports 3 "${KCAT_TEST_PORT:-}")
broker="127.0.0.1:$port"
dir=$(mktemp -d /tmp/troupe-kcat-XXXXXX)
cleanup() {
  status=$?
  troupe_stop
  [ "$status" -eq 0 ] || troupe_show_log
  rm -rf "$dir"
}
trap cleanup EXIT

troupe_start "$dir" "$troupe" --serve --http-port 0 --log-level info \
  --override "log.dirs=$dir/logs" --override port="$port" \
  --override group.initial.rebalance.delay.ms=0 \
  --override num.partitions=3 --override default.replication.factor=3
troupe_wait_ready "$port" $((port + 1)) $((port + 2))

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

# group_read FILE: one member of group grp reads to the end of every
# partition (-e), then leaves, committing its position. A kcat that cannot
# join or times out fails the test.
group_read() {
  local rc=0
  timeout 60 kcat -b "$broker" -G grp -X auto.offset.reset=earliest -e -q \
    demo >"$1" || rc=$?
  [ "$rc" -eq 0 ] || { echo "FAIL: group member exited with $rc"; exit 1; }
}

group_read "$dir/got_group"
check "consumer group grp reads every record" "$dir/sent" "$dir/got_group"

# The group committed its offsets: a new member starts where the first one
# stopped and gets exactly the records produced since.
seq 1 30 | sed 's/^/later-/' >"$dir/sent_later"
kcat -b "$broker" -P -t demo -X request.required.acks=all <"$dir/sent_later"
group_read "$dir/got_again"
check "consumer group grp resumes at its committed offsets" \
  "$dir/sent_later" "$dir/got_again"
