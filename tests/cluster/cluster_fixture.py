"""A troupe cluster of real processes for the multi-process tests.

One ZooKeeper (tests/zookeeper/zk_server.sh) and N `troupe serve` nodes,
each with one broker, its own properties file, free ports and a log
directory under one temporary directory. Everything started here is
stopped by pid when the `with Cluster(...)` block ends, whether the test
passed or not, and the block fails if any process of the cluster is left.

Clients are real ones: confluent-kafka (librdkafka) producers with delivery
reports, kcat for metadata and reading partitions back, kazoo for what
ZooKeeper holds in Kafka's znode layout.

Network namespaces (Topology) put each node, ZooKeeper and the test's
clients in namespaces of their own, joined by a bridge in a hub namespace,
so that one node can be cut off from the others while it still reaches
ZooKeeper; the namespaces are deleted when the test ends.
"""

import ast
import contextlib
import ctypes
import json
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

logging.getLogger("kazoo").setLevel(logging.CRITICAL)

from confluent_kafka import KafkaException, Producer  # noqa: E402
from kazoo.client import KazooClient  # noqa: E402
from kazoo.exceptions import NoNodeError  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from children import die_with_parent  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZK_SH = os.path.join(ROOT, "tests", "zookeeper", "zk_server.sh")
OFFSETS_TOPIC = "__consumer_offsets"


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class CheckFailed(AssertionError):
    """A check of a case that did not hold."""


def check(condition, message):
    """Fails the case with `message` unless `condition` holds. Unlike an
    `assert` statement, which `python3 -O` strips, it always runs."""
    if not condition:
        raise CheckFailed(message)
    return condition


def wait_for(what, predicate, timeout, interval=0.1):
    """predicate()'s first truthy value within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # a probe may fail while the cluster moves
            last_error = e
        if time.monotonic() >= deadline:
            extra = f" (last error: {last_error!r})" if last_error else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{extra}")
        time.sleep(interval)


# Ports handed out in this process: the kernel may give a port again once
# its probe socket is closed, and nodes are added before any of them binds.
_given_ports = set()


def free_ports(n):
    socks = []
    try:
        while len(socks) < n:
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            if s.getsockname()[1] in _given_ports:
                s.close()
                continue
            socks.append(s)
        ports = [s.getsockname()[1] for s in socks]
        _given_ports.update(ports)
        return ports
    finally:
        for s in socks:
            s.close()


def java_hash(s):
    """Java's String.hashCode (Kafka's coordinator lookup uses it)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def coordinator_partition(group, partitions=50):
    """Kafka's GroupMetadataManager.partitionFor: Utils.abs(hash) % n, where
    Utils.abs(Integer.MIN_VALUE) is 0 (not a mask: abs(-5) is 5)."""
    h = java_hash(group)
    return (0 if h == -(1 << 31) else abs(h)) % partitions


# -- records on disk --------------------------------------------------------------


def _varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
    return (result >> 1) ^ -(result & 1), i


class Batch:
    """One RecordBatch v2 of a segment file: its header fields and its
    records as (offset, value)."""

    __slots__ = ("base_offset", "leader_epoch", "producer_id", "producer_epoch", "base_sequence", "records")

    def __init__(self, base_offset, leader_epoch, producer_id, producer_epoch, base_sequence, records):
        self.base_offset, self.leader_epoch = base_offset, leader_epoch
        self.producer_id, self.producer_epoch, self.base_sequence = producer_id, producer_epoch, base_sequence
        self.records = records


