#!/usr/bin/env bash
# Three kcat consumers (librdkafka 2.0) in one group against `troupe --serve`:
#  1. they split a 6-partition topic: records produced to every partition
#     once the group is stable reach exactly one consumer each, every
#     partition goes to exactly one consumer and each consumer gets some;
#  2. one is killed with SIGKILL: after its session times out the survivors
#     take its partitions over and receive what is produced after the kill;
#  3. the survivors stop (committing), a restarted member of the group
#     resumes from the committed offsets: it gets only newer records.
set -euo pipefail
troupe="$1"
. "$(dirname "$0")/../lib/troupe_server.sh"
port=$(troupe_ports 3 "${KCAT_GROUP_TEST_PORT:-}")
broker="127.0.0.1:$port"
topic=grouped
partitions=6
dir=$(mktemp -d /tmp/troupe-kcat-group-XXXXXX)
consumers=()
cleanup() {
  status=$?
  for c in "${consumers[@]}"; do kill -9 "$c" 2>/dev/null || true; done
  troupe_stop
  if [ "$status" -ne 0 ]; then
    for f in "$dir"/c*.err; do
      echo "--- $f (tail)"
      tail -n 15 "$f"
    done
    troupe_show_log
  fi
  rm -rf "$dir"
}
trap cleanup EXIT

troupe_start "$dir" "$troupe" --serve --http-port 0 --log-level info \
  --override "log.dirs=$dir/logs" --override port="$port" \
  --override group.initial.rebalance.delay.ms=0 \
  --override num.partitions=$partitions \
  --override default.replication.factor=3
troupe_wait_ready "$port" $((port + 1)) $((port + 2))

fail() {
  echo "FAIL: $*"
  exit 1
}

# produce PHASE COUNT: COUNT records "PHASE-p-i" to each partition p, acks=all.
produce() {
  : >"$dir/sent_$1"
  for p in $(seq 0 $((partitions - 1))); do
    seq 1 "$2" | sed "s/^/$1-$p-/" >"$dir/batch"
    kcat -b "$broker" -P -t $topic -p "$p" -X request.required.acks=all \
      <"$dir/batch"
    cat "$dir/batch" >>"$dir/sent_$1"
  done
  echo "produced $(wc -l <"$dir/sent_$1") records of phase $1"
}

# start_consumer N: a group member writing "partition value" lines to
# cN.out; setpriv: it dies with this script.
start_consumer() {
  setpriv --pdeathsig KILL -- kcat -b "$broker" -G grp \
    -X auto.offset.reset=earliest -X session.timeout.ms=6000 \
    -X heartbeat.interval.ms=500 -X auto.commit.interval.ms=500 \
    -u -f '%p %s\n' $topic \
    >"$dir/c$1.out" 2>"$dir/c$1.err" &
  consumers[$1]=$!
}

# received PHASE FILES...: the phase's records in FILES, one per line.
received() {
  local phase="$1"
  shift
  cat "$@" | awk -v ph="$phase-" 'index($2, ph) == 1 { print $2 }'
}

# await_all PHASE FILES...: waits (60 s at most) until FILES hold every
# record of PHASE.
await_all() {
  local phase="$1"
  shift
  for _ in $(seq 1 600); do
    if [ -z "$(comm -23 <(sort -u "$dir/sent_$phase") \
                        <(received "$phase" "$@" | sort -u))" ]; then
      return 0
    fi
    sleep 0.1
  done
  fail "phase $phase: records missing: $(comm -23 <(sort -u "$dir/sent_$phase") \
    <(received "$phase" "$@" | sort -u) | head -n 5 | tr '\n' ' ')"
}

# partitions_of PHASE FILE: the partitions FILE received PHASE records from.
partitions_of() {
  awk -v ph="$1-" 'index($2, ph) == 1 { print $1 }' "$2" | sort -un | tr '\n' ' '
}

# last_assignment N: kcat's report of consumer N's latest assignment.
last_assignment() {
  grep -E "rebalanced|assigned" "$dir/c$1.err" | tail -n 1 || true
}

produce a 20

# -- 1. three consumers split the partitions --------------------------------------

