#!/usr/bin/env bash
# zk_server.sh: start serves, status sees it, stop leaves no process, run
# hands the command a serving ZooKeeper and passes its exit code on.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
zk=$here/zk_server.sh
dir=$(mktemp -d /tmp/troupe-zk-sh-test-XXXXXX)
trap '"$zk" stop "$dir" || true; rm -rf "$dir"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

connect=$("$zk" start "$dir")
[[ $connect == 127.0.0.1:* ]] || fail "start printed '$connect'"
pid=$(<"$dir/zookeeper.pid")
"$zk" status "$dir" | grep -q "serving $connect" || fail "status after start"
"$zk" start "$dir" 2>/dev/null && fail "a second start in one directory"
"$zk" stop "$dir"
kill -0 "$pid" 2>/dev/null && fail "pid $pid still runs after stop"
"$zk" status "$dir" >/dev/null && fail "status after stop"

rc=0
"$zk" run -- bash -c '
  port=${ZK_CONNECT#127.0.0.1:}
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf ruok >&3
  [[ $(cat <&3) == imok ]] || exit 9
  exit 5' || rc=$?
[[ $rc == 5 ]] || fail "run returned $rc, not the command's 5"
echo "ok"
