#!/usr/bin/python3
"""A seeded fault-injection checker over a real cluster of troupe
processes, after Jepsen's Kafka workload (docs/ARCHITECTURE.md §7):

    nemesis.py TROUPE [--seed N] [--seconds S] [--interval S]

Three nodes and ZooKeeper, each in its own network namespace on one
bridge (the checker itself in a sixth, `client`), a topic of 4 partitions
with replication factor 3 and min.insync.replicas=2 on them, then a fourth
node that the reassignments move replicas onto and off. --loopback runs
everything on 127.0.0.1 instead, without the partition fault.

Workload: two idempotent acks=all producers (librdkafka), a classic
consumer group of two members (librdkafka) and a KIP-848 group of two
(@platformatic/kafka, tests/cluster/nemesis_member.mjs), both committing as
they go, a watcher of every partition's high watermark, a watcher of the
KIP-848 group's assignments at its coordinator, and at the end a reader of
every partition.

Faults, drawn from random.Random(seed) (the seed is printed; the same seed
draws the same faults): kill -9 of a random node, of the controller's node
and of the group coordinator's node (each restarted a few seconds later),
SIGSTOP shorter and longer than broker.session.timeout.ms, a ZooKeeper
restart, a reassignment (one partition's replica swapped for a broker
that does not hold it, `troupe reassign --execute`) with a kill -9 of a
random node while it runs, a node that joins (a fifth, with a new
broker id each time), takes a replica by reassignment while a kill -9
hits another node, and is then decommissioned (every replica it holds
reassigned off it, then a controlled shutdown), and a network partition (`ip netns` blackhole
routes) that cuts a partition leader off from every other node while a
producer of its own keeps writing to it: the client side stays with the
cut leader, as a client on the leader's side of a real partition does.

Checks, each counted as an anomaly:
- lost: an acknowledged record missing from its partition at its offset;
- duplicate: a value present twice;
- inconsistent: one offset read with two values (by the group and the
  reader);
- nonmonotonic: a consumer reading a partition it owns at an offset not
  above the last it read there, within one ownership;
- double-owner: a partition assigned to two members of the classic group
  at once (their rebalance callbacks), or held by two members of the
  KIP-848 group (assignment or pending revocation) in one snapshot of the
  coordinator's (GET /v1/groups/{g}, every 100 ms);
- hw-back: a partition's high watermark seen going backwards.
A cut-off leader that acknowledged a write shows up as "lost": the write
is truncated when the leader rejoins, since the others have written
other records at those offsets meanwhile.

Prints one summary line (faults by kind, records, anomalies, the longest
gap between acknowledgements per fault kind) and exits 1 on any anomaly.
The KIP-848 members' reads are checked for consistency with the log;
their order is not (the client library has no revocation callback that
marks where one ownership ends).
"""

import argparse
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import Consumer, TopicPartition  # noqa: E402

from cluster_fixture import (  # noqa: E402
    OFFSETS_TOPIC,
    Cluster,
    ProducerLoop,
    Topology,
    coordinator_partition,
    log,
    read_acknowledged,
    wait_for,
)

HERE = os.path.dirname(os.path.abspath(__file__))
PARTITIONS = 4
GROUP = "nemesis"
GROUP_848 = "nemesis-848"
CUT_S = (2.0, 6.0)  # how long a network partition lasts
CHILDREN = []  # the KIP-848 members' processes, killed however the run ends
STOP_SHORT_S = 1.0
STOP_LONG_S = 3.5  # above broker.session.timeout.ms (2 s), below ZooKeeper's 6 s


