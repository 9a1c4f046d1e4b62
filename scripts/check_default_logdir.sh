#!/usr/bin/env bash
# Fails when the test suite changed troupe's default data directory, the
# log.dirs a user's `troupe serve` keeps its topics and committed offsets in
# (/tmp/troupe-logs, Kafka's /tmp/kafka-logs). Every test and the demo use
# directories of their own; a test that forgot to would leave its topics and
# groups in the user's next `troupe serve`, or delete the user's.
#
#   check_default_logdir.sh baseline FILE   records what the directory holds
#                                           now: each entry's path, type,
#                                           size and modification time
#   check_default_logdir.sh check FILE      after the suite: exits 1, naming
#                                           what changed, if anything did
#
# scripts/test.sh runs it around ctest. A `troupe serve` of the user's own
# running during the suite would change the directory too: the message says
# so rather than guessing whose change it was.
set -euo pipefail
dir=${TROUPE_DEFAULT_LOG_DIRS:-/tmp/troupe-logs}

snapshot() {
  if [ -e "$dir" ]; then
    find "$dir" -printf '%y %s %T@ %P\n' | LC_ALL=C sort -k4
  else
    echo "absent"
  fi
}

case "${1:-}" in
baseline)
  snapshot >"$2"
  ;;
check)
  now=$(mktemp /tmp/troupe-logdir-now-XXXXXX)
  trap 'rm -f "$now"' EXIT
  snapshot >"$now"
  if ! cmp -s "$2" "$now"; then
    echo "check_default_logdir: the suite changed the default log.dirs $dir" \
      "(or a troupe of your own wrote to it meanwhile); before -> after:" >&2
    diff "$2" "$now" | head -40 >&2 || true
    exit 1
  fi
  echo "check_default_logdir: $dir unchanged by the suite"
  ;;
*)
  echo "usage: $0 baseline FILE | check FILE" >&2
  exit 2
  ;;
esac
