#!/usr/bin/env bash
# kcat (librdkafka 2.0) forced onto a Kafka 0.9 broker's protocol against
# `troupe serve`:
#   -X api.version.request=false -X broker.version.fallback=VERSION
# With 0.9.0 librdkafka sends no ApiVersions and uses its fixed table for a
# 0.9 broker: Produce v1 (magic 0 message sets), Fetch v1 (magic 0),
# ListOffsets v0, Metadata v0, FindCoordinator v0, JoinGroup v0,
# SyncGroup/Heartbeat/LeaveGroup v0, OffsetCommit v2, OffsetFetch v1.
# With 0.10.0 librdkafka turns api.version.request back on (its
# documented rule: a fallback of 0.10 or later "enables ApiVersionRequests";
# rd_kafka_get_legacy_ApiVersions has no table past 0.9.0) and negotiates
# the current versions: the same checks then run on the versions
# ApiVersions offers, with magic 2 on the wire (the magic 1 path is
# sarama's at 0.10.2 and kafka-python's at 0.10.1).
#
#   kcat_old_protocol_test.sh TROUPE VERSION
#
# For VERSION, on a 3-partition topic:
#  1. the old protocol produces keyed records (acks=all) uncompressed and
#     with gzip, snappy and lz4 (wrapper messages); the old protocol reads
#     every partition back: offsets 0, 1, ... in produce order, the same
#     keys and values; timestamps: none (-1) in magic 0, the producer's
#     create time otherwise;
#  2. a current client (kcat with ApiVersions) reads the same records with
#     the same offsets, keys and values (0.10.0: and timestamps);
#  3. records a current client produced (RecordBatch v2) are read by the
#     old protocol with their offsets, keys and values (0.9.0: down-converted
#     to magic 0; 0.10.0: and timestamps);
#  4. a consumer group on the old protocol (-G) reads everything, commits
#     on close, and a second run of the group gets only newer records.
set -euo pipefail
troupe="$1"
fallback="$2"
# magic: the message format the consumer on the old settings reads (the
# timestamps it can see).
case "$fallback" in
  0.9.0) magic=0 ;;
  0.10.0) magic=2 ;;
  *) echo "usage: $0 TROUPE 0.9.0|0.10.0" >&2; exit 2 ;;