def read_batches(directory):
    """Every batch in a partition's segment files, Kafka's RecordBatch v2
    (uncompressed), read from the files themselves."""
    out = []
    if not os.path.isdir(directory):
        return out
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".log"):
            continue
        with open(os.path.join(directory, name), "rb") as f:
            buf = f.read()
        pos = 0
        while pos + 61 <= len(buf):
            base = int.from_bytes(buf[pos:pos + 8], "big", signed=True)
            length = int.from_bytes(buf[pos + 8:pos + 12], "big", signed=True)
            end = pos + 12 + length
            if length <= 0 or end > len(buf):
                break  # a torn tail: the broker cuts it at recovery
            epoch = int.from_bytes(buf[pos + 12:pos + 16], "big", signed=True)
            attributes = int.from_bytes(buf[pos + 21:pos + 23], "big")
            if attributes & 0x7:
                raise AssertionError(f"{name}: compressed batch at offset {base}")
            producer_id = int.from_bytes(buf[pos + 43:pos + 51], "big", signed=True)
            producer_epoch = int.from_bytes(buf[pos + 51:pos + 53], "big", signed=True)
            base_sequence = int.from_bytes(buf[pos + 53:pos + 57], "big", signed=True)
            count = int.from_bytes(buf[pos + 57:pos + 61], "big", signed=True)
            records = []
            i = pos + 61
            for _ in range(count):
                _, i = _varint(buf, i)  # record length
                i += 1  # attributes
                _, i = _varint(buf, i)  # timestamp delta
                delta, i = _varint(buf, i)
                klen, i = _varint(buf, i)
                i += max(klen, 0)
                vlen, i = _varint(buf, i)
                value = bytes(buf[i:i + vlen]) if vlen >= 0 else None
                i += max(vlen, 0)
                headers, i = _varint(buf, i)
                for _ in range(headers):
                    hk, i = _varint(buf, i)
                    i += hk
                    hv, i = _varint(buf, i)
                    i += max(hv, 0)
                records.append((base + delta, value.decode() if value is not None else None))
            out.append(Batch(base, epoch, producer_id, producer_epoch, base_sequence, records))
            pos = end
    return out


def read_segments(directory):
    """(offset, partition leader epoch, value) of every record in a
    partition's segment files."""
    return [(offset, b.leader_epoch, value) for b in read_batches(directory) for offset, value in b.records]


# -- network namespaces ---------------------------------------------------------------


def sh(*args, check=True):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {r.stdout.strip()}")
    return r


CLONE_NEWNET = 0x40000000


class Topology:
    """Namespaces `<prefix>-<name>` for each name, each with one veth into
    the hub namespace's bridge and the address 10.77.0.<k>/24. The calling
    process joins the namespace `client` (so do the threads and processes
    it starts afterwards). cut(a, others) blackholes the routes between a
    and each of others, in both directions; heal() removes them."""

    def __init__(self, names):
        self.prefix = f"tr{os.getpid()}"
        self.names = list(names)
        self.address = {}
        self.cuts = []
        self.created = []
        self.hub = f"{self.prefix}-hub"

    def ns(self, name):
        return f"{self.prefix}-{name}"

    def create(self):
        sh("ip", "netns", "add", self.hub)
        self.created.append(self.hub)
        sh("ip", "-n", self.hub, "link", "add", "br0", "type", "bridge")
        sh("ip", "-n", self.hub, "link", "set", "br0", "up")
        sh("ip", "-n", self.hub, "link", "set", "lo", "up")
        for k, name in enumerate(self.names, start=1):
            ns = self.ns(name)
            sh("ip", "netns", "add", ns)
            self.created.append(ns)
            addr = f"10.77.0.{k}"
            self.address[name] = addr
            port = f"p{k}"
            sh("ip", "-n", self.hub, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns)
            sh("ip", "-n", self.hub, "link", "set", port, "master", "br0")
            sh("ip", "-n", self.hub, "link", "set", port, "up")
            sh("ip", "-n", ns, "addr", "add", f"{addr}/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")

    def enter(self, name):
        """The calling thread (and what it starts later) moves to `name`."""
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(f"/run/netns/{self.ns(name)}", os.O_RDONLY)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns")
        finally:
            os.close(fd)

    def exec_prefix(self, name):
        return ["ip", "netns", "exec", self.ns(name)]

    def cut(self, a, others):
        for b in others:
            for src, dst in ((a, b), (b, a)):
                sh("ip", "-n", self.ns(src), "route", "add", "blackhole", f"{self.address[dst]}/32")
                self.cuts.append((src, dst))

    def heal(self):
        for src, dst in self.cuts:
            sh("ip", "-n", self.ns(src), "route", "del", "blackhole", f"{self.address[dst]}/32", check=False)
        self.cuts = []

    def destroy(self):
        self.heal()
        for ns in reversed(self.created):
            sh("ip", "netns", "del", ns, check=False)
        self.created = []

    def leftovers(self):
        r = sh("ip", "netns", "list", check=False)
        return [line.split()[0] for line in r.stdout.splitlines() if line.startswith(self.prefix + "-")]


