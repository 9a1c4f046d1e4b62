#!/usr/bin/env bash
# Fails when a process the test suite started is still running after it.
#
#   check_leftovers.sh baseline FILE     records the processes of the kinds
#                                        below that run now (before the suite)
#   check_leftovers.sh check FILE MARK   after the suite: names every process
#                                        still running that carries MARK in
#                                        its environment, or is of a kind
#                                        below and not in FILE; exits 1 if any
#
# scripts/test.sh runs ctest with TROUPE_TEST_RUN=MARK in its environment,
# which every process the suite starts inherits: those are certainly the
# suite's, and are killed (by pid) after being named, so that the next run
# starts clean. The kinds below catch a child that was given a clean
# environment; they are only named, never killed: they may be someone else's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

# Command lines of the processes a test starts.
kinds="^($root/build[^ ]*/[^ ]+"
kinds+="|[^ ]*java .*QuorumPeerMain /tmp/"
kinds+="|([^ ]*/)?kcat "
kinds+="|[^ ]*chrom(e|ium)[^ ]* .*--user-data-dir=/tmp/"
kinds+="|nginx: master process [^ ]*nginx -c /tmp/"
kinds+="|[^ ]*node .*/tests/kafka/platformatic/"
kinds+="|[^ ]*python3[^ ]* $root/tests/"
kinds+="|([^ ]*/)?(troupe|stress_harness|produce_tool|kafka_[a-z_]+) )"

# Every process but this script: "MARKED PID STARTTIME CMDLINE", MARKED
# being 1 when its environment holds TROUPE_TEST_RUN=$1. Builtins only: a
# scan of a few hundred processes stays well under a second.
processes() {
  local d pid line start marked
  local -a args env stat
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [ "$pid" != $$ ] || continue
    { mapfile -d '' args <"$d/cmdline" && read -r line <"$d/stat"; } \
      2>/dev/null || continue
    ((${#args[@]})) || continue # kernel threads and zombies
    # Field 22 of stat, the start time, tells a reused pid from the old one.
    read -ra stat <<<"${line##*) }"
    start=${stat[19]}
    marked=0
    if [ -n "${1:-}" ] && { mapfile -d '' env <"$d/environ"; } 2>/dev/null \
      && [[ " ${env[*]} " == *" TROUPE_TEST_RUN=$1 "* ]]; then
      marked=1
    fi
    echo "$marked $pid $start ${args[*]}"
  done
}

of_the_kinds() {
  processes | while read -r _ pid start cmd; do
    if [[ "$cmd " =~ $kinds ]]; then echo "$pid $start $cmd"; fi
  done
}

# The suite's processes still running: marked ones, and new ones of a kind.
leftovers() {
  local mark=$1 baseline=$2
  processes "$mark" | while read -r marked pid start cmd; do
    if [ "$marked" = 1 ]; then
      echo "marked $pid $start $cmd"
    elif [[ "$cmd " =~ $kinds ]] && ! grep -q "^$pid $start " "$baseline"; then
      echo "new $pid $start $cmd"
    fi
  done
}

case ${1:-} in
  baseline)
    of_the_kinds >"${2:?baseline needs a file}"
    ;;
  check)
    baseline=${2:?check needs the baseline file}
    mark=${3:?check needs the mark of the run}
    # A child killed by PR_SET_PDEATHSIG or a JVM shutting down takes a
    # moment to go: wait up to 10 s before naming anything.
    deadline=$((SECONDS + 10))
    while found=$(leftovers "$mark" "$baseline") && [ -n "$found" ] \
      && [ "$SECONDS" -lt "$deadline" ]; do
      sleep 0.5
    done
    [ -n "$found" ] || exit 0
    echo "check_leftovers: the test suite left these processes running:"
    echo "$found" | while read -r how pid start cmd; do
      echo "  pid $pid: ${cmd:0:200}"
      if [ "$how" = marked ]; then kill -KILL "$pid" 2>/dev/null || true; fi
    done
    exit 1
    ;;
  *)
    sed -n '2,16p' "$0" >&2
    exit 2
    ;;
esac
