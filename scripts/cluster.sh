#!/usr/bin/env bash
# A local troupe cluster on loopback: one ZooKeeper (tests/zookeeper/
# zk_server.sh) and N nodes, each a `troupe serve` process with one broker,
# started from its own properties file (Kafka's server.properties syntax).
#
#   scripts/cluster.sh up [N]   start ZooKeeper and N nodes (default 3) on
#                               free ports, wait (bounded) until every node
#                               is registered and a controller is elected,
#                               print the bootstrap list, HTTP URLs, kcat
#   scripts/cluster.sh down     stop the nodes, then ZooKeeper, by pid
#                               (idempotent; files stay for reading)
#   scripts/cluster.sh status   each process, the registered brokers and
#                               the controller
#
# Environment: TROUPE_CLUSTER_DIR (/tmp/troupe-cluster: pids, ports, logs,
# properties and data of every process), TROUPE_BIN (build/troupe, built
# with scripts/build.sh when missing), TROUPE_SESSION_TIMEOUT_MS (6000),
# TROUPE_CLUSTER_WAIT_S (60, the bound of every wait),
# TROUPE_CLUSTER_PROPERTIES (more key=value lines for every node's file,
# e.g. "group.initial.rebalance.delay.ms=0").
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${TROUPE_CLUSTER_DIR:-/tmp/troupe-cluster}
bin=${TROUPE_BIN:-$root/build/troupe}
session_ms=${TROUPE_SESSION_TIMEOUT_MS:-6000}
wait_s=${TROUPE_CLUSTER_WAIT_S:-60}
zk_sh=$root/tests/zookeeper/zk_server.sh
zkcli=/usr/share/zookeeper/bin/zkCli.sh
# Debian's python3 has python3-kazoo (scripts/setup.sh); a pyenv python
# first on PATH would not.
py=/usr/bin/python3
marker=$dir/cluster.env

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}

# -- state ----------------------------------------------------------------------

node_dirs() {
  local d
  for d in "$dir"/node-*; do
    [[ -d $d ]] && echo "$d"
  done | sort -t- -k2 -n
}

# The pid in node dir $1 if that process is still this node's troupe.
node_pid() {
  local d=$1 pid
  [[ -f $d/troupe.pid ]] || return 1
  pid=$(<"$d/troupe.pid")
  [[ -r /proc/$pid/cmdline ]] \
    && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$d/server.properties" \
    && echo "$pid"
}

prop() { # prop FILE KEY
  sed -n "s/^$2=//p" "$1" | tail -n 1
}

zk_connect() {
  [[ -f $dir/zookeeper.connect ]] && cat "$dir/zookeeper.connect"
}

# zk_query CONNECT: one line per fact ZooKeeper holds about the cluster:
# "broker ID HOST:PORT", "controller ID", "controller_epoch N".
zk_query() {
  "$py" - "$1" <<'EOF'
import json, logging, sys
logging.disable(logging.CRITICAL)
from kazoo.client import KazooClient
zk = KazooClient(hosts=sys.argv[1], timeout=3)
try:
    zk.start(timeout=3)
except Exception:
    sys.exit(1)
try:
    ids = zk.get_children("/brokers/ids") if zk.exists("/brokers/ids") else []
    for i in sorted(ids, key=int):
        data, _ = zk.get("/brokers/ids/" + i)
        reg = json.loads(data)
        kafka = [e for e in reg.get("endpoints", []) if e.startswith("PLAINTEXT")]
        print("broker", i, kafka[0].split("//", 1)[1] if kafka else "?")
    if zk.exists("/controller"):
        data, _ = zk.get("/controller")
        print("controller", json.loads(data)["brokerid"])
    if zk.exists("/controller_epoch"):
        data, _ = zk.get("/controller_epoch")
        print("controller_epoch", int(data))
finally:
    zk.stop()
    zk.close()
EOF
}

