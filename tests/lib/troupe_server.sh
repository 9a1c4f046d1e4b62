# Sourced by the shell tests: one `troupe --serve` on free ports, started so
# that it dies with the test, and a readiness wait that only our process can
# satisfy.
#
#   troupe_ports N [BASE]     prints BASE, or a random base port, after
#                             checking that BASE..BASE+N-1 are all free
#                             (each bind-tested on every address); fails
#                             naming the port when one is in use
#   troupe_start DIR ARGS...  runs ARGS (troupe and its options) in the
#                             background, output to DIR/server.log; sets
#                             troupe_pid. The process gets SIGKILL when the
#                             test's shell dies, however it dies.
#   troupe_wait_ready PORT... waits until troupe_pid printed its ready line
#                             (printed only once every listener is bound, so
#                             no other process can hold those ports) and
#                             each PORT accepts a connection; fails loudly,
#                             with the log's tail, if the process exits or
#                             TROUPE_READY_TIMEOUT (30 s) passes
#   troupe_stop               SIGTERM, then SIGKILL after 10 s; waits for it
#   troupe_show_log           the server log's tail (once), for failures

# troupe_ports_free BASE N: true when BASE..BASE+N-1 can all be bound.
troupe_ports_free() {
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import socket, sys
base, n = int(sys.argv[1]), int(sys.argv[2])
held = []
try:
    for p in range(base, base + n):
        s = socket.socket()
        held.append(s)
        s.bind(("", p))
except OSError:
    sys.exit(1)
finally:
    for s in held:
        s.close()
EOF
}

troupe_ports() {
  local n=$1 base=${2:-}
  if [ -n "$base" ]; then
    troupe_ports_free "$base" "$n" && echo "$base" && return 0
    echo "FAIL: ports $base..$((base + n - 1)): one is in use" >&2
    return 1
  fi
  for _ in $(seq 1 500); do
    base=$((20000 + RANDOM % 40000))
    if troupe_ports_free "$base" "$n"; then
      echo "$base"
      return 0
    fi
  done
  echo "troupe_server.sh: no $n consecutive free ports" >&2
  return 1
}

troupe_pid=
troupe_log=

troupe_start() {
  local dir=$1
  shift
  troupe_log=$dir/server.log
  # setpriv: the kernel kills troupe when this shell exits (a timeout's
  # SIGKILL included), so no run leaves a broker holding ports.
  setpriv --pdeathsig KILL -- "$@" >"$troupe_log" 2>&1 &
  troupe_pid=$!
}

# troupe_show_log: the server log's tail, once per test.
troupe_log_shown=
troupe_show_log() {
  [ -z "$troupe_log_shown" ] && [ -f "$troupe_log" ] || return 0
  troupe_log_shown=1
  echo "--- server log (tail)"
  tail -n 60 "$troupe_log"
}

troupe_fail() {
  echo "FAIL: $*"
  troupe_show_log
  exit 1
}

troupe_wait_ready() {
  local deadline=$((SECONDS + ${TROUPE_READY_TIMEOUT:-30})) p
  while :; do
    kill -0 "$troupe_pid" 2>/dev/null ||
      troupe_fail "troupe (pid $troupe_pid) exited before it was ready"
    if grep -q "Kafka listeners on $1\.\." "$troupe_log"; then
      local all=1
      for p in "$@"; do
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || all=0
      done
      [ "$all" = 1 ] && return 0
    fi
    [ "$SECONDS" -lt "$deadline" ] ||
      troupe_fail "troupe (pid $troupe_pid) not ready on $* within" \
        "${TROUPE_READY_TIMEOUT:-30} s"
    sleep 0.1
  done
}

troupe_stop() {
  [ -n "$troupe_pid" ] || return 0
  kill -TERM "$troupe_pid" 2>/dev/null || true
  local deadline=$((SECONDS + 10))
  while kill -0 "$troupe_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.1
  done
  kill -KILL "$troupe_pid" 2>/dev/null || true
  wait "$troupe_pid" 2>/dev/null || true
  troupe_pid=
}