# -- nodes ---------------------------------------------------------------------------------


class Node:
    """One `troupe serve` process: broker `broker_id`, its properties file,
    ports and log directory; started, killed, paused and restarted by pid."""

    def __init__(self, cluster, broker_id, host, kafka_port, cluster_port, http_port, netns=None):
        self.cluster = cluster
        self.id = broker_id
        self.host = host
        self.kafka_port = kafka_port
        self.cluster_port = cluster_port
        self.http_port = http_port
        self.netns = netns
        self.dir = os.path.join(cluster.dir, f"node-{broker_id}-{kafka_port}")
        self.data = os.path.join(self.dir, "data")
        self.config = os.path.join(self.dir, "server.properties")
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.proc = None
        self.paused = False
        self.props = {}

    @property
    def bootstrap(self):
        return f"{self.host}:{self.kafka_port}"

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def write_config(self, overrides=None):
        props = {
            "broker.id": self.id,
            "zookeeper.connect": self.cluster.zk_connect,
            "zookeeper.session.timeout.ms": self.cluster.session_timeout_ms,
            "listeners": f"PLAINTEXT://{self.host}:{self.kafka_port}",
            "troupe.cluster.port": self.cluster_port,
            "log.dirs": self.data,
        }
        props.update(self.cluster.props)
        props.update(overrides or {})
        self.props = props
        os.makedirs(self.dir, exist_ok=True)
        with open(self.config, "w") as f:
            f.write(f"# troupe node {self.id} (tests/cluster/cluster_fixture.py)\n")
            for k, v in props.items():
                f.write(f"{k}={v}\n")

    def start(self, overrides=None):
        check(not self.alive(), f"node {self.id} already runs")
        self.write_config(overrides)
        cmd = [self.cluster.troupe, "serve", "--config", self.config, "--http-port", str(self.http_port), "--log-level", "info"]
        if self.netns:
            # The gateway binds 127.0.0.1 unless told: here the node's
            # address is its namespace's.
            cmd += ["--http-bind", self.host]
            cmd = self.cluster.topology.exec_prefix(self.netns) + cmd
        out = open(self.log_path, "a")
        out.write(f"---- start {time.strftime('%H:%M:%S')}\n")
        out.flush()
        # Its own session: a signal to the test's process group reaches no
        # node. PR_SET_PDEATHSIG: the node dies with the test all the same.
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=die_with_parent())
        out.close()
        self.paused = False
        self.cluster.started_pids.add(self.proc.pid)
        log(f"node {self.id}: started, pid {self.proc.pid}, Kafka {self.bootstrap}, HTTP {self.http_port}")
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        log(f"node {self.id}: kill -9 (pid {self.pid})")
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.paused = False

    def stop(self, timeout=15):
        if not self.alive():
            return
        if self.paused:
            self.cont()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            log(f"node {self.id}: did not stop within {timeout} s; kill -9")
            self.proc.kill()
            self.proc.wait(timeout=10)

    def pause(self):
        log(f"node {self.id}: SIGSTOP (pid {self.pid})")
        os.kill(self.proc.pid, signal.SIGSTOP)
        self.paused = True

    def cont(self):
        log(f"node {self.id}: SIGCONT (pid {self.pid})")
        os.kill(self.proc.pid, signal.SIGCONT)
        self.paused = False

    def restart(self, overrides=None):
        if self.alive():
            self.stop()
        return self.start(overrides)

    def wait_exit(self, timeout):
        return self.proc.wait(timeout=timeout)

    def log_text(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def http(self, method, path, body=None, timeout=10):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"http://{self.host}:{self.http_port}{path}", data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                text = r.read().decode()
                return r.status, json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            text = e.read().decode()
            try:
                return e.code, json.loads(text)
            except ValueError:
                return e.code, text

    def partitions(self, topic=None):
        """This node's view (GET /v1/partitions): leader, epoch, ISR, and its
        own replica's role, LEO and HW."""
        status, body = self.http("GET", "/v1/partitions" + (f"?topic={topic}" if topic else ""))
        if status != 200:
            raise AssertionError(f"node {self.id}: GET /v1/partitions answered {status}: {body}")
        return body.get("partitions", []) if isinstance(body, dict) else body

    def replica_dir(self, topic, partition):
        return os.path.join(self.data, f"broker-{self.id}", f"{topic}-{partition}")

    def replica_log(self, topic, partition):
        return read_segments(self.replica_dir(topic, partition))

    def replica_batches(self, topic, partition):
        return read_batches(self.replica_dir(topic, partition))

    def metadata(self, timeout_s=3):
        return kcat_metadata(self.bootstrap, timeout_s)


def kcat_metadata(bootstrap, timeout_s=3):
    """Metadata through the Kafka port (kcat -L -J), or None when it fails."""
    r = subprocess.run(["kcat", "-b", bootstrap, "-L", "-J", "-m", str(timeout_s)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout_s + 10)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


# -- clients -------------------------------------------------------------------------------


class Ack:
    __slots__ = ("t", "value", "partition", "offset")

    def __init__(self, t, value, partition, offset):
        self.t, self.value, self.partition, self.offset = t, value, partition, offset


class ProducerLoop(threading.Thread):
    """A librdkafka producer (acks=all) sending `rate` records a second,
    each with a unique value, to `partition` (or all partitions); keeps
    every delivery report with its time."""

    def __init__(self, bootstrap, topic, partition=None, rate=200, conf=None, prefix="r"):
        super().__init__(daemon=True)
        base = {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "linger.ms": 5,
            "request.timeout.ms": 5000,
            "message.timeout.ms": 60000,
            "retry.backoff.ms": 100,
            "topic.metadata.refresh.interval.ms": 1000,
            "socket.connection.setup.timeout.ms": 3000,
            "log_level": 2,  # librdkafka's connection errors are expected here
        }
        base.update(conf or {})
        self.producer = Producer(base)
        self.topic, self.partition, self.rate, self.prefix = topic, partition, rate, prefix
        self.acked, self.failed = [], []
        self.sent = 0
        self.lock = threading.Lock()
        self._halt = threading.Event()
        self.paused = threading.Event()
        self.fatal = None  # the error that ended the producer, if one did

    def _report(self, err, msg):
        now = time.monotonic()
        value = msg.value().decode()
        with self.lock:
            if err is None:
                self.acked.append(Ack(now, value, msg.partition(), msg.offset()))
            else:
                self.failed.append((now, value, err.name()))

    def run(self):
        interval = 1.0 / self.rate
        next_at = time.monotonic()
        while not self._halt.is_set():
            if not self.paused.is_set():
                value = f"{self.prefix}-{self.sent}"
                kwargs = {"on_delivery": self._report}
                if self.partition is not None:
                    kwargs["partition"] = self.partition
                try:
                    self.producer.produce(self.topic, value.encode(), **kwargs)
                    self.sent += 1
                except BufferError:
                    pass
                except KafkaException as e:  # librdkafka's fatal errors
                    self.fatal = e
                    log(f"producer {self.prefix}: {e}")
                    return
            self.producer.poll(0)
            next_at += interval
            delay = next_at - time.monotonic()
            if delay > 0:
                self._halt.wait(delay)
            else:
                next_at = time.monotonic()

    def stop(self, flush_timeout=60):
        self._halt.set()
        self.join(timeout=10)
        try:
            return self.producer.flush(flush_timeout)
        except KafkaException as e:  # a fatal error: nothing more is sent
            self.fatal = self.fatal or e
            return len(self.producer)

    def acks_between(self, t0, t1, partition=None):
        with self.lock:
            return [a for a in self.acked if t0 <= a.t < t1 and (partition is None or a.partition == partition)]


def fill(bootstrap, topic, partitions, megabytes, value_bytes=16384):
    """`megabytes` MiB of acks=all records spread over `partitions`."""
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 10, "batch.size": 262144, "log_level": 2})
    value = b"x" * value_bytes
    count = megabytes * (1 << 20) // value_bytes
    failed = []
    for i in range(count):
        while True:
            try:
                p.produce(topic, value, partition=i % partitions, on_delivery=lambda err, msg: err and failed.append(err))
                break
            except BufferError:
                p.poll(0.05)
        p.poll(0)
    check(p.flush(60) == 0 and not failed, f"filling {topic}: {failed[:3]}")
    return count * value_bytes