# Free loopback ports, all distinct (held open until every one is chosen).
free_ports() {
  "$py" - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

# -- up ----------------------------------------------------------------------------

write_properties() { # write_properties FILE ID N KAFKA CLUSTER DATA CONNECT
  local file=$1 id=$2 n=$3 kafka=$4 cport=$5 data=$6 connect=$7
  local rf=$((n < 3 ? n : 3)) isr=$((n < 2 ? 1 : 2))
  cat >"$file" <<EOF
# troupe node $id of a local cluster (scripts/cluster.sh); Kafka's names.
broker.id=$id
zookeeper.connect=$connect
zookeeper.session.timeout.ms=$session_ms
# The Kafka listener this node binds and advertises in /brokers/ids/$id.
listeners=PLAINTEXT://127.0.0.1:$kafka
advertised.listeners=PLAINTEXT://127.0.0.1:$kafka
# troupe's own port: CAF's middleman, where the other nodes reach this one.
troupe.cluster.port=$cport
log.dirs=$data
# __consumer_offsets is created once this many brokers are registered.
offsets.topic.replication.factor=$rf
# Auto-created topics: 3 partitions over $rf replicas; acks=all needs $isr.
num.partitions=3
default.replication.factor=$rf
min.insync.replicas=$isr
EOF
  if [[ -n ${TROUPE_CLUSTER_PROPERTIES:-} ]]; then
    printf '%s\n' "# TROUPE_CLUSTER_PROPERTIES" $TROUPE_CLUSTER_PROPERTIES >>"$file"
  fi
  if "$bin" --help 2>/dev/null | grep -q 'troupe.http.admin.enable'; then
    printf '%s\n' "# POST /v1/brokers/{id}/stop|start on this node's HTTP port." \
      "troupe.http.admin.enable=true" >>"$file"
  fi
}

start_node() { # start_node NODE_DIR
  local d=$1 http
  http=$(<"$d/http.port")
  # Its own session: a Ctrl-C in the terminal that ran `up` reaches no node.
  setsid "$bin" serve --config "$d/server.properties" --http-port "$http" \
    --log-level info </dev/null >>"$d/troupe.log" 2>&1 &
  echo $! >"$d/troupe.pid"
}

# Until every node is in /brokers/ids, /controller names one of them, and
# each node's Kafka listener lists all N brokers; bounded by wait_s.
wait_ready() {
  local n=$1 connect=$2 deadline=$((SECONDS + wait_s)) facts brokers d
  while ((SECONDS < deadline)); do
    for d in $(node_dirs); do
      node_pid "$d" >/dev/null || {
        tail -n 20 "$d/troupe.log" >&2
        die "$(basename "$d") exited (log: $d/troupe.log)"
      }
    done
    facts=$(zk_query "$connect" 2>/dev/null || true)
    brokers=$(grep -c '^broker ' <<<"$facts" || true)
    if ((brokers == n)) && grep -q '^controller ' <<<"$facts"; then
      local listed=0
      for d in $(node_dirs); do
        local k
        k=$(prop "$d/server.properties" listeners)
        k=${k#PLAINTEXT://}
        if kcat -b "$k" -L -J -m 3 2>/dev/null \
          | "$py" -c 'import json,sys; sys.exit(len(json.load(sys.stdin)["brokers"]) != int(sys.argv[1]))' "$n"; then
          listed=$((listed + 1))
        fi
      done
      ((listed == n)) && return 0
    fi
    sleep 0.5
  done
  echo "$facts" >&2
  die "the cluster was not ready within ${wait_s} s (logs: $dir/node-*/troupe.log)"
}

up() {
  local n=${1:-3} d
  [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n <= 64)) || die "up takes a node count (1..64)"
  for d in $(node_dirs); do
    node_pid "$d" >/dev/null && die "a cluster runs in $dir; 'cluster.sh down' first"
  done
  "$zk_sh" status "$dir/zookeeper" >/dev/null 2>&1 \
    && die "a ZooKeeper runs in $dir/zookeeper; 'cluster.sh down' first"
  command -v kcat >/dev/null || die "kcat not found (scripts/setup.sh)"
  "$py" -c 'import kazoo' 2>/dev/null || die "python3-kazoo not found (scripts/setup.sh)"
  if [[ ! -x $bin ]]; then
    echo "cluster.sh: building troupe (scripts/build.sh troupe)" >&2
    "$root/scripts/build.sh" troupe >&2
  fi
  # A previous cluster's files are replaced; anything else is not ours.
  if [[ -d $dir && -n $(ls -A "$dir") && ! -f $marker ]]; then
    die "$dir exists and is not a cluster.sh directory; set TROUPE_CLUSTER_DIR"
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  echo "nodes=$n" >"$marker"

  local connect
  connect=$("$zk_sh" start "$dir/zookeeper")
  echo "$connect" >"$dir/zookeeper.connect"
  echo "ZooKeeper  $connect  pid $(<"$dir/zookeeper/zookeeper.pid")  (log $dir/zookeeper/zookeeper.log)"

  local ports i=0
  read -r -a ports <<<"$(free_ports $((3 * n)))"
  for id in $(seq 1 "$n"); do
    d=$dir/node-$id
    mkdir -p "$d/data"
    local kafka=${ports[i]} cport=${ports[i + 1]} http=${ports[i + 2]}
    i=$((i + 3))
    echo "$http" >"$d/http.port"
    write_properties "$d/server.properties" "$id" "$n" "$kafka" "$cport" \
      "$d/data" "$connect"
    start_node "$d"
    echo "node $id     pid $(<"$d/troupe.pid")  Kafka 127.0.0.1:$kafka  cluster port $cport  HTTP $http  (config $d/server.properties, log $d/troupe.log)"
  done

  echo "waiting (<= ${wait_s} s) until $n brokers are registered and a controller is elected..."
  wait_ready "$n" "$connect"
  local facts bootstrap=
  facts=$(zk_query "$connect")
  bootstrap=$(awk '/^broker /{printf "%s%s", sep, $3; sep=","}' <<<"$facts")
  echo "ready: brokers $(awk '/^broker /{printf "%s ", $2}' <<<"$facts")controller $(awk '/^controller /{print $2}' <<<"$facts")"
  echo
  echo "bootstrap.servers=$bootstrap"
  for d in $(node_dirs); do
    echo "node $(prop "$d/server.properties" broker.id): http://127.0.0.1:$(<"$d/http.port")/"
  done
  cat <<EOF

Try:
  kcat -b $bootstrap -L
  seq 1 100 | kcat -b $bootstrap -P -t demo -X acks=all
  kcat -b $bootstrap -C -t demo -e
  kcat -b $bootstrap -G demo-group demo
  $zkcli -server $connect get /controller
  $0 status
  $0 down
EOF
}

# -- down, status ----------------------------------------------------------------------

down() {
  local d pid pids=()
  [[ -d $dir ]] || return 0
  for d in $(node_dirs); do
    if pid=$(node_pid "$d"); then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  # A node that does not stop within 10 s is killed.
  local deadline=$((SECONDS + 10))
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  for d in $(node_dirs); do
    rm -f "$d/troupe.pid"
  done
  ((${#pids[@]})) && echo "stopped nodes (pids ${pids[*]})"
  if [[ -d $dir/zookeeper ]]; then
    "$zk_sh" stop "$dir/zookeeper"
  fi
  echo "cluster in $dir is down (files kept)"
}

status() {
  local d pid connect facts rc=0
  [[ -f $marker ]] || {
    echo "no cluster in $dir"
    return 1
  }
  connect=$(zk_connect || true)
  echo "ZooKeeper  $connect  $("$zk_sh" status "$dir/zookeeper" 2>/dev/null || true)"
  facts=$(zk_query "$connect" 2>/dev/null || true)
  for d in $(node_dirs); do
    local id reg
    id=$(prop "$d/server.properties" broker.id)
    reg=$(awk -v id="$id" '$1 == "broker" && $2 == id {print "registered as " $3}' <<<"$facts")
    if pid=$(node_pid "$d"); then
      echo "node $id     running, pid $pid, ${reg:-not registered}, HTTP http://127.0.0.1:$(<"$d/http.port")/"
    else
      echo "node $id     stopped${reg:+ ($reg: its session has not expired yet)}"
      rc=1
    fi
  done
  if grep -q '^controller ' <<<"$facts"; then
    echo "controller broker $(awk '/^controller /{print $2}' <<<"$facts") (controller epoch $(awk '/^controller_epoch /{print $2}' <<<"$facts"))"
  else
    echo "controller none"
    rc=1
  fi
  return "$rc"
}

case ${1:-} in
  up) up "${2:-3}" ;;
  down) down ;;
  status) status ;;
  *)
    sed -n '2,19p' "$0" >&2
    exit 2
    ;;
esac
