#!/usr/bin/env bash
# Runs a Kafka client program against a fresh `troupe --serve`:
#   run_with_troupe.sh TROUPE PORT PARTITIONS PROGRAM ARGS...
# The server listens on PORT..PORT+2 with a temporary log.dirs, auto-creates
# topics with PARTITIONS partitions and replication factor 3, and is stopped
# when the program exits. @BROKERS@ in ARGS becomes the bootstrap list. The
# program's exit code is the script's. PORT `free` picks three consecutive
# ports nobody listens on.
set -uo pipefail
troupe="$1"
port="$2"
partitions="$3"
shift 3
if [ "$port" = free ]; then
  port=$(python3 -c '
import random, socket
for _ in range(500):
    base, held = random.randrange(20000, 60000, 3), []
    try:
        for p in range(base, base + 3):
            s = socket.socket()
            held.append(s)
            s.bind(("", p))
        print(base)
        break
    except OSError:
        pass
    finally:
        for s in held:
            s.close()
')
  [ -n "$port" ] || { echo "no free ports"; exit 1; }
fi
dir=$(mktemp -d /tmp/troupe-client-XXXXXX)

# No HTTP gateway unless the test asks for one with TROUPE_HTTP_PORT (then
# @HTTP@ in ARGS becomes its port, and the admin routes are enabled).
extra=(--http-port "${TROUPE_HTTP_PORT:-0}")
if [ -n "${TROUPE_HTTP_PORT:-}" ] \
  && "$troupe" --help 2>/dev/null | grep -q troupe.http.admin.enable; then
  extra+=(--override troupe.http.admin.enable=true)
fi
"$troupe" --serve "${extra[@]}" --log-level info \
  --override "log.dirs=$dir/logs" --override port="$port" \
  --override group.initial.rebalance.delay.ms=0 \
  --override num.partitions="$partitions" \
  --override default.replication.factor=3 \
  >"$dir/server.log" 2>&1 &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done

brokers="127.0.0.1:$port,127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))"
args=()
for a in "$@"; do
  a="${a//@BROKERS@/$brokers}"
  args+=("${a//@HTTP@/${TROUPE_HTTP_PORT:-0}}")
done
"${args[@]}"
status=$?
if [ "$status" -ne 0 ]; then
  echo "--- server log (tail)"
  tail -n 60 "$dir/server.log"
fi
exit "$status"