class Member:
    """A classic group member that records what it reads and when it owns
    what (its callbacks run on the polling thread, one member at a time)."""

    def __init__(self, name, bootstrap, topic, owners, anomalies):
        self.name, self.owners, self.anomalies = name, owners, anomalies
        self.owned = set()
        self.last = {}  # partition -> last offset read within this ownership
        self.reads = []  # (partition, offset, value)
        self.consumer = Consumer({
            "bootstrap.servers": bootstrap,
            "group.id": GROUP,
            "client.id": name,
            "auto.offset.reset": "earliest",
            "enable.auto.commit": True,
            "auto.commit.interval.ms": 500,
            "session.timeout.ms": 10000,
            "heartbeat.interval.ms": 1000,
            "fetch.wait.max.ms": 100,
            "topic.metadata.refresh.interval.ms": 1000,
            "socket.connection.setup.timeout.ms": 3000,
            # NEMESIS_RDKAFKA_DEBUG=consumer,fetch turns on librdkafka's
            # debug log (to stderr): why a member reset its position.
            **({"debug": os.environ["NEMESIS_RDKAFKA_DEBUG"], "log_level": 7} if os.environ.get("NEMESIS_RDKAFKA_DEBUG") else {"log_level": 0}),
        })
        self.consumer.subscribe([topic], on_assign=self._assign, on_revoke=self._revoke)

    def _assign(self, consumer, partitions):
        for tp in partitions:
            holder = self.owners.get(tp.partition)
            if holder not in (None, self.name):
                self.anomalies["double-owner"].append(f"{tp.partition} assigned to {self.name} while {holder} owns it")
            self.owners[tp.partition] = self.name
            self.owned.add(tp.partition)
            self.last.pop(tp.partition, None)

    def _revoke(self, consumer, partitions):
        for tp in partitions:
            if self.owners.get(tp.partition) == self.name:
                del self.owners[tp.partition]
            self.owned.discard(tp.partition)

    def poll(self):
        msg = self.consumer.poll(0.05)
        if msg is None:
            return
        if msg.error():
            # A position reset (auto.offset.reset, log truncation) shows
            # here first: logged with the time, to line up with the faults
            # and the nodes' logs.
            log(f"nemesis: member {self.name}: {msg.error()} (partition {msg.partition()})")
            return
        p, o = msg.partition(), msg.offset()
        if p not in self.owned:
            self.anomalies["double-owner"].append(f"{self.name} read {p}@{o} without owning it")
        if p in self.last and o <= self.last[p]:
            self.anomalies["nonmonotonic"].append(f"{self.name} read {p}@{o} after {p}@{self.last[p]}")
            log(f"nemesis: anomaly: {self.name} read {p}@{o} after {p}@{self.last[p]}")
        self.last[p] = o
        self.reads.append((p, o, msg.value().decode()))


class Kip848Member:
    """A KIP-848 member in its own process (nemesis_member.mjs): what it
    read, and the errors its client reported."""

    def __init__(self, name, bootstrap, topic, log_dir):
        self.name = name
        self.reads = []  # (partition, offset, value)
        self.errors = []
        self.assignments = 0
        # Its client's own log (NEMESIS_CLIENT_DEBUG=plt:kafka:* turns on
        # @platformatic/kafka's debug output) goes to a file beside the
        # nodes' logs.
        env = dict(os.environ)
        if os.environ.get("NEMESIS_CLIENT_DEBUG"):
            env["DEBUG"] = os.environ["NEMESIS_CLIENT_DEBUG"]
        self.log_path = os.path.join(log_dir, f"kip848-{name}.log")
        with open(self.log_path, "a") as err:
            self.proc = subprocess.Popen(["node", os.path.join(HERE, "nemesis_member.mjs"), bootstrap, GROUP_848, topic, name],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        CHILDREN.append(self.proc)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                self.errors.append(line.strip())
                continue
            if "r" in ev:
                p, o, v = ev["r"]
                self.reads.append((p, o, v))
            elif "a" in ev:
                self.assignments += 1
                log(f"nemesis: KIP-848 member {self.name} owns {ev['a']}")
            elif "e" in ev:
                self.errors.append(ev["e"])
                log(f"nemesis: KIP-848 member {self.name}: {ev['e'][:200]}")

    def stop(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.reader.join(timeout=10)


class GroupWatcher(threading.Thread):
    """Snapshots the KIP-848 group at its coordinator (GET /v1/groups/{g}
    of any live node) and checks that no partition is held by two members:
    in one member's assignment or pending revocation, never in another's."""

    def __init__(self, cluster, topic, anomalies):
        super().__init__(daemon=True)
        self.cluster, self.topic, self.anomalies = cluster, topic, anomalies
        self.snapshots = 0
        self.whole = 0  # snapshots in which the members held every partition
        self.halt = threading.Event()

    def _held(self, member):
        held = set()
        for key in ("assignment", "pending_revocation", "pendingRevocation"):
            for tp in member.get(key) or []:
                if tp.get("topic") == self.topic:
                    held.update(tp.get("partitions") or [])
        return held

    def run(self):
        rng = random.Random(1)
        while not self.halt.is_set():
            live = [n for n in self.cluster.nodes if n.alive() and not n.paused]
            if live:
                try:
                    status, body = rng.choice(live).http("GET", f"/v1/groups/{GROUP_848}", timeout=2)
                except Exception:  # a node going away: asked again next round
                    status, body = None, None
                if status == 200 and isinstance(body, dict):
                    self.snapshots += 1
                    owner = {}
                    for m in body.get("members") or []:
                        mid = m.get("member_id") or m.get("memberId")
                        for p in self._held(m):
                            if p in owner and owner[p] != mid:
                                self.anomalies["double-owner"].append(f"{GROUP_848}: partition {p} held by {owner[p]} and {mid} in epoch {body.get('group_epoch', body.get('groupEpoch'))}")
                            owner[p] = mid
                    self.whole += set(owner) == set(range(PARTITIONS))
            self.halt.wait(0.1)


class Watermarks(threading.Thread):
    """Polls every partition's high watermark (ListOffsets latest)."""

    def __init__(self, bootstrap, topic, anomalies):
        super().__init__(daemon=True)
        self.topic, self.anomalies = topic, anomalies
        self.high = {}
        self.halt = threading.Event()
        self.consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "nemesis-watermarks", "log_level": 0, "socket.connection.setup.timeout.ms": 3000})

    def run(self):
        while not self.halt.is_set():
            for p in range(PARTITIONS):
                try:
                    _, hw = self.consumer.get_watermark_offsets(TopicPartition(self.topic, p), timeout=1, cached=False)
                except Exception:  # a leader moving: asked again next round
                    continue
                if hw < self.high.get(p, -1):
                    self.anomalies["hw-back"].append(f"{self.topic}-{p} high watermark {self.high[p]} -> {hw}")
                self.high[p] = max(hw, self.high.get(p, -1))
            self.halt.wait(0.2)


