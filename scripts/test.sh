#!/usr/bin/env bash
# Builds troupe and runs every test under ctest, then fails if any process
# the suite started is still running (scripts/check_leftovers.sh) or if the
# suite changed the default log.dirs (scripts/check_default_logdir.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
# What ran before the suite is not the suite's.
baseline=$(mktemp /tmp/troupe-test-baseline-XXXXXX)
logdir=$(mktemp /tmp/troupe-test-logdir-XXXXXX)
trap 'rm -f "$baseline" "$logdir"' EXIT
./scripts/check_leftovers.sh baseline "$baseline"
# No test writes to the default log.dirs (a user's data).
./scripts/check_default_logdir.sh baseline "$logdir"
mark="$$-$(date +%s%N)"
rc=0
# The unit tests (label unit: the domain, gateway and actor tests, each a
# process without sockets or timers of its own) run on every core; the
# rest, many of them timed against real processes, one at a time.
(cd build && TROUPE_TEST_RUN="$mark" ctest --output-on-failure --timeout 600 \
  -L unit -j "$(nproc)" "$@") || rc=$?
(cd build && TROUPE_TEST_RUN="$mark" ctest --output-on-failure --timeout 600 \
  -LE unit "$@") || rc=$?
./scripts/check_leftovers.sh check "$baseline" "$mark" || { [ "$rc" -ne 0 ] || rc=1; }
./scripts/check_default_logdir.sh check "$logdir" || { [ "$rc" -ne 0 ] || rc=1; }
exit "$rc"
