#!/usr/bin/env bash
# Runs a Kafka client program against a fresh `troupe --serve`:
#   run_with_troupe.sh TROUPE PORT PARTITIONS PROGRAM ARGS...
# The server listens on PORT..PORT+2 with a temporary log.dirs, auto-creates
# topics with PARTITIONS partitions and replication factor 3, and is stopped
# when the program exits. @BROKERS@ in ARGS becomes the bootstrap list. The
# program's exit code is the script's. PORT `free` picks three consecutive
# free ports; a number is checked to be free. Both the server and the program
# die with this script.
set -uo pipefail
troupe="$1"
partitions="$3"
. "$(dirname "$0")/../lib/troupe_server.sh"
if [ "$2" = free ]; then
  port=$(troupe_ports 3) || exit 1
else
  port=$(troupe_ports 3 "$2") || exit 1
fi
shift 3
dir=$(mktemp -d /tmp/troupe-client-XXXXXX)

# No HTTP gateway unless the test asks for one with TROUPE_HTTP_PORT (`free`
# or a port; then @HTTP@ in ARGS becomes its port, and the admin routes are
# enabled).
http=0
extra=()
case "${TROUPE_HTTP_PORT:-}" in
  "") ;;
  free) http=$(troupe_ports 1) || exit 1 ;;
  *) http=$(troupe_ports 1 "$TROUPE_HTTP_PORT") || exit 1 ;;
esac
[ "$http" = 0 ] || extra+=(--override troupe.http.admin.enable=true)
cleanup() {
  troupe_stop
  rm -rf "$dir"
}
trap cleanup EXIT

troupe_start "$dir" "$troupe" --serve --http-port "$http" "${extra[@]}" \
  --log-level info \
  --override "log.dirs=$dir/logs" --override port="$port" \
  --override group.initial.rebalance.delay.ms=0 \
  --override num.partitions="$partitions" \
  --override default.replication.factor=3
ready=("$port" $((port + 1)) $((port + 2)))
[ "$http" = 0 ] || ready+=("$http")
troupe_wait_ready "${ready[@]}"

brokers="127.0.0.1:$port,127.0.0.1:$((port + 1)),127.0.0.1:$((port + 2))"
args=()
for a in "$@"; do
  a="${a//@BROKERS@/$brokers}"
  args+=("${a//@HTTP@/$http}")
done
setpriv --pdeathsig KILL -- "${args[@]}"
status=$?
[ "$status" -eq 0 ] || troupe_show_log
exit "$status"