esac
. "$(dirname "$0")/../lib/troupe_server.sh"
port=$(troupe_ports 3)
broker="127.0.0.1:$port"
topic="old-protocol-${fallback//./-}"
partitions=3
dir=$(mktemp -d /tmp/troupe-kcat-old-XXXXXX)
cleanup() {
  status=$?
  troupe_stop
  if [ "$status" -ne 0 ]; then
    for f in "$dir"/*.err; do
      [ -s "$f" ] || continue
      echo "--- $f (tail)"
      tail -n 15 "$f"
    done
    troupe_show_log
    echo "--- requests troupe refused (count)"
    grep -E "cannot serve" "$troupe_log" | sed 's/^.*cannot serve/cannot serve/' |
      sort | uniq -c | head || true
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*"
  exit 1
}

troupe_start "$dir" "$troupe" serve --http-port 0 --log-level info \
  --override "log.dirs=$dir/logs" --override port="$port" \
  --override group.initial.rebalance.delay.ms=0
troupe_wait_ready "$port" $((port + 1)) $((port + 2))

# The topic, created with the current protocol (not what is checked here).
/usr/bin/python3 - "$broker" "$topic" "$partitions" <<'EOF'
import sys
from confluent_kafka.admin import AdminClient, NewTopic
broker, topic, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
admin = AdminClient({"bootstrap.servers": broker})
admin.create_topics([NewTopic(topic, n, 3)])[topic].result(20)
EOF

old=(-X api.version.request=false -X "broker.version.fallback=$fallback")
n=0 # kcat runs, for unique file names

# kc NAME ARGS...: kcat ARGS (20 s at most), stderr to NAME.err.
kc() {
  local name=$1
  shift
  n=$((n + 1))
  timeout 20 kcat -b "$broker" "$@" 2>"$dir/$n-$name.err" ||
    fail "kcat $name exited with $? ($(tail -n 3 "$dir/$n-$name.err" | tr '\n' ' '))"
}

# read_partition PROTO P: 'offset|key|value|timestamp' lines of partition P.
read_partition() {
  local proto=$1 p=$2
  if [ "$proto" = old ]; then
    kc "read-old-p$p" "${old[@]}" -C -t "$topic" -p "$p" -o beginning -e \
      -f '%o|%k|%s|%T\n'
  else
    kc "read-new-p$p" -C -t "$topic" -p "$p" -o beginning -e \
      -f '%o|%k|%s|%T\n'
  fi
}

start_ms=$(($(date +%s%3N) - 1000))

# -- 1. old protocol produces, old protocol reads ------------------------------------

for p in $(seq 0 $((partitions - 1))); do
  : >"$dir/expect_$p"
done
for codec in none gzip snappy lz4; do
  for p in $(seq 0 $((partitions - 1))); do
    seq 1 10 | sed "s/.*/k-$codec-$p-&:v-$codec-$p-&/" >"$dir/batch"
    kc "produce-$codec-p$p" "${old[@]}" -P -t "$topic" -p "$p" -K : \
      -z "$codec" -X request.required.acks=all <"$dir/batch"
    tr ':' '|' <"$dir/batch" >>"$dir/expect_$p"
  done
done
end_ms=$(($(date +%s%3N) + 1000))
echo "ok: acks=all: kcat on the $fallback protocol produced 40 records to" \
  "each of $partitions partitions (none, gzip, snappy, lz4)"

# check_read PROTO P WHAT: PROTO's read of partition P is exactly
# expect_P with offsets 0.. in order; the timestamps go to ts_PROTO_P.
check_read() {
  local proto=$1 p=$2 what=$3
  read_partition "$proto" "$p" >"$dir/got_${proto}_$p"
  awk -F'|' '{ print $1 }' "$dir/got_${proto}_$p" >"$dir/offsets"
  if ! diff -q <(seq 0 $(($(wc -l <"$dir/expect_$p") - 1))) "$dir/offsets" \
    >/dev/null; then
    echo "offsets read: $(head -c 300 "$dir/offsets" | tr '\n' ' ')"
    fail "$what: partition $p: offsets are not 0..$(($(wc -l <"$dir/expect_$p") - 1))" \
      "in order ($(wc -l <"$dir/offsets") records read)"
  fi
  if ! diff -q "$dir/expect_$p" <(awk -F'|' '{ print $2 "|" $3 }' \
    "$dir/got_${proto}_$p") >/dev/null; then
    diff "$dir/expect_$p" <(awk -F'|' '{ print $2 "|" $3 }' \
      "$dir/got_${proto}_$p") | head -n 6
    fail "$what: partition $p: keys or values differ"
  fi
  awk -F'|' '{ print $4 }' "$dir/got_${proto}_$p" >"$dir/ts_${proto}_$p"
}

# check_create_times FILE WHAT: every timestamp in FILE is a create time of
# this test's producers.
check_create_times() {
  local bad
  bad=$(awk -v lo="$start_ms" -v hi="$end_ms" '$1 < lo || $1 > hi' "$1" |
    head -n 3 | tr '\n' ' ')
  [ -z "$bad" ] || fail "$2: timestamps $bad are not the producer's create" \
    "times ($start_ms..$end_ms)"
}

for p in $(seq 0 $((partitions - 1))); do
  check_read old "$p" "the $fallback protocol reading its own records"
  if [ "$magic" = 0 ]; then
    # Magic 0 carries no timestamp: librdkafka 2.0 reports it as 0
    # (rdkafka_msgset_reader.c, against Kafka too), other clients as -1.
    bad=$(grep -vxE -- '-1|0' "$dir/ts_old_$p" | head -n 3 | tr '\n' ' ' || true)
    [ -z "$bad" ] || fail "partition $p: Fetch v1 (magic 0) gave timestamps" \
      "$bad, magic 0 has none (-1)"
  else
    check_create_times "$dir/ts_old_$p" "partition $p, magic $magic"
  fi
done
echo "ok: the $fallback protocol read every partition back with offsets" \
  "0..39, the same keys and values, timestamps of magic $magic" \
  "($([ "$magic" = 0 ] && echo none || echo 'the create times'))"

# -- 2. a current client reads the same records ---------------------------------------

for p in $(seq 0 $((partitions - 1))); do
  check_read new "$p" "a current client reading the $fallback records"
  if [ "$magic" != 0 ] && ! diff -q "$dir/ts_old_$p" "$dir/ts_new_$p" \
    >/dev/null; then
    diff "$dir/ts_old_$p" "$dir/ts_new_$p" | head -n 4
    fail "partition $p: the current client's timestamps differ from the old settings'"
  fi
  # Kafka converts magic 0 up keeping its missing timestamp (-1, CreateTime).
  if [ "$magic" = 0 ]; then
    bad=$(grep -vx -- -1 "$dir/ts_new_$p" | head -n 3 | tr '\n' ' ' || true)
    [ -z "$bad" ] || fail "partition $p: magic 0 records have no timestamp," \
      "a current client read $bad"
  fi
done
echo "ok: a current client reads the same offsets, keys and values" \
  "$([ "$magic" != 0 ] && echo 'and timestamps' || echo 'and no timestamps (-1)')"

# -- 3. records of a current producer, read by the old protocol -------------------------

for p in $(seq 0 $((partitions - 1))); do
  seq 1 5 | sed "s/.*/k-v2-$p-&:v-v2-$p-&/" >"$dir/batch"
  kc "produce-v2-p$p" -P -t "$topic" -p "$p" -K : -X request.required.acks=all \
    <"$dir/batch"
  tr ':' '|' <"$dir/batch" >>"$dir/expect_$p"
done
for p in $(seq 0 $((partitions - 1))); do
  check_read new "$p" "a current client reading RecordBatch v2 records"
  check_read old "$p" "the $fallback protocol reading RecordBatch v2 records"
  if [ "$magic" = 0 ]; then
    # Magic 0 carries no timestamp: librdkafka 2.0 reports it as 0
    # (rdkafka_msgset_reader.c, against Kafka too), other clients as -1.
    bad=$(grep -vxE -- '-1|0' "$dir/ts_old_$p" | head -n 3 | tr '\n' ' ' || true)
    [ -z "$bad" ] || fail "partition $p: down-converted to magic 0, records" \
      "have no timestamp, Fetch v1 gave $bad"
  else
    if ! diff -q "$dir/ts_new_$p" "$dir/ts_old_$p" >/dev/null; then
      diff "$dir/ts_new_$p" "$dir/ts_old_$p" | head -n 4
      fail "partition $p: the old settings' timestamps differ from the log's"
    fi
  fi
done
echo "ok: records produced as RecordBatch v2 are read by the $fallback" \
  "protocol (magic $magic) with their offsets 40..44, keys and values" \
  "$([ "$magic" != 0 ] && echo 'and timestamps')"

# -- 4. a consumer group on the old protocol ---------------------------------------------

group="old-$fallback-group"
total=$(cat "$dir"/expect_* | wc -l)
kc group-1 "${old[@]}" -G "$group" -X auto.offset.reset=earliest \
  -X session.timeout.ms=6000 -e -f '%p|%o|%k|%s\n' "$topic" >"$dir/group1"
[ "$(wc -l <"$dir/group1")" -eq "$total" ] ||
  fail "the group's first run read $(wc -l <"$dir/group1") records, expected $total"
[ -z "$(awk -F'|' '{ print $1 "|" $2 }' "$dir/group1" | sort | uniq -d)" ] ||
  fail "the group's first run read records twice"
echo "ok: a consumer group on the $fallback protocol read all $total records"
: >"$dir/new"
for p in $(seq 0 $((partitions - 1))); do
  seq 1 2 | sed "s/.*/k-late-$p-&:v-late-$p-&/" >"$dir/batch"
  kc "produce-late-p$p" "${old[@]}" -P -t "$topic" -p "$p" -K : \
    -X request.required.acks=all <"$dir/batch"
  sed "s/^/$p|/" "$dir/batch" | tr ':' '|' >>"$dir/new"
done
kc group-2 "${old[@]}" -G "$group" -X auto.offset.reset=earliest \
  -X session.timeout.ms=6000 -e -f '%p|%k|%s\n' "$topic" >"$dir/group2"
if ! diff -q <(sort "$dir/new") <(sort "$dir/group2") >/dev/null; then
  echo "second run read $(wc -l <"$dir/group2") records:"
  head -n 5 "$dir/group2"
  fail "the group's second run did not resume at the committed offsets" \
    "(expected exactly the $(wc -l <"$dir/new") newer records)"
fi
echo "ok: the group committed on the $fallback protocol and its second run" \
  "resumed there: only the $(wc -l <"$dir/new") newer records"
