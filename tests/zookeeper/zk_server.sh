#!/usr/bin/env bash
# A ZooKeeper for tests and local clusters: Debian's server (3.8) on a free
# loopback port with its own data directory. Every wait is bounded; the
# server is stopped by its pid.
#
#   zk_server.sh start DIR     start in DIR (created if missing), wait until
#                              it serves (<= 20 s), print 127.0.0.1:PORT
#   zk_server.sh stop DIR      kill the server recorded in DIR, wait for it
#   zk_server.sh status DIR    print "serving 127.0.0.1:PORT" (exit 0) or
#                              "stopped" (exit 1)
#   zk_server.sh run -- CMD..  start in a temporary DIR, run CMD with
#                              ZK_CONNECT=127.0.0.1:PORT, stop the server and
#                              remove DIR however CMD ends; CMD's exit code
#
# Environment: ZK_PORT (default: a free port), ZK_BIND (127.0.0.1: the
# address it listens on and prints), ZK_TICK_MS (500; sessions expire at
# tick granularity), ZK_MIN_SESSION_MS (1000), ZK_MAX_SESSION_MS (60000).
set -euo pipefail

# zookeeper.jar's manifest names its dependencies; slf4j-simple sends the
# server's log to stderr, i.e. DIR/zookeeper.log.
CLASS_PATH=/usr/share/java/slf4j-simple.jar:/usr/share/java/zookeeper.jar
MAIN=org.apache.zookeeper.server.quorum.QuorumPeerMain

die() {
  echo "zk_server.sh: $*" >&2
  exit 1
}

BIND=${ZK_BIND:-127.0.0.1}

free_port() {
  python3 -c 'import socket, sys; s = socket.socket(); s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "$BIND"
}

# four_letter_word PORT WORD: the server's answer, or nothing within 2 s.
four_letter_word() {
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$3/$1" && printf %s "$2" >&3 && cat <&3' \
    _ "$1" "$2" "$BIND" 2>/dev/null || true
}

# The pid in DIR if that process is still our ZooKeeper.
live_pid() {
  local dir=$1 pid
  [[ -f $dir/zookeeper.pid ]] || return 1
  pid=$(<"$dir/zookeeper.pid")
  [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "$MAIN" \
    && echo "$pid"
}

start() {
  local dir=$1 port pid
  [[ -n $dir ]] || die "start needs a directory"
  if live_pid "$dir" >/dev/null; then
    die "a ZooKeeper already runs in $dir (pid $(live_pid "$dir"))"
  fi
  command -v java >/dev/null || die "java not found (scripts/setup.sh installs zookeeper)"
  [[ -f /usr/share/java/zookeeper.jar ]] || die "Debian's zookeeper is not installed (scripts/setup.sh)"
  mkdir -p "$dir/data"
  dir=$(cd "$dir" && pwd)
  port=${ZK_PORT:-$(free_port)}
  cat >"$dir/zoo.cfg" <<EOF
tickTime=${ZK_TICK_MS:-500}
dataDir=$dir/data
clientPort=$port
clientPortAddress=$BIND
minSessionTimeout=${ZK_MIN_SESSION_MS:-1000}
maxSessionTimeout=${ZK_MAX_SESSION_MS:-60000}
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,cons
EOF
  # Its own session, so that stopping it never signals our process group.
  setsid java -Xms16m -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dzookeeper.jmx.log4j.disable=true -cp "$CLASS_PATH" "$MAIN" "$dir/zoo.cfg" \
    </dev/null >>"$dir/zookeeper.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/zookeeper.pid"
  echo "$port" >"$dir/port"
  local deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$dir/zookeeper.log" >&2 || true
      die "ZooKeeper exited while starting (log: $dir/zookeeper.log)"
    fi
    # `ruok` answers once the process runs; `srvr` names a mode only once
    # the server serves.
    if four_letter_word "$port" srvr | grep -q "Mode: "; then
      echo "$BIND:$port"
      echo "$BIND" >"$dir/bind"
      return 0
    fi
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  tail -n 30 "$dir/zookeeper.log" >&2 || true
  die "ZooKeeper did not serve within 20 s (log: $dir/zookeeper.log)"
}

stop() {
  local dir=$1 pid
  pid=$(live_pid "$dir") || return 0
  kill -KILL "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 10))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.1
  done
  rm -f "$dir/zookeeper.pid"
}

status() {
  local dir=$1 port
  if live_pid "$dir" >/dev/null; then
    port=$(<"$dir/port")
    [[ -f $dir/bind ]] && BIND=$(<"$dir/bind")
    if four_letter_word "$port" ruok | grep -q imok; then
      echo "serving $BIND:$port"
      return 0
    fi
  fi
  echo "stopped"
  return 1
}

RUN_DIR=
run() {
  [[ ${1:-} == -- ]] && shift
  (($#)) || die "run needs a command"
  local rc=0
  RUN_DIR=$(mktemp -d /tmp/troupe-zk-XXXXXX)
  trap 'stop "$RUN_DIR"; rm -rf "$RUN_DIR"' EXIT
  trap 'exit 130' INT TERM
  ZK_CONNECT=$(start "$RUN_DIR")
  export ZK_CONNECT
  # In the background, so that a signal stops it and us at once rather than
  # after it (bash runs traps only between commands).
  "$@" <&0 &
  RUN_CHILD=$!
  trap 'kill -TERM "$RUN_CHILD" 2>/dev/null; exit 130' INT TERM
  wait "$RUN_CHILD" || rc=$?
  return "$rc"
}

case ${1:-} in
  start) start "${2:-}" ;;
  stop) stop "${2:?stop needs a directory}" ;;
  status) status "${2:?status needs a directory}" ;;
  run)
    shift
    run "$@"
    ;;
  *)
    sed -n '2,18p' "$0" >&2
    exit 2
    ;;
esac