for i in 1 2 3; do start_consumer $i; done
await_all a "$dir"/c{1,2,3}.out
echo "ok: the group read every record of phase a"

# The group is stable once every member reports an assignment and the
# assignments cover every partition once; kcat prints each rebalance.
stable=0
for _ in $(seq 1 600); do
  owned=""
  for i in 1 2 3; do
    line=$(last_assignment $i)
    case "$line" in
      *assigned:*) owned="$owned $(echo "${line#*assigned:}" |
                     grep -oE '\[[0-9]+\]' | tr -d '[]' | tr '\n' ' ')" ;;
      *) owned="" && break ;;
    esac
  done
  if [ -n "$owned" ] && [ "$(echo $owned | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
       = "$(seq 0 $((partitions - 1)) | tr '\n' ' ')" ]; then
    stable=1
    break
  fi
  sleep 0.1
done
for i in 1 2 3; do echo "c$i: $(last_assignment $i)"; done
[ "$stable" = 1 ] || fail "kcat never reported every partition assigned once"
echo "ok: kcat reports every partition assigned to exactly one consumer"

produce b 10
await_all b "$dir"/c{1,2,3}.out
dups=$(received b "$dir"/c{1,2,3}.out | sort | uniq -d | wc -l)
[ "$dups" -eq 0 ] || fail "phase b: $dups records reached two consumers"
all_parts=""
for i in 1 2 3; do
  parts=$(partitions_of b "$dir/c$i.out")
  echo "c$i owns partitions: $parts"
  [ -n "$parts" ] || fail "c$i got no partition"
  all_parts="$all_parts $parts"
done
[ "$(echo $all_parts | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
  = "$(seq 0 $((partitions - 1)) | tr '\n' ' ')" ] ||
  fail "partitions not split exactly once: $all_parts"
echo "ok: each record of phase b reached exactly one consumer; every" \
  "partition went to exactly one consumer"

# -- 2. a killed consumer's partitions are taken over ------------------------------

victim_parts=$(partitions_of b "$dir/c3.out")
kill -9 "${consumers[3]}"
wait "${consumers[3]}" 2>/dev/null || true
unset 'consumers[3]'
echo "killed c3 (partitions $victim_parts)"
produce c 10
await_all c "$dir"/c{1,2}.out
for p in $victim_parts; do
  taker=""
  for i in 1 2; do
    if received c "$dir/c$i.out" | grep -q "^c-$p-"; then taker="$taker c$i"; fi
  done
  echo "partition $p taken over by:$taker"
done
echo "ok: the survivors received every record produced after the kill"
for i in 1 2; do echo "c$i: $(last_assignment $i)"; done

# -- 3. a restarted consumer resumes from the committed offsets ---------------------

# SIGTERM: kcat closes the consumer, which commits what it consumed.
for i in 1 2; do kill -TERM "${consumers[$i]}"; done
for i in 1 2; do wait "${consumers[$i]}" 2>/dev/null || true; done
consumers=()
produce d 5
rc=0
timeout 60 kcat -b "$broker" -G grp -X auto.offset.reset=earliest \
  -X session.timeout.ms=6000 -e -u -f '%p %s\n' $topic \
  >"$dir/c4.out" 2>"$dir/c4.err" || rc=$?
[ "$rc" -eq 0 ] || fail "the restarted consumer exited with $rc"
old=$(awk '{ print $2 }' "$dir/c4.out" | grep -cv '^d-' || true)
if [ "$old" -ne 0 ]; then
  awk '{ print $2 }' "$dir/c4.out" | grep -v '^d-' | head -n 5
  fail "the restarted consumer re-read $old committed records"
fi
if ! diff -q <(sort "$dir/sent_d") <(received d "$dir/c4.out" | sort) \
  >/dev/null; then
  diff <(sort "$dir/sent_d") <(received d "$dir/c4.out" | sort) | head
  fail "the restarted consumer did not get exactly the newer records"
fi
echo "ok: the restarted consumer resumed at the committed offsets" \
  "($(wc -l <"$dir/c4.out") new records, none committed before)"