def read_partition(bootstrap, topic, partition, timeout=30):
    """[(offset, value)] of a partition up to its high watermark (kcat)."""
    r = subprocess.run(
        ["kcat", "-b", bootstrap, "-C", "-t", topic, "-p", str(partition), "-o", "beginning", "-e", "-q", "-f", "%o\t%s\n", "-X", "fetch.wait.max.ms=100"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=timeout,
    )
    if r.returncode != 0:
        raise AssertionError(f"kcat could not read {topic}-{partition}: {r.stderr.strip()}")
    out = []
    for line in r.stdout.splitlines():
        offset, _, value = line.partition("\t")
        out.append((int(offset), value))
    return out


def acked_end(acked, partition):
    """One past the highest offset acknowledged in `partition` (0 if none)."""
    return max((a.offset + 1 for a in acked if a.partition == partition and a.offset is not None and a.offset >= 0), default=0)


def read_through(c, topic, partition, end, node=None, timeout=20):
    """[(offset, value)] of a partition up to its high watermark, read again
    until that high watermark reaches `end` (or `timeout` passes: then the
    last read, for the caller's check to report). A leader elected a moment
    ago can know a lower high watermark than its predecessor acknowledged: a
    follower learns the high watermark one fetch late, in Kafka too, and the
    new leader advances it once its followers fetch from it (see
    docs/ARCHITECTURE.md, replication). `node` pins the reader to one broker;
    by default it is the partition's leader at each try."""
    deadline = time.monotonic() + timeout
    while True:
        reader = node if node is not None else c.leader(topic, partition)
        if reader is None:
            check(time.monotonic() < deadline, f"{topic}-{partition} has had no leader for {timeout} s")
        else:
            records = read_partition(reader.bootstrap, topic, partition)
            if end <= 0 or (records and records[-1][0] + 1 >= end) or time.monotonic() >= deadline:
                return records
        time.sleep(0.2)


def read_acknowledged(c, topic, partition, acked, node=None, timeout=20):
    """read_through() up to the last acknowledged offset of `partition`."""
    return read_through(c, topic, partition, acked_end(acked, partition), node=node, timeout=timeout)


def first_ack_of_epoch(c, prod, topic, partition, state, timeout=30):
    """When `prod` had the first record of the leader epoch in `state`
    acknowledged, the offset where that epoch starts read from the new
    leader's segment files: an answer the old leader sent just before a
    fault can arrive after it, so neither time nor offset alone tells the
    two apart."""
    leader = c.node(state["leader"])

    def found():
        start = min((o for o, e, _ in leader.replica_log(topic, partition) if e == state["leader_epoch"]), default=None)
        if start is None:
            return None
        with prod.lock:
            times = [a.t for a in prod.acked if a.partition == partition and a.offset >= start]
        return min(times) if times else None

    return wait_for(f"an acknowledgement by the new leader of {topic}-{partition}", found, timeout, interval=0.05)


def check_acknowledged_present(acked, records, topic, partition):
    """Every acknowledged record is in the partition at the offset its
    acknowledgement named."""
    at = dict(records)
    missing = [a for a in acked if a.partition == partition and at.get(a.offset) != a.value]
    if missing:
        sample = ", ".join(f"{a.value}@{a.offset} (found {at.get(a.offset)!r})" for a in missing[:5])
        raise AssertionError(f"{len(missing)} acknowledged records of {topic}-{partition} are missing: {sample}")


# -- the cluster ------------------------------------------------------------------------------


class Cluster:
    def __init__(self, troupe, session_timeout_ms=4000, props=None, topology=None):
        self.troupe = troupe
        self.session_timeout_ms = session_timeout_ms
        self.props = {
            "min.insync.replicas": 2,
            "replica.lag.time.max.ms": 3000,
            "replica.fetch.wait.max.ms": 200,
            "replica.fetch.backoff.ms": 200,
            "group.initial.rebalance.delay.ms": 0,
            "troupe.cluster.connection.timeout.ms": 3000,
        }
        if admin_enable_supported(troupe):
            self.props["troupe.http.admin.enable"] = "true"
        if topology:
            # The namespaces' addresses are not loopback: a node refuses
            # unauthenticated node links there unless told they are meant.
            self.props["troupe.cluster.security"] = "plaintext"
        self.props.update(props or {})
        self.topology = topology
        self.dir = tempfile.mkdtemp(prefix="troupe-cluster-test-")
        self.zk_dir = os.path.join(self.dir, "zookeeper")
        self.zk_host = topology.address["zk"] if topology else "127.0.0.1"
        self.zk_port = None
        self.zk_connect = None
        self.nodes = []
        self.started_pids = set()
        self._zk = None

    # -- ZooKeeper --

    def start_zookeeper(self, port=None):
        env = dict(os.environ)
        if port:
            env["ZK_PORT"] = str(port)
        env["ZK_BIND"] = self.zk_host
        cmd = [ZK_SH, "start", self.zk_dir]
        if self.topology:
            cmd = self.topology.exec_prefix("zk") + cmd
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=60)
        if r.returncode != 0:
            raise AssertionError(f"ZooKeeper did not start: {r.stderr.strip()}")
        self.zk_connect = r.stdout.strip().splitlines()[-1]
        self.zk_port = int(self.zk_connect.rsplit(":", 1)[1])
        with open(os.path.join(self.zk_dir, "zookeeper.pid")) as f:
            self.started_pids.add(int(f.read()))
        log(f"ZooKeeper at {self.zk_connect}")
        return self.zk_connect

    def stop_zookeeper(self):
        """kill -9 of the server (zk_server.sh stop)."""
        subprocess.run([ZK_SH, "stop", self.zk_dir], timeout=30)
        log("ZooKeeper stopped")

    @property
    def zk(self):
        if self._zk is None:
            # Reconnects within a second once a stopped ZooKeeper is back.
            retry = {"max_tries": -1, "delay": 0.1, "backoff": 1.5, "max_delay": 1}
            self._zk = KazooClient(hosts=self.zk_connect, timeout=10, connection_retry=retry)
            self._zk.start(timeout=15)
        return self._zk

    def zk_get_json(self, path):
        try:
            data, stat = self.zk.get(path)
        except NoNodeError:
            return None
        return json.loads(data) if data else None

    def registered(self):
        try:
            return sorted(int(i) for i in self.zk.get_children("/brokers/ids"))
        except NoNodeError:
            return []

    def controller(self):
        c = self.zk_get_json("/controller")
        return c["brokerid"] if c else None

    def controller_epoch(self):
        try:
            data, _ = self.zk.get("/controller_epoch")
            return int(data)
        except NoNodeError:
            return None

    def partition_state(self, topic, partition):
        return self.zk_get_json(f"/brokers/topics/{topic}/partitions/{partition}/state")

    def topic_partitions(self, topic):
        a = self.zk_get_json(f"/brokers/topics/{topic}")
        return sorted(int(p) for p in a["partitions"]) if a else []

    def all_states(self):
        out = {}
        try:
            topics = self.zk.get_children("/brokers/topics")
        except NoNodeError:
            return out
        for t in topics:
            for p in self.topic_partitions(t):
                out[(t, p)] = self.partition_state(t, p)
        return out

    # -- nodes --

    def add_node(self, broker_id=None, netns=None):
        if broker_id is None:
            broker_id = len(self.nodes) + 1
        if self.topology:
            host = self.topology.address[netns]
            k, c, h = 9092, 9190, 8080
        else:
            host = "127.0.0.1"
            k, c, h = free_ports(3)
        node = Node(self, broker_id, host, k, c, h, netns)
        self.nodes.append(node)
        return node

    def node(self, broker_id):
        for n in self.nodes:
            if n.id == broker_id:
                return n
        raise KeyError(broker_id)

    def start(self, n=3, wait=True):
        if not self.zk_connect:
            self.start_zookeeper()
        for i in range(n):
            self.add_node(netns=f"n{i + 1}" if self.topology else None).start()
        if wait:
            self.wait_ready([x.id for x in self.nodes])
        return self

    def wait_ready(self, ids, timeout=60):
        """Every broker of `ids` registered, a controller among them,
        __consumer_offsets created when enough brokers are, and each node's
        Kafka listener listing every broker."""
        ids = sorted(ids)
        wait_for(f"brokers {ids} registered", lambda: self.registered() == ids, timeout)
        wait_for("a controller", lambda: self.controller() in ids, timeout)
        rf = int(self.props.get("offsets.topic.replication.factor", 3))
        if len(ids) >= rf:
            wait_for(f"{OFFSETS_TOPIC} with a leader per partition", lambda: self.topic_led(OFFSETS_TOPIC), timeout)
        for i in ids:
            node = self.node(i)
            wait_for(f"node {i}'s metadata listing brokers {ids}", lambda: sorted(b["id"] for b in (node.metadata() or {}).get("brokers", [])) == ids, timeout)
        log(f"cluster ready: brokers {ids}, controller {self.controller()} (epoch {self.controller_epoch()})")

    def topic_led(self, topic, isr_size=None):
        parts = self.topic_partitions(topic)
        if not parts:
            return False
        for p in parts:
            s = self.partition_state(topic, p)
            if not s or s["leader"] < 0 or (isr_size and len(s["isr"]) != isr_size):
                return False
        return True

    def create_topic(self, name, partitions, rf, via=None, timeout=30):
        via = via or self.live_nodes()[0]
        status, body = via.http("POST", "/v1/topics", {"name": name, "partitions": partitions, "replication_factor": rf})
        if status not in (200, 201):
            raise AssertionError(f"POST /v1/topics {name} answered {status}: {body}")
        wait_for(f"topic {name} led with full ISRs", lambda: self.topic_led(name, isr_size=rf), timeout)
        for n in self.live_nodes():
            wait_for(f"node {n.id} knowing {name}", lambda: any(t["topic"] == name and all(p["leader"] >= 0 for p in t["partitions"]) for t in (n.metadata() or {}).get("topics", [])), timeout)
        return name

    def set_topic_configs(self, topic, **configs):
        """`troupe configs --alter` of a topic's overrides (dots as
        underscores in the names: min_insync_replicas=1)."""
        pairs = ",".join(f"{k.replace('_', '.')}={v}" for k, v in configs.items())
        r = subprocess.run([self.troupe, "configs", "--bootstrap-server", self.bootstrap(), "--alter", "--entity-type", "topics", "--entity-name", topic, "--add-config", pairs], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
        if r.returncode != 0:
            raise AssertionError(f"configs --alter {topic} {pairs}: {r.stderr.strip()}")

    def live_nodes(self):
        return [n for n in self.nodes if n.alive() and not n.paused]

    def leader(self, topic, partition):
        s = self.partition_state(topic, partition)
        return self.node(s["leader"]) if s and s["leader"] >= 0 else None

    def bootstrap(self, exclude=()):
        return ",".join(n.bootstrap for n in self.nodes if n not in exclude)

    def wait_isr(self, topic, partition, isr, timeout):
        want = sorted(isr)
        return wait_for(f"{topic}-{partition} ISR {want}", lambda: sorted(self.partition_state(topic, partition)["isr"]) == want, timeout)

    # -- the end --

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        failed = exc_type is not None
        if failed:
            self.dump_logs()
        self.teardown()
        left = leftover_processes(self.dir) + [p for p in self.started_pids if pid_alive(p)]
        if left:
            for pid in set(left):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            if not failed:
                raise AssertionError(f"processes left after the test: {sorted(set(left))}")
        if os.environ.get("TROUPE_KEEP_TEST_DIR"):
            log(f"kept {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def teardown(self):
        if self._zk is not None:
            with contextlib.suppress(Exception):
                self._zk.stop()
                self._zk.close()
            self._zk = None
        for n in self.nodes:
            if n.alive():
                if n.paused:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(n.pid, signal.SIGCONT)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(n.pid, signal.SIGKILL)
                with contextlib.suppress(Exception):
                    n.proc.wait(timeout=10)
        if os.path.isdir(self.zk_dir):
            subprocess.run([ZK_SH, "stop", self.zk_dir], timeout=30)

    def dump_logs(self, lines=40):
        for n in self.nodes:
            text = n.log_text().splitlines()
            print(f"---- node {n.id} ({n.log_path}), last {lines} lines", flush=True)
            print("\n".join(text[-lines:]), flush=True)


def pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def leftover_processes(marker):
    """Pids whose command line mentions `marker` (the test's directory)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        if marker in cmd and pid_alive(int(entry)):
            out.append(int(entry))
    return out


_admin_flag = {}


def admin_enable_supported(troupe):
    if troupe not in _admin_flag:
        r = subprocess.run([troupe, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        _admin_flag[troupe] = "troupe.http.admin.enable" in r.stdout
    return _admin_flag[troupe]


# -- running a test case --------------------------------------------------------------------


class Deadline(Exception):
    pass


def bare_asserts(*paths):
    """file:line of every `assert` statement in `paths`: `python3 -O`
    strips them, so a case that relied on one would pass whatever
    happened."""
    found = []
    for path in paths:
        with open(path) as f:
            tree = ast.parse(f.read(), path)
        found += [f"{os.path.basename(path)}:{n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    return found


def main(cases, argv):
    """argv: TROUPE CASE. Runs one case within its time budget (SIGALRM
    raises inside it, so its `with Cluster` still stops every process).
    Exits 0 only when the case ran to its end; a failed check, an error or
    the budget's end print FAIL with the reason and exit 1."""
    if len(argv) != 3 or argv[2] not in cases:
        print(f"usage: {argv[0]} TROUPE CASE; cases: {', '.join(cases)}", file=sys.stderr)
        return 2
    troupe, name = os.path.abspath(argv[1]), argv[2]
    fn, budget = cases[name]
    stripped = bare_asserts(os.path.abspath(sys.modules[fn.__module__].__file__), os.path.abspath(__file__))
    if stripped:
        log(f"FAIL {name}: assert statements, which python3 -O strips, at {', '.join(stripped)}; use check()")
        return 1
    if not __debug__:
        log("python3 -O: assert statements are off; the checks run all the same")

    def on_alarm(signum, frame):
        raise Deadline(f"case {name} ran past its budget of {budget} s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGTERM, on_alarm)
    signal.alarm(budget)
    random.seed()
    t0 = time.monotonic()
    try:
        fn(troupe)
    except BaseException as e:
        signal.alarm(0)
        traceback.print_exc()
        log(f"FAIL {name} after {time.monotonic() - t0:.1f} s: {type(e).__name__}: {e}")
        return 1
    signal.alarm(0)
    log(f"PASS {name} in {time.monotonic() - t0:.1f} s")
    return 0