def longest_gap(acks, t0, t1):
    """The longest stretch in [t0, t1] without any acknowledgement."""
    times = sorted(a.t for a in acks if t0 <= a.t <= t1)
    if not times:
        return t1 - t0
    edges = [t0] + times + [t1]
    return max(b - a for a, b in zip(edges, edges[1:]))


def execute_plan(c, troupe, moves, plan_dir):
    """`troupe reassign --execute` of [(topic, partition, replicas)]."""
    path = os.path.join(plan_dir, "plan.json")
    with open(path, "w") as f:
        json.dump({"version": 1, "partitions": [{"topic": t, "partition": p, "replicas": r} for t, p, r in moves]}, f)
    for _ in range(10):
        r = subprocess.run([troupe, "reassign", "--bootstrap-server", c.bootstrap(), "--execute", "--additional", "--reassignment-json-file", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        if r.returncode == 0:
            return
        time.sleep(0.5)  # e.g. the controller just moved
    raise AssertionError(f"reassign --execute of {moves}: {r.stdout} {r.stderr}")


def reassign_one(c, troupe, topic, rng, plan_dir, joining=None):
    """Moves one random partition's replica to a broker that does not hold
    it (`joining`, or one drawn at random); returns (partition, target)."""
    p = rng.randrange(PARTITIONS)
    current = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"][str(p)]
    ids = sorted(n.id for n in c.nodes)
    leaving = rng.choice(current)
    if joining is None:
        joining = rng.choice([b for b in ids if b not in current])
    target = [joining if b == leaving else b for b in current]
    execute_plan(c, troupe, [(topic, p, target)], plan_dir)
    return p, target


def decommission_moves(c, broker, rng):
    """Every partition of every topic with a replica on `broker`, that
    replica swapped for a broker of the rest that does not hold one."""
    rest = sorted(n.id for n in c.nodes if n.id != broker)
    moves = []
    for t in c.zk.get_children("/brokers/topics"):
        for p, replicas in sorted(c.zk_get_json(f"/brokers/topics/{t}")["partitions"].items(), key=lambda kv: int(kv[0])):
            if broker in replicas:
                spare = rng.choice([b for b in rest if b not in replicas])
                moves.append((t, int(p), [spare if b == broker else b for b in replicas]))
    return moves


def no_reassignments(c, troupe):
    r = subprocess.run([troupe, "reassign", "--bootstrap-server", c.bootstrap(), "--list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    return r.returncode == 0 and "No partition reassignments found." in r.stdout


def run(troupe, seed, seconds, interval, loopback, every_kind=False):
    topo = None
    if not loopback:
        topo = Topology(["zk", "n1", "n2", "n3", "n4", "client", "n5"])
    try:
        if topo:
            topo.create()
            topo.enter("client")
        return run_in(troupe, seed, seconds, interval, topo, every_kind)
    finally:
        for proc in CHILDREN:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
        if topo:
            topo.destroy()
            left = topo.leftovers()
            if left:
                log(f"nemesis: namespaces left: {left}")


def run_in(troupe, seed, seconds, interval, topo, every_kind=False):
    rng = random.Random(seed)
    log(f"nemesis: seed {seed} (replay: nemesis.py TROUPE --seed {seed} --seconds {seconds}{' --loopback' if not topo else ''}{' --every-kind' if every_kind else ''})")
    anomalies = collections.defaultdict(list)
    faults = []  # (kind, t_start, t_end)
    kip848 = []
    with Cluster(troupe, session_timeout_ms=6000, props={"group.initial.rebalance.delay.ms": 0}, topology=topo) as c, tempfile.TemporaryDirectory(prefix="troupe-nemesis-") as plan_dir:
        c.start(3)
        topic = c.create_topic("nemesis", PARTITIONS, 3)
        c.add_node(netns="n4" if topo else None).start()
        c.wait_ready([n.id for n in c.nodes])
        idempotent = {"enable.idempotence": True, "message.timeout.ms": 300000, "request.timeout.ms": 5000}
        producers = [ProducerLoop(c.bootstrap(), topic, rate=150, prefix=f"p{i}", conf=idempotent) for i in range(2)]
        for prod in producers:
            prod.start()
        owners = {}
        members = [Member(f"m{i}", c.bootstrap(), topic, owners, anomalies) for i in range(2)]
        kip848 += [Kip848Member(f"k{i}", c.bootstrap(), topic, c.dir) for i in range(2)]
        group_watch = GroupWatcher(c, topic, anomalies)
        group_watch.start()
        watch = Watermarks(c.bootstrap(), topic, anomalies)
        watch.start()
        stop_polling = threading.Event()

        def poll_loop():
            while not stop_polling.is_set():
                for m in members:
                    m.poll()

        poller = threading.Thread(target=poll_loop, daemon=True)
        poller.start()
        acked = lambda: [a for prod in producers for a in prod.acked]  # noqa: E731
        wait_for("acknowledgements before the first fault", lambda: len(acked()) >= 200, 60)

        def restart_later(node, after):
            time.sleep(after)
            node.start()

        new_ids = iter(range(max(n.id for n in c.nodes) + 1, 1 << 20))  # grow-shrink's newcomers
        kinds = ["kill9", "kill9-controller", "kill9-coordinator", "stop-short", "stop-long", "zookeeper-restart", "reassign-kill9", "grow-shrink"] + (["partition-leader"] if topo else [])
        # --every-kind: each kind once first, in a seeded order, then drawn.
        first = rng.sample(kinds, len(kinds)) if every_kind else []
        end = time.monotonic() + seconds
        while time.monotonic() < end or (first and every_kind):
            kind = first.pop(0) if first else rng.choice(kinds)
            down = rng.uniform(1.0, 3.0)
            live = [n for n in c.nodes if n.alive() and not n.paused]
            t0 = time.monotonic()
            if kind == "partition-leader":
                states = {q: c.partition_state(topic, q) or {} for q in range(PARTITIONS)}
                leaders = {s.get("leader") for s in states.values()}
                node = rng.choice([n for n in live if n.id in leaders] or live)
                led = [q for q, s in states.items() if s.get("leader") == node.id] or [0]
                # A client on the cut leader's side: it knows only that
                # broker and writes to a partition it leads.
                pinned = ProducerLoop(node.bootstrap, topic, partition=led[0], rate=50, prefix=f"cut{len(faults)}", conf=idempotent)
                pinned.start()
                producers.append(pinned)
                time.sleep(0.5)
                log(f"nemesis: cutting node {node.id} (leads {led}) off from the other nodes")
                topo.cut(node.netns, [n.netns for n in c.nodes if n is not node])
                time.sleep(rng.uniform(*CUT_S))
                topo.heal()
                log(f"nemesis: node {node.id} healed")
            elif kind == "reassign-kill9":
                p, target = reassign_one(c, troupe, topic, rng, plan_dir)
                node = rng.choice(live)
                log(f"nemesis: {topic}-{p} moving to {target}; kill -9 of node {node.id}")
                time.sleep(rng.uniform(0.0, 0.5))
                node.kill9()
                restart_later(node, down)
            elif kind == "grow-shrink":
                # A node joins and takes a replica while a node is killed;
                # then it is decommissioned as a Kafka operator would: every
                # replica it holds moved off, then a controlled shutdown.
                # Each new node gets a new broker id (and a new log dir).
                newcomer = c.add_node(broker_id=next(new_ids), netns="n5" if topo else None)
                newcomer.start()
                c.wait_ready([n.id for n in c.nodes], timeout=90)
                p, target = reassign_one(c, troupe, topic, rng, plan_dir, joining=newcomer.id)
                node = rng.choice(live)
                log(f"nemesis: node {newcomer.id} joined; {topic}-{p} moving to {target}; kill -9 of node {node.id}")
                time.sleep(rng.uniform(0.0, 0.5))
                node.kill9()
                restart_later(node, down)
                c.wait_ready([n.id for n in c.nodes], timeout=90)
                wait_for("the reassignment onto the new node to complete", lambda: no_reassignments(c, troupe), 90, interval=0.5)
                moves = decommission_moves(c, newcomer.id, rng)
                log(f"nemesis: decommissioning node {newcomer.id}: {len(moves)} replicas to move off")
                if moves:
                    execute_plan(c, troupe, moves, plan_dir)
                    wait_for("the decommission's reassignment to complete", lambda: no_reassignments(c, troupe), 90, interval=0.5)
                left = decommission_moves(c, newcomer.id, rng)
                if left:
                    anomalies["stalled"].append(f"node {newcomer.id} still holds {left} after its decommission")
                newcomer.stop()
                c.nodes.remove(newcomer)
                log(f"nemesis: node {newcomer.id} stopped and removed")
            elif kind.startswith("kill9"):
                if kind == "kill9-controller":
                    target = c.controller()
                elif kind == "kill9-coordinator":
                    state = c.partition_state(OFFSETS_TOPIC, coordinator_partition(GROUP))
                    target = state["leader"] if state else None
                else:
                    target = rng.choice(live).id
                node = next((n for n in live if n.id == target), None) or rng.choice(live)
                node.kill9()
                restart_later(node, down)
            elif kind.startswith("stop"):
                node = rng.choice(live)
                node.pause()
                time.sleep(STOP_SHORT_S if kind == "stop-short" else STOP_LONG_S)
                node.cont()
            else:
                port = c.zk_port
                c.stop_zookeeper()
                time.sleep(down)
                c.start_zookeeper(port=port)
            # The cluster heals before the next fault: every node registered
            # and every partition of the topic led with a full ISR.
            c.wait_ready([n.id for n in c.nodes], timeout=90)
            wait_for("every ISR complete", lambda: c.topic_led(topic, isr_size=3), 90, interval=0.2)
            if kind == "reassign-kill9":
                wait_for("the reassignment to complete", lambda: no_reassignments(c, troupe), 90, interval=0.5)
                wait_for("every ISR complete", lambda: c.topic_led(topic, isr_size=3), 90, interval=0.2)
            t1 = time.monotonic()
            faults.append((kind, t0, t1))
            log(f"nemesis: {kind} healed after {t1 - t0:.1f} s")
            time.sleep(rng.uniform(0.5, interval))

        time.sleep(2)
        for prod in producers:
            prod.stop()
        stop_polling.set()
        poller.join(timeout=10)
        for w in (watch, group_watch):
            w.halt.set()
            w.join(timeout=10)
        for m in kip848:
            m.stop()

        # The reader: every partition up to its high watermark, once that
        # has reached the last acknowledged offset (a leader elected by the
        # last fault learns it from its followers' next fetch).
        final = {}
        everything = acked()
        for p in range(PARTITIONS):
            final[p] = read_acknowledged(c, topic, p, everything, timeout=60)
        values = collections.Counter(v for recs in final.values() for _, v in recs)
        at = {(p, o): v for p, recs in final.items() for o, v in recs}
        in_partition = {(p, v) for p, recs in final.items() for _, v in recs}
        for a in acked():
            if a.offset is None or a.offset < 0:
                # Acknowledged without an offset (librdkafka reports none for
                # a batch it knows persisted but got no offset for): it must
                # be in its partition somewhere.
                if (a.partition, a.value) not in in_partition:
                    anomalies["lost"].append(f"{a.value} acknowledged (no offset) on partition {a.partition}, not read")
                continue
            if at.get((a.partition, a.offset)) != a.value:
                anomalies["lost"].append(f"{a.value} acknowledged at {a.partition}@{a.offset}, read {at.get((a.partition, a.offset))}")
        for v, n in values.items():
            if n > 1:
                anomalies["duplicate"].append(f"{v} x{n}")
        for m in members:
            for p, o, v in m.reads:
                if (p, o) in at and at[(p, o)] != v:
                    anomalies["inconsistent"].append(f"{p}@{o}: {m.name} read {v}, the reader {at[(p, o)]}")
            m.consumer.close()
        for m in kip848:
            for p, o, v in m.reads:
                if (p, o) in at and at[(p, o)] != v:
                    anomalies["inconsistent"].append(f"{p}@{o}: {m.name} read {v}, the reader {at[(p, o)]}")
            log(f"nemesis: KIP-848 member {m.name}: {len(m.reads)} records read, {m.assignments} assignments, {len(m.errors)} client errors{' (' + m.errors[-1][:120] + ')' if m.errors else ''}")
        log(f"nemesis: {group_watch.snapshots} snapshots of {GROUP_848} at its coordinator, {group_watch.whole} with every partition held")
        if not any(m.reads for m in kip848) or not group_watch.whole:
            anomalies["stalled"].append(f"the KIP-848 group {GROUP_848} read nothing or never held every partition")
        failed = sum(len(prod.failed) for prod in producers)
        no_offset = sum(1 for a in acked() if a.offset is None or a.offset < 0)
        if no_offset:
            log(f"nemesis: {no_offset} acknowledgements carried no offset (checked by value)")

        kinds = collections.Counter(k for k, _, _ in faults)
        gaps = {}
        for k, t0, t1 in faults:
            gaps[k] = max(gaps.get(k, 0.0), longest_gap(acked(), t0, t1))
        counts = {k: len(anomalies[k]) for k in ("lost", "duplicate", "inconsistent", "nonmonotonic", "double-owner", "hw-back", "stalled")}
        summary = (
            f"nemesis: seed {seed}, {len(faults)} faults ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}), "
            f"{len(acked())} records acknowledged, {sum(len(r) for r in final.values())} read, {failed} failed, "
            f"anomalies {sum(counts.values())} ({', '.join(f'{k} {n}' for k, n in counts.items())}); "
            f"longest unavailability: {', '.join(f'{k} {g:.1f} s' for k, g in sorted(gaps.items()))}"
        )
        print(summary, flush=True)
        for k, items in anomalies.items():
            for item in items[:5]:
                log(f"anomaly {k}: {item}")
        return 1 if sum(counts.values()) else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("troupe")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--interval", type=float, default=3.0, help="most seconds between faults")
    ap.add_argument("--loopback", action="store_true", help="every process on 127.0.0.1 (no root needed; no network partitions)")
    ap.add_argument("--every-kind", action="store_true", help="each kind of fault once first (in a seeded order), however long that takes, then drawn at random until --seconds")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    # A bounded run: past its budget (or on SIGTERM) the exception unwinds
    # through `with Cluster`, which stops every process by pid.
    budget = int(args.seconds) + 240

    def on_alarm(signum, frame):
        raise TimeoutError(f"nemesis ran past its budget of {budget} s")

    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGTERM, on_alarm)
    signal.alarm(budget)
    return run(os.path.abspath(args.troupe), seed, args.seconds, args.interval, args.loopback, args.every_kind)


if __name__ == "__main__":
    sys.exit(main())
