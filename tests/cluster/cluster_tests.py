#!/usr/bin/python3
"""Multi-process cluster tests: ZooKeeper and troupe nodes as real
processes, librdkafka clients (confluent-kafka, kcat), what ZooKeeper holds
read with kazoo. One case per run:

    cluster_tests.py build/troupe CASE

Each case starts its own ZooKeeper and nodes on free ports with temporary
directories, runs within its own time budget and stops every process by pid
however it ends (tests/cluster/cluster_fixture.py).

What a case claims is observed from outside the nodes: ZooKeeper's znodes,
the answers of Kafka clients, the records and batch headers in the segment
files. troupe's own log lines are read only where the claim is that a node
reports something (an unreachable ZooKeeper, a taken broker.id, an unusable
log.dirs). Checks go through check(), never `assert`, which python3 -O
strips: main() refuses to run a case from a file that holds one, and a
failed check exits 1 with FAIL and its message.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

from cluster_fixture import (  # noqa: E402
    OFFSETS_TOPIC,
    Cluster,
    ProducerLoop,
    Topology,
    check,
    check_acknowledged_present,
    read_acknowledged,
    coordinator_partition,
    free_ports,
    kcat_metadata,
    log,
    main,
    wait_for,
)

FOREVER = float("inf")


def field(d, name, default=0):
    """A protobuf JSON field by its proto or lowerCamelCase name (defaults
    are left out)."""
    if name in d:
        return d[name]
    camel = name.split("_")[0] + "".join(w.title() for w in name.split("_")[1:])
    return d.get(camel, default)


def node_view(node, topic, partition):
    for p in node.partitions(topic):
        if field(p, "topic", "") == topic and field(p, "partition") == partition:
            return p
    return None


def partition_led_by_non_controller(c, topic):
    ctl = c.controller()
    for p in c.topic_partitions(topic):
        if c.partition_state(topic, p)["leader"] != ctl:
            return p
    raise AssertionError(f"every partition of {topic} is led by the controller {ctl}")


def check_replicas_converged(c, topic, partitions, timeout=30):
    """Every replica of each partition holds the same records, at the same
    offsets and leader epochs, as the leader's (read from the segment files):
    a divergent tail was truncated, the rest fetched."""
    for p in partitions:
        leader = c.leader(topic, p)
        replicas = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"][str(p)]

        def equal():
            want = leader.replica_log(topic, p)
            return all(c.node(r).replica_log(topic, p) == want for r in replicas)

        wait_for(f"the replicas of {topic}-{p} holding the leader's log", equal, timeout, interval=0.5)
        log(f"{topic}-{p}: {len(leader.replica_log(topic, p))} records, identical on brokers {replicas}")


# -- kill -9 of a leader's node ---------------------------------------------------------------


def leader_kill9(troupe):
    with Cluster(troupe) as c:
        c.start(3)
        topic = c.create_topic("orders", 3, 3)
        p = partition_led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        victim = c.node(before["leader"])
        log(f"{topic}-{p}: leader {victim.id}, leader epoch {before['leader_epoch']}, ISR {before['isr']}")
        followers = [c.node(r) for r in before["isr"] if r != victim.id]
        prod = ProducerLoop(c.bootstrap(), topic, partition=p, rate=300)
        prod.start()
        wait_for("200 acknowledged records", lambda: len(prod.acked) >= 200, 30)

        # The followers stop fetching for a moment (well short of
        # replica.lag.time.max.ms and the session timeout), so the leader
        # dies with records in its log that no follower holds and no acks=all
        # answer acknowledged: the tail its replica must truncate when it
        # comes back as a follower (KIP-101, KIP-279).
        for f in followers:
            f.pause()
        try:
            time.sleep(0.8)
            t_kill = time.monotonic()
            victim.kill9()
        finally:
            for f in followers:
                f.cont()
        killed_log = victim.replica_log(topic, p)
        after = wait_for(
            "a new leader of the partition",
            lambda: (s := c.partition_state(topic, p))["leader"] not in (-1, victim.id) and s,
            c.session_timeout_ms / 1000 + 20,
        )
        log(f"{topic}-{p}: leader {after['leader']}, leader epoch {after['leader_epoch']}, ISR {after['isr']} after {time.monotonic() - t_kill:.1f} s")
        check(after["leader_epoch"] == before["leader_epoch"] + 1, f"leader epoch {before['leader_epoch']} -> {after['leader_epoch']}")
        check(victim.id not in after["isr"], f"the killed broker {victim.id} is still in the ISR: {after}")
        new_leader = c.node(after["leader"])
        wait_for(
            "the new leader's own view of its epoch",
            lambda: (v := node_view(new_leader, topic, p)) and field(v, "leader") == new_leader.id and field(v, "leader_epoch") == after["leader_epoch"],
            10,
        )
        wait_for("acknowledgements from the new leader", lambda: len(prod.acks_between(t_kill + 0.1, FOREVER)) >= 100, 30)
        first = min(a.t for a in prod.acks_between(t_kill + 0.1, FOREVER))
        log(f"first acknowledgement after the kill: {first - t_kill:.2f} s (zookeeper.session.timeout.ms={c.session_timeout_ms})")
        # What the killed leader's files hold beyond the new leader's log:
        # records of the old epoch at offsets the new leader has filled
        # with its own epoch's, or past its end.
        led_log = set(new_leader.replica_log(topic, p))
        tail = [r for r in killed_log if r not in led_log]
        check(tail, f"the killed leader's log ({len(killed_log)} records) holds nothing the new leader lacks: no divergent tail to truncate")
        new_epoch_start = min((o for o, e, _ in led_log if e == after["leader_epoch"]), default=None)
        log(f"broker {victim.id} died with {len(tail)} records the new leader lacks (offsets {tail[0][0]}..{tail[-1][0]}, leader epoch {sorted({e for _, e, _ in tail})}); epoch {after['leader_epoch']} starts at offset {new_epoch_start}")

        victim.restart()
        c.wait_ready([1, 2, 3])
        c.wait_isr(topic, p, [1, 2, 3], 30)
        rejoined = c.partition_state(topic, p)
        check(rejoined["leader"] == new_leader.id and rejoined["leader_epoch"] == after["leader_epoch"], f"leadership changed when broker {victim.id} rejoined: {after} -> {rejoined}")
        time.sleep(1)
        check(prod.stop() == 0, "records still unacknowledged after 60 s")
        check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")

        records = read_acknowledged(c, topic, p, prod.acked, node=new_leader)
        check_acknowledged_present(prod.acked, records, topic, p)
        log(f"{len(prod.acked)} acknowledged records, all read back ({len(records)} in the partition)")
        check_replicas_converged(c, topic, [p])
        # The restarted replica ends where the leader's log does, with the
        # leader's epochs, and none of its old tail is left.
        rejoined_log = victim.replica_log(topic, p)
        leader_log = new_leader.replica_log(topic, p)
        held = set(rejoined_log)
        kept = [r for r in tail if r in held]
        check(not kept, f"broker {victim.id} still holds {len(kept)} records of its old tail after rejoining, e.g. {kept[:3]}")
        check(rejoined_log and rejoined_log[-1][0] == leader_log[-1][0], f"broker {victim.id}'s log ends at {rejoined_log[-1][0] if rejoined_log else None}, the leader's at {leader_log[-1][0]}")
        since = tail[0][0]
        check([(o, e) for o, e, _ in rejoined_log if o >= since] == [(o, e) for o, e, _ in leader_log if o >= since], f"broker {victim.id}'s offsets and leader epochs from offset {since} on differ from the leader's")
        log(f"broker {victim.id} truncated its {len(tail)}-record tail: its log ends at offset {rejoined_log[-1][0]} with the leader's, epochs {sorted({e for _, e, _ in rejoined_log})}")


# -- SIGSTOP ---------------------------------------------------------------------------------------


def paused_node(troupe):
    with Cluster(troupe) as c:
        c.start(3)
        topic = c.create_topic("paused", 3, 3)
        p = partition_led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        paused = c.node(before["leader"])
        led = [q for q in c.topic_partitions(topic) if c.partition_state(topic, q)["leader"] == paused.id]
        log(f"broker {paused.id} leads {topic} partitions {led}; {topic}-{p} at leader epoch {before['leader_epoch']}")
        general = ProducerLoop(c.bootstrap(), topic, rate=300, prefix="any")
        # Pinned to the paused leader's partition, with timeouts long enough
        # that its requests wait in the paused leader's socket and are read
        # after SIGCONT by a leader that has been deposed meanwhile.
        pinned = ProducerLoop(paused.bootstrap, topic, partition=p, rate=100, prefix="pinned", conf={"request.timeout.ms": 30000, "message.timeout.ms": 120000})
        general.start()
        pinned.start()
        wait_for("acknowledgements", lambda: len(general.acked) >= 200 and len(pinned.acked) >= 50, 30)

        t_pause = time.monotonic()
        paused.pause()
        wait_for(f"broker {paused.id}'s session to expire", lambda: paused.id not in c.registered(), c.session_timeout_ms / 1000 + 20)
        log(f"broker {paused.id} left /brokers/ids {time.monotonic() - t_pause:.1f} s after SIGSTOP")
        wait_for(f"broker {paused.id} out of every ISR", lambda: all(paused.id not in s["isr"] for s in c.all_states().values()), 20)
        moved = c.partition_state(topic, p)
        check(moved["leader"] != paused.id and moved["leader_epoch"] == before["leader_epoch"] + 1, f"{topic}-{p} not moved off broker {paused.id} with leader epoch + 1: {before} -> {moved}")
        t_moved = time.monotonic()
        deposed_logs = {q: paused.replica_log(topic, q) for q in led}
        wait_for("produce continuing on the new leader", lambda: len(general.acks_between(t_moved, FOREVER, partition=p)) >= 50, 30)

        t_cont = time.monotonic()
        paused.cont()
        wait_for(f"broker {paused.id} registered again", lambda: paused.id in c.registered(), 30)
        wait_for(f"broker {paused.id} back in every ISR", lambda: all(sorted(s["isr"]) == [1, 2, 3] for s in c.all_states().values()), 60, interval=0.5)
        log(f"broker {paused.id} back in every ISR {time.monotonic() - t_cont:.1f} s after SIGCONT")
        time.sleep(1)
        for prod in (general, pinned):
            check(prod.stop() == 0, "records still unacknowledged")
            check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")
        for q in c.topic_partitions(topic):
            records = read_acknowledged(c, topic, q, general.acked + pinned.acked)
            check_acknowledged_present(general.acked + pinned.acked, records, topic, q)
        late = pinned.acks_between(t_pause, FOREVER)
        log(f"{len(general.acked)} + {len(pinned.acked)} acknowledged records all read back; {len(late)} of the pinned producer's were acknowledged after SIGSTOP")
        check_replicas_converged(c, topic, c.topic_partitions(topic))
        dropped = {q: len(set(deposed_logs[q]) - set(paused.replica_log(topic, q))) for q in led}
        log(f"records broker {paused.id} held as the deposed leader and no longer holds, by partition: {dropped}")


# -- the controller's node dies --------------------------------------------------------------------


def controller_death(troupe):
    with Cluster(troupe) as c:
        c.start(3)
        old, epoch = c.controller(), c.controller_epoch()
        victim = c.node(old)
        t_kill = time.monotonic()
        victim.kill9()
        new = wait_for("another controller", lambda: (x := c.controller()) not in (None, old) and x, c.session_timeout_ms / 1000 + 20)
        elapsed = time.monotonic() - t_kill
        log(f"broker {new} became controller {elapsed:.1f} s after the kill (zookeeper.session.timeout.ms={c.session_timeout_ms}); controller epoch {epoch} -> {c.controller_epoch()}")
        check(c.controller_epoch() == epoch + 1, f"controller epoch {epoch} -> {c.controller_epoch()}, expected {epoch + 1}")
        wait_for(f"broker {old} out of every ISR and leadership", lambda: all(s["leader"] != old and old not in s["isr"] for s in c.all_states().values()), 20)

        victim.restart()
        c.wait_ready([1, 2, 3])
        check(c.controller() == new, "the controller moved back")
        survivor = next(n for n in c.nodes if n.id not in (new,))
        topic = c.create_topic("after-failover", 3, 3, via=survivor)
        p = partition_led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        leader = c.node(before["leader"])
        leader.kill9()
        after = wait_for("the leader to move", lambda: (s := c.partition_state(topic, p))["leader"] not in (-1, leader.id) and s, c.session_timeout_ms / 1000 + 20)
        check(after["leader_epoch"] == before["leader_epoch"] + 1, f"{topic}-{p}: leader epoch {before['leader_epoch']} -> {after['leader_epoch']}, expected + 1")
        log(f"{topic}-{p}: leader {before['leader']} -> {after['leader']}, epoch {before['leader_epoch']} -> {after['leader_epoch']}")
        prod = ProducerLoop(c.bootstrap(exclude=[leader]), topic, partition=p, rate=100)
        prod.start()
        wait_for("acks=all produce on the new leader", lambda: len(prod.acked) >= 20, 30)
        check(prod.stop() == 0 and not prod.failed, f"records unacknowledged or failed on the new leader: {prod.failed[:3]}")
        check_acknowledged_present(prod.acked, read_acknowledged(c, topic, p, prod.acked, node=c.node(after["leader"])), topic, p)


# -- a consumer group whose coordinator's node dies ------------------------------------------------


class GroupMember:
    def __init__(self, name, bootstrap, group, topic):
        self.name = name
        self.rebalances = 0
        self.assigned = []
        self.consumed = {}  # value -> (partition, offset)
        self.first = {}  # partition -> first offset consumed
        self.consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "client.id": name,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": True,
                "auto.commit.interval.ms": 500,
                "session.timeout.ms": 30000,
                "heartbeat.interval.ms": 1000,
                "fetch.wait.max.ms": 100,
                "topic.metadata.refresh.interval.ms": 1000,
                "socket.connection.setup.timeout.ms": 3000,
                "log_level": 2,
            }
        )
        self.consumer.subscribe([topic], on_assign=self._on_assign, on_revoke=self._on_revoke)

    def _on_assign(self, consumer, partitions):
        self.rebalances += 1
        self.assigned = sorted(tp.partition for tp in partitions)
        log(f"{self.name}: assigned {self.assigned} (assignment {self.rebalances})")

    def _on_revoke(self, consumer, partitions):
        log(f"{self.name}: revoked {sorted(tp.partition for tp in partitions)}")

    def poll(self, timeout=0.05):
        msg = self.consumer.poll(timeout)
        if msg is None or msg.error():
            return
        self.first.setdefault(msg.partition(), msg.offset())
        self.consumed[msg.value().decode()] = (msg.partition(), msg.offset())

    def committed(self, partitions, topic):
        tps = self.consumer.committed([TopicPartition(topic, q) for q in partitions], timeout=10)
        return {tp.partition: tp.offset for tp in tps}


def group_coordinator_kill9(troupe):
    with Cluster(troupe) as c:
        c.start(3)
        topic = c.create_topic("events", 6, 3)
        ctl = c.controller()
        # A group whose coordinator is not on the controller's node, so
        # that one session expiry moves it.
        for i in range(1000):
            group = f"billing-{i}"
            cp = coordinator_partition(group)
            coordinator = c.partition_state(OFFSETS_TOPIC, cp)["leader"]
            if coordinator != ctl:
                break
        log(f"group {group}: {OFFSETS_TOPIC}-{cp}, coordinator broker {coordinator}")
        prod = ProducerLoop(c.bootstrap(), topic, rate=200)
        prod.start()
        members = [GroupMember(f"c{i}", c.bootstrap(), group, topic) for i in range(2)]

        def poll_all(seconds):
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for m in members:
                    m.poll()

        def stable():
            poll_all(0.2)
            owned = sorted(q for m in members for q in m.assigned)
            return owned == list(range(6)) and all(m.assigned for m in members)

        wait_for("the group to assign every partition", stable, 60, interval=0)
        assignments = sum(m.rebalances for m in members)
        poll_all(3)
        parts = list(range(6))
        before = members[0].committed(parts, topic)
        log(f"committed before the kill: {before}")
        check(all(o >= 0 for o in before.values()), f"partitions without a committed offset before the kill: {before}")

        t_kill = time.monotonic()
        c.node(coordinator).kill9()
        moved = wait_for("the coordinator to move", lambda: (poll_all(0.2), c.partition_state(OFFSETS_TOPIC, cp))[1]["leader"] not in (-1, coordinator), c.session_timeout_ms / 1000 + 20, interval=0)
        log(f"coordinator moved to broker {c.partition_state(OFFSETS_TOPIC, cp)['leader']} after {time.monotonic() - t_kill:.1f} s")
        check(moved, "the coordinator did not move")
        t_moved = time.monotonic()

        def commits_advanced():
            poll_all(0.5)
            now = members[0].committed(parts, topic)
            return all(now[q] > before[q] for q in parts) and now

        after = wait_for("commits accepted by the new coordinator", commits_advanced, 60, interval=0)
        log(f"committed after the move ({time.monotonic() - t_moved:.1f} s): {after}")
        rebalances = sum(m.rebalances for m in members) - assignments
        log(f"rebalances after the coordinator's node was killed: {rebalances} (target 0)")
        check(rebalances == 0, f"{rebalances} rebalances when the coordinator moved")

        check(prod.stop() == 0 and not prod.failed, f"records unacknowledged or failed, e.g. {prod.failed[:3]}")
        acked = {a.value for a in prod.acked}
        wait_for("every acknowledged record consumed", lambda: (poll_all(0.5), acked <= set().union(*(m.consumed.keys() for m in members)))[1], 60, interval=0)
        for m in members:
            m.consumer.close()  # commits the positions, leaves the group

        # A new member resumes exactly where the group committed.
        reader = Consumer({"bootstrap.servers": c.bootstrap(), "group.id": group})
        committed = {tp.partition: tp.offset for tp in reader.committed([TopicPartition(topic, q) for q in parts], timeout=10)}
        reader.close()
        log(f"committed at close: {committed}")
        extra = ProducerLoop(c.bootstrap(), topic, rate=200, prefix="later")
        extra.start()
        time.sleep(1.5)
        check(extra.stop() == 0 and not extra.failed, f"later records unacknowledged or failed, e.g. {extra.failed[:3]}")
        fresh = GroupMember("c-new", c.bootstrap(), group, topic)
        members = [fresh]
        later = {a.value for a in extra.acked}
        wait_for("the new member to consume the later records", lambda: (poll_all(0.5), later <= set(fresh.consumed))[1], 60, interval=0)
        check(fresh.first == {q: committed[q] for q in fresh.first}, f"started at {fresh.first}, committed {committed}")
        old = {a.value for a in prod.acked} & set(fresh.consumed)
        check(not old, f"the new member re-read {len(old)} records committed before")
        fresh.consumer.close()
        log(f"the new member started at the committed offsets {fresh.first}")


# -- ZooKeeper faults, bad input ----------------------------------------------------------------


def zookeeper_unreachable_at_start(troupe):
    with Cluster(troupe, props={"offsets.topic.replication.factor": 1}) as c:
        port = free_ports(1)[0]
        c.zk_connect = f"127.0.0.1:{port}"
        node = c.add_node().start()
        wait_for("a log line naming the unreachable ZooKeeper", lambda: f"cannot reach ZooKeeper at {c.zk_connect}" in node.log_text(), c.session_timeout_ms / 1000 + 15)
        check(node.alive(), "the node exited instead of retrying")
        md = kcat_metadata(node.bootstrap, 3)
        check(md is None, f"Metadata answered without ZooKeeper: {md}")
        admin = AdminClient({"bootstrap.servers": node.bootstrap, "socket.connection.setup.timeout.ms": 2000, "log_level": 2})
        try:
            answer = admin.list_topics(timeout=3)
            raise AssertionError(f"Metadata answered without ZooKeeper: brokers {answer.brokers}, topics {list(answer.topics)}")
        except KafkaException as e:
            log(f"Metadata without ZooKeeper fails: {e}")
        c.start_zookeeper(port)
        c.wait_ready([1])
        md = kcat_metadata(node.bootstrap)
        check(md is not None and [b["id"] for b in md["brokers"]] == [1], f"Metadata once ZooKeeper is up lists no broker 1 alone: {md}")
        retries = node.log_text().count("cannot reach ZooKeeper")
        log(f"the node logged {retries} 'cannot reach ZooKeeper' lines, then registered")


def zookeeper_lost(troupe):
    with Cluster(troupe, session_timeout_ms=6000) as c:
        c.start(3)
        topic = c.create_topic("zk-loss", 3, 3)
        session_s = c.session_timeout_ms / 1000
        prod = ProducerLoop(c.bootstrap(), topic, rate=200)
        prod.start()
        wait_for("acknowledgements", lambda: len(prod.acked) >= 100, 30)
        t_lost = time.monotonic()
        c.stop_zookeeper()
        wait_for("acknowledgements after ZooKeeper was lost", lambda: len(prod.acks_between(t_lost + 0.5, FOREVER)) >= 50, 5)

        # What a client sees: a node serves while it answers Metadata (a node
        # that stepped down fails it and closes its connections). Probe every
        # node until a round in which none answers.
        last_served = {}
        while True:
            check(time.monotonic() < t_lost + session_s + 20, f"nodes still answering Metadata {time.monotonic() - t_lost:.1f} s after ZooKeeper was lost, past the session timeout of {session_s:.0f} s: last answers {last_served}")
            answering, asked = [], []
            for n in c.nodes:
                asked.append(time.monotonic())
                md = n.metadata(2)
                if md is not None:
                    answering.append(n.id)
                    last_served[n.id] = time.monotonic() - t_lost
            if not answering:
                break
            time.sleep(0.2)
        t_down = max(asked)  # each node refused from when it was asked on
        log(f"every node refuses Metadata {t_down - t_lost:.1f} s after ZooKeeper was lost; last answers (s after the loss): {last_served}")
        early = {i: round(last_served.get(i, 0.0), 1) for i in (n.id for n in c.nodes) if last_served.get(i, 0.0) < session_s / 2}
        check(not early, f"brokers stopped serving Metadata long before their session timeout of {session_s:.0f} s (last answer, s after the loss): {early}")
        check(prod.acks_between(t_lost + session_s / 2, FOREVER), f"no record acknowledged from {session_s / 2:.0f} s after ZooKeeper was lost on, within the session timeout")
        for n in c.nodes:
            check(n.alive(), f"node {n.id} exited")
            check(n.metadata(2) is None, f"node {n.id} answers Metadata after stepping down")
        time.sleep(3)
        late = prod.acks_between(t_down + 1, FOREVER)
        check(not late, f"{len(late)} records acknowledged by nodes that had stepped down")

        c.start_zookeeper(c.zk_port)
        # Registered again, and serving: each node's Metadata lists every
        # broker (a stepped-down node answers none until it has registered
        # and heard from the active controller). The session may be the old
        # one: ZooKeeper restores sessions with its data.
        c.wait_ready([1, 2, 3])
        t_back = time.monotonic()
        wait_for("acknowledgements after ZooKeeper returned", lambda: len(prod.acks_between(t_back, FOREVER)) >= 100, 60)
        check(prod.stop() == 0 and not prod.failed, f"records unacknowledged or failed, e.g. {prod.failed[:3]}")
        for q in c.topic_partitions(topic):
            check_acknowledged_present(prod.acked, read_acknowledged(c, topic, q, prod.acked), topic, q)
        log(f"{len(prod.acked)} acknowledged records all read back")


def duplicate_broker_id(troupe):
    with Cluster(troupe, props={"offsets.topic.replication.factor": 1}) as c:
        c.start(1)
        first = c.nodes[0]
        owner = c.zk.get("/brokers/ids/1")[1].ephemeralOwner
        dup = c.add_node(broker_id=1).start()
        rc = dup.wait_exit(timeout=c.session_timeout_ms / 1000 + 30)
        text = dup.log_text()
        log(f"the second broker 1 exited with {rc}: {[line for line in text.splitlines() if 'already registered' in line]}")
        check(rc != 0, f"the second broker 1 exited with {rc}")
        check("broker.id 1 is already registered" in text, f"no 'broker.id 1 is already registered' in its output: {text[-2000:]}")
        check(c.zk.get("/brokers/ids/1")[1].ephemeralOwner == owner, "the registration changed hands")
        check(first.alive() and [b["id"] for b in (first.metadata() or {}).get("brokers", [])] == [1], "the first broker 1 stopped serving Metadata as the only broker")


def unusable_log_dir(troupe):
    with Cluster(troupe) as c:
        c.start_zookeeper()
        node = c.add_node(broker_id=7)
        os.makedirs(node.dir, exist_ok=True)
        blocker = os.path.join(node.dir, "a-file")
        with open(blocker, "w") as f:
            f.write("not a directory\n")
        node.start({"log.dirs": os.path.join(blocker, "logs")})
        rc = node.wait_exit(timeout=30)
        text = node.log_text()
        check(rc != 0, f"the node exited with {rc}")
        check("log.dirs" in text and "not a writable directory" in text, f"no report of the unusable log.dirs in its output: {text[-2000:]}")
        check(7 not in c.registered(), "the node registered")
        log(f"exit {rc}: {[line for line in text.splitlines() if 'log.dirs' in line]}")


# -- a node cut off from the others -----------------------------------------------------------------


def network_partition(troupe):
    topo = Topology(["zk", "n1", "n2", "n3", "client"])
    try:
        topo.create()
        topo.enter("client")
        # The middleman's default connection timeout (6 s): the links to the
        # cut broker stay open, silent, for seconds after its heartbeats go
        # unanswered, so it counts the other brokers as linked when it
        # suspects the controller; only the pre-vote keeps it from deposing.
        with Cluster(troupe, session_timeout_ms=6000, topology=topo, props={"troupe.cluster.connection.timeout.ms": 6000}) as c:
            c.start(3)
            topic = c.create_topic("split", 3, 3)
            ctl = c.controller()
            states = {q: c.partition_state(topic, q) for q in c.topic_partitions(topic)}
            leaders = {s["leader"] for s in states.values()}
            cut = next(n for n in c.nodes if n.id != ctl and n.id in leaders)
            others = [n for n in c.nodes if n is not cut]
            led_by_cut = [q for q, s in states.items() if s["leader"] == cut.id]
            log(f"cutting broker {cut.id} (leads {led_by_cut}) off from brokers {[n.id for n in others]}; controller {ctl}")
            prod = ProducerLoop(c.bootstrap(), topic, rate=300)
            # A client of the cut broker alone (its only bootstrap), with
            # timeouts that outlast the cut: it keeps asking the cut broker,
            # which still believes it leads.
            pinned_p = led_by_cut[0]
            pinned = ProducerLoop(cut.bootstrap, topic, partition=pinned_p, rate=100, prefix="pinned", conf={"request.timeout.ms": 30000, "message.timeout.ms": 120000})
            prod.start()
            pinned.start()
            wait_for("acknowledgements on every partition", lambda: all(len(prod.acks_between(0, FOREVER, partition=q)) >= 20 for q in states) and len(pinned.acked) >= 20, 30)

            ctl_epoch = c.controller_epoch()
            t_cut = time.monotonic()
            topo.cut(cut.netns, [n.netns for n in others])
            # The controller stops hearing the cut broker over its node link
            # and fences it (broker.session.timeout.ms, or the middleman's
            # connection timeout closing the link): out of every ISR, its
            # leaderships moved with leader epoch + 1, while it keeps its
            # ZooKeeper session.
            wait_for(f"{led_by_cut} moved off broker {cut.id}", lambda: all((s := c.partition_state(topic, q))["leader"] not in (-1, cut.id) and s["leader_epoch"] == states[q]["leader_epoch"] + 1 for q in led_by_cut), 30, interval=0.1)
            log(f"broker {cut.id} fenced: {led_by_cut} moved {time.monotonic() - t_cut:.1f} s after the cut")
            wait_for(f"broker {cut.id} out of every ISR", lambda: all(cut.id not in c.partition_state(topic, q)["isr"] for q in states), 30)
            t_shrunk = time.monotonic()
            wait_for("acknowledgements on every partition without the cut broker", lambda: all(len(prod.acks_between(t_shrunk, FOREVER, partition=q)) >= 20 for q in states), 30)
            hold = t_cut + 1.5 * c.session_timeout_ms / 1000
            while time.monotonic() < hold:
                check(cut.id in c.registered(), f"broker {cut.id} lost its registration")
                time.sleep(0.5)
            t_heal = time.monotonic()
            # The cut broker stops hearing the controller too, but the other
            # brokers still do: its pre-vote finds no majority, so it deposes
            # nobody (cluster/controller_failover.cpp).
            check(c.controller() == ctl and c.controller_epoch() == ctl_epoch, f"an election while broker {cut.id} was cut off: controller {c.controller()} in epoch {c.controller_epoch()}, was {ctl} in {ctl_epoch}")
            topo.heal()
            log("healed")

            wait_for("every ISR complete again", lambda: all(sorted(c.partition_state(topic, q)["isr"]) == [1, 2, 3] for q in states), 60, interval=0.5)
            log(f"every ISR complete {time.monotonic() - t_heal:.1f} s after healing")
            # The cut broker still takes its own client's produce as the
            # leader it believes it is; with min.insync.replicas=2 and no
            # controller to shrink its ISR, it acknowledges none. The client
            # is not cut off from the other brokers: once its metadata names
            # the new leader it produces there, and those records sit at or
            # after the offset where the new leader's epoch starts. An
            # acknowledgement during the cut below that offset came from the
            # cut broker.
            moved_epoch = states[pinned_p]["leader_epoch"] + 1
            now_leader = c.leader(topic, pinned_p)
            epoch_start = min((o for o, e, _ in now_leader.replica_log(topic, pinned_p) if e >= moved_epoch), default=None)
            check(epoch_start is not None, f"no record of leader epoch {moved_epoch} or later in {topic}-{pinned_p} on broker {now_leader.id}")
            during = pinned.acks_between(t_cut + 1.0, t_heal)
            acked_by_cut = [a for a in during if a.offset is not None and 0 <= a.offset < epoch_start]
            log(f"while cut ({t_heal - t_cut:.1f} s): {len(prod.acks_between(t_cut, t_heal))} records acknowledged through the other brokers; "
                f"of the cut broker's client, {len(during) - len(acked_by_cut)} by the new leader (epoch {moved_epoch} starts at offset {epoch_start}), {len(acked_by_cut)} by broker {cut.id}")
            check(not acked_by_cut, f"{len(acked_by_cut)} records acknowledged by the cut broker while it was cut off, e.g. {acked_by_cut[:3]}")
            t_healed = time.monotonic()
            wait_for("acknowledgements on every partition after healing", lambda: all(len(prod.acks_between(t_healed, FOREVER, partition=q)) >= 20 for q in states), 30)
            for loop in (prod, pinned):
                check(loop.stop() == 0 and not loop.failed, f"records unacknowledged or failed, e.g. {loop.failed[:3]}")
            for q in states:
                check_acknowledged_present(prod.acked + pinned.acked, read_acknowledged(c, topic, q, prod.acked + pinned.acked), topic, q)
            check_replicas_converged(c, topic, list(states))
            log(f"{len(prod.acked)} acknowledged records all read back")
    finally:
        topo.destroy()
        left = topo.leftovers()
        check(not left, f"namespaces left: {left}")


# -- one CreateTopics larger than ZooKeeper's request limit ---------------------------------------


def large_create_topics(troupe):
    """ZooKeeper drops a request beyond jute.maxbuffer (1 MiB); the
    controller's write of 8,000 new partitions must go out in fenced pieces
    and leave every topic whole, with the same controller."""
    from confluent_kafka.admin import NewTopic
    with Cluster(troupe) as c:
        c.start(3)
        controller, epoch = c.controller(), c.controller_epoch()
        names = [f"wide-{i:02d}" for i in range(80)]
        admin = AdminClient({"bootstrap.servers": c.bootstrap()})
        t0 = time.monotonic()
        futures = admin.create_topics([NewTopic(n, 100, 1) for n in names], request_timeout=60, operation_timeout=60)
        for name, f in futures.items():
            f.result(timeout=90)
        log(f"80 topics of 100 partitions created in one CreateTopics in {time.monotonic() - t0:.1f} s")
        check(c.controller() == controller and c.controller_epoch() == epoch, "the controller changed while creating topics")
        for name in names:
            check(c.topic_partitions(name) == list(range(100)), f"{name} has partitions {c.topic_partitions(name)}, not 0..99")
        missing = [(n, p) for n in names for p in range(100) if not c.partition_state(n, p)]
        check(not missing, f"{len(missing)} partition states missing, e.g. {missing[:3]}")

        def every_node_knows():
            for n in c.live_nodes():
                md = n.metadata(timeout_s=10) or {}
                led = {t["topic"] for t in md.get("topics", []) if len(t["partitions"]) == 100 and all(p["leader"] >= 0 for p in t["partitions"])}
                if not set(names) <= led:
                    return False
            return True
        wait_for("every node's metadata with all 8,000 partitions led", every_node_knows, 60, interval=1)


# -- ZooKeeper stalls for less than the session timeout --------------------------------------------


def create_topics_answer(future, timeout):
    """The error of one topic's CreateTopics answer, None for NONE."""
    try:
        future.result(timeout=timeout)
        return None
    except KafkaException as e:
        return e.args[0]


def zookeeper_stall(troupe):
    """A metadata write in flight when ZooKeeper stalls fails with an
    unknown outcome; the controller resigns and, since its session (and
    /controller) survive, takes over again with a fresh read. The cluster
    must not be left without an active controller. The client whose
    CreateTopics met the stall gets Kafka's contract: NONE, or a retriable
    error after which its retried CreateTopics succeeds (or finds the topic
    the first one created: TOPIC_ALREADY_EXISTS), and the topic is whole."""
    import signal
    from confluent_kafka.admin import NewTopic
    # Kafka's RetriableException family (NotControllerException,
    # TimeoutException, NetworkException), and librdkafka's local timeout
    # and transport errors.
    retriable = {KafkaError.NOT_CONTROLLER, KafkaError.REQUEST_TIMED_OUT, KafkaError.NETWORK_EXCEPTION, KafkaError._TIMED_OUT, KafkaError._TRANSPORT}
    created = {None, KafkaError.TOPIC_ALREADY_EXISTS}
    topic = "during-stall"
    with Cluster(troupe, session_timeout_ms=6000) as c:
        c.start(3)
        c.create_topic("before-stall", 3, 3)
        with open(os.path.join(c.zk_dir, "zookeeper.pid")) as f:
            zk_pid = int(f.read())
        controller = c.node(c.controller())
        admin = AdminClient({"bootstrap.servers": controller.bootstrap, "socket.connection.setup.timeout.ms": 3000, "log_level": 2})
        admin.list_topics(timeout=10)  # connected, the controller known

        def create():
            return admin.create_topics([NewTopic(topic, 3, 3)], request_timeout=40, operation_timeout=30)[topic]

        os.kill(zk_pid, signal.SIGSTOP)
        try:
            # This write waits in ZooKeeper's socket while it is stopped.
            pending = create()
            # Beyond the client's receive timeout (2/3 of the session),
            # short of the session timeout.
            time.sleep(4.6)
        finally:
            os.kill(zk_pid, signal.SIGCONT)
        answers = [create_topics_answer(pending, 45)]
        deadline = time.monotonic() + 30

        def code(a):
            return a.code() if a is not None else None

        while code(answers[-1]) not in created and code(answers[-1]) in retriable and time.monotonic() < deadline:
            time.sleep(0.5)
            answers.append(create_topics_answer(create(), 45))
        shown = [str(a) if a is not None else "NONE" for a in answers]
        log(f"CreateTopics during the stall, then its retries, answered {shown}")
        check(code(answers[-1]) in created, f"CreateTopics of {topic} did not succeed: answers {shown}")
        odd = [str(a) for a in answers[:-1] if code(a) not in retriable]
        check(not odd, f"CreateTopics of {topic} answered errors a Kafka client does not retry: {odd}")
        # Created whole: each partition led with its full ISR, known to
        # every node, and it takes acks=all records.
        wait_for(f"{topic} with 3 partitions led with full ISRs", lambda: c.topic_partitions(topic) == [0, 1, 2] and c.topic_led(topic, isr_size=3), 30)
        for n in c.nodes:
            wait_for(f"node {n.id}'s Metadata with {topic} led", lambda: any(t["topic"] == topic and len(t["partitions"]) == 3 and all(q["leader"] >= 0 for q in t["partitions"]) for t in (n.metadata() or {}).get("topics", [])), 30)
        prod = ProducerLoop(c.bootstrap(), topic, rate=100, prefix="stall")
        prod.start()
        wait_for(f"acks=all records acknowledged on every partition of {topic}", lambda: all(prod.acks_between(0, FOREVER, partition=q) for q in range(3)), 30)
        check(prod.stop() == 0 and not prod.failed, f"records to {topic} unacknowledged or failed, e.g. {prod.failed[:3]}")

        wait_for("every node registered again", lambda: c.registered() == [1, 2, 3], 30)
        # An active controller: a new topic is created and led, and a
        # broker's death is handled.
        c.create_topic("after-stall", 3, 3, timeout=30)
        log(f"controller after the stall: broker {c.controller()} (epoch {c.controller_epoch()})")
        victim = c.leader("after-stall", 0)
        victim.kill9()
        wait_for("a new leader of after-stall-0", lambda: c.partition_state("after-stall", 0)["leader"] not in (-1, victim.id), c.session_timeout_ms / 1000 + 20)


# -- idempotent producers on a cluster -----------------------------------------------------------


def idempotent_producers(troupe):
    """InitProducerId on any node: the controller hands out blocks from
    /latest_producer_id_block (written with its zkVersion), so producers
    connected to different nodes never share a producer id. Observed in the
    znode and in the producer ids of the batches on disk."""
    import json as _json
    block_size = 1000  # Kafka's ProducerIdsBlock
    with Cluster(troupe) as c:
        c.start(3)
        topic = c.create_topic("idem", 3, 3)
        prods = [ProducerLoop(n.bootstrap, topic, rate=100, prefix=f"p{n.id}", conf={"enable.idempotence": True}) for n in c.nodes]
        for p in prods:
            p.start()
        # Until each has 100 acknowledgements, or one has failed for good
        # (a shared producer id ends in OUT_OF_ORDER_SEQUENCE_NUMBER): the ids
        # on disk are checked first either way.
        wait_for("acknowledgements from every idempotent producer", lambda: all(len(p.acked) >= 100 or p.fatal for p in prods), 60)
        unsent = [p.stop() for p in prods]

        # The producer id of every batch, by the producer its records name.
        ids = {p.prefix: set() for p in prods}
        epochs = {p.prefix: set() for p in prods}
        for q in c.topic_partitions(topic):
            for b in c.leader(topic, q).replica_batches(topic, q):
                for prefix in {value.split("-")[0] for _, value in b.records}:
                    ids.setdefault(prefix, set()).add(b.producer_id)
                    epochs.setdefault(prefix, set()).add(b.producer_epoch)
        log(f"producer ids in the batches: {ids}, producer epochs: {epochs}")
        for prefix, seen in ids.items():
            check(len(seen) <= 1 and min(seen, default=0) >= 0, f"the batches of producer {prefix} carry producer ids {sorted(seen)}, not one id")
        pids = {prefix: min(seen) for prefix, seen in ids.items() if seen}
        check(len(set(pids.values())) == len(pids), f"producers on different nodes share a producer id: {pids}")
        check(len(pids) == len(prods), f"producers without a batch on disk: {sorted(set(ids) - set(pids))}")

        # ZkData creates the znode empty; each block is written with the
        # zkVersion read, so write k (zkVersion k) holds ids
        # [1000 (k - 1), 1000 k - 1]: a block handed out twice would leave
        # block_start behind the number of writes.
        data, stat = c.zk.get("/latest_producer_id_block")
        block = _json.loads(data)
        log(f"/latest_producer_id_block (zkVersion {stat.version}): {block}")
        first, last = int(block["block_start"]), int(block["block_end"])
        check(block["version"] == 1 and last - first + 1 == block_size and block["broker"] in [n.id for n in c.nodes], f"/latest_producer_id_block is no block of {block_size} ids to a broker of the cluster: {block}")
        check(first == block_size * (stat.version - 1), f"/latest_producer_id_block was written {stat.version} times but its block starts at {first}, not {block_size * (stat.version - 1)}: a block was written twice or skipped")
        outside = {prefix: pid for prefix, pid in pids.items() if pid > last}
        check(not outside, f"producer ids beyond every block written to /latest_producer_id_block (last {first}..{last}): {outside}")
        # One producer per node, each node's first InitProducerId takes a
        # block of its own.
        blocks = {prefix: pid // block_size for prefix, pid in pids.items()}
        check(len(set(blocks.values())) == len(c.nodes) and stat.version >= len(c.nodes), f"expected a block per node, got producer ids {pids} in blocks {blocks} after {stat.version} writes of the znode")
        mine = pids.get(f"p{block['broker']}", -1)
        check(first <= mine <= last, f"the producer on broker {block['broker']}, to which the last block {first}..{last} went, has producer id {mine}")

        for p, left in zip(prods, unsent):
            check(not p.fatal and left == 0 and not p.failed, f"producer {p.prefix}: {p.fatal or 'no fatal error'}, {left} records unacknowledged, {len(p.failed)} failed, e.g. {p.failed[:3]}")
        for q in c.topic_partitions(topic):
            acked = [a for p in prods for a in p.acked if a.partition == q]
            records = read_acknowledged(c, topic, q, acked)
            check_acknowledged_present(acked, records, topic, q)
            values = [v for _, v in records]
            check(len(values) == len(set(values)), f"a record stored twice in {topic}-{q}")


def zookeeper_topic_configs(troupe):
    """Topic configs in Kafka's ZooKeeper layout. CreateTopics writes
    /config/topics/<t> in Kafka's JSON, no later than the topic's own znode,
    for every topic (an empty config for none; __consumer_offsets with
    cleanup.policy=compact). A change written as Kafka's
    AdminZkClient.changeTopicConfig writes it (the znode, then a sequential
    /config/changes/config_change_ of {"version":2,"entity_path":
    "topics/<t>"}) is applied by every node: its segment.bytes rolls the
    segments of every replica, and of a node restarted afterwards too.
    AlterConfigs through a node makes the controller write the znode and a
    notification the same way. Observed in ZooKeeper and in the segment
    files."""
    from confluent_kafka import Producer
    from confluent_kafka.admin import NewTopic

    def segments(node, topic):
        d = node.replica_dir(topic, 0)
        return len([f for f in os.listdir(d) if f.endswith(".log")]) if os.path.isdir(d) else 0

    with Cluster(troupe) as c:
        c.start(3)
        admin = AdminClient({"bootstrap.servers": c.bootstrap()})
        futures = admin.create_topics([NewTopic("cfg", 1, 3, config={"retention.ms": "86400000"}), NewTopic("plain", 1, 3)], operation_timeout=30)
        for name, f in futures.items():
            f.result(timeout=60)
        for name in ("cfg", "plain"):
            wait_for(f"{name} led with a full ISR", lambda: c.topic_led(name, isr_size=3), 30)
        data, cfg_stat = c.zk.get("/config/topics/cfg")
        check(data == b'{"version":1,"config":{"retention.ms":"86400000"}}', f"/config/topics/cfg holds {data!r}")
        data, _ = c.zk.get("/config/topics/plain")
        check(data == b'{"version":1,"config":{}}', f"/config/topics/plain holds {data!r}")
        topic_stat = c.zk.exists("/brokers/topics/cfg")
        check(cfg_stat.czxid <= topic_stat.czxid, f"/config/topics/cfg (zxid {cfg_stat.czxid}) was written after /brokers/topics/cfg (zxid {topic_stat.czxid})")
        offsets = c.zk_get_json(f"/config/topics/{OFFSETS_TOPIC}") or {}
        check(offsets.get("config", {}).get("cleanup.policy") == "compact", f"/config/topics/{OFFSETS_TOPIC} holds {offsets}")

        # Another writer of Kafka's layout changes plain's configs.
        before = set(c.zk.get_children("/config/changes"))
        c.zk.set("/config/topics/plain", b'{"version":1,"config":{"segment.bytes":"1024"}}')
        c.zk.create("/config/changes/config_change_", b'{"version":2,"entity_path":"topics/plain"}', sequence=True)
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        sent = 0

        def produce_until(predicate, what, limit=400):
            nonlocal sent
            deadline = time.monotonic() + 60
            while not predicate():
                check(sent < limit and time.monotonic() < deadline, f"{what}: not after {sent} records")
                for topic in ("plain", "cfg"):
                    producer.produce(topic, value=b"v" * 300)
                producer.flush(10)
                sent += 1
                time.sleep(0.05)

        produce_until(lambda: all(segments(n, "plain") >= 5 for n in c.nodes), "every replica of plain rolling 1024-byte segments")
        log(f"after {sent} records: plain's segments per node {[segments(n, 'plain') for n in c.nodes]}, cfg's {[segments(n, 'cfg') for n in c.nodes]}")
        check(all(segments(n, "cfg") == 1 for n in c.nodes), "cfg, whose configs did not change, rolled segments")
        check(len(set(c.zk.get_children("/config/changes")) - before) >= 1, "no change notification in /config/changes")

        # AlterConfigs through a node: the controller writes the znode and a
        # notification, as AdminZkClient.changeTopicConfig does.
        from confluent_kafka.admin import ConfigResource
        before = set(c.zk.get_children("/config/changes"))
        resource = ConfigResource(ConfigResource.Type.TOPIC, "cfg", set_config={"retention.ms": "3600000", "segment.ms": "600000"})
        for f in admin.alter_configs([resource]).values():
            f.result(timeout=30)
        data, _ = c.zk.get("/config/topics/cfg")
        check(data == b'{"version":1,"config":{"retention.ms":"3600000","segment.ms":"600000"}}', f"/config/topics/cfg after AlterConfigs holds {data!r}")
        added = sorted(set(c.zk.get_children("/config/changes")) - before)
        check(len(added) == 1 and added[0].startswith("config_change_"), f"AlterConfigs added the notifications {added}")
        data, _ = c.zk.get(f"/config/changes/{added[0]}")
        check(data == b'{"version":2,"entity_path":"topics/cfg"}', f"/config/changes/{added[0]} holds {data!r}")

        # A node that starts later applies the configs too.
        follower = next(n for n in c.nodes if n.id != c.leader("plain", 0).id)
        follower.kill9()
        follower.start()
        c.wait_ready([n.id for n in c.nodes])
        c.wait_isr("plain", 0, [n.id for n in c.nodes], 60)
        start = segments(follower, "plain")
        produce_until(lambda: segments(follower, "plain") >= start + 4, f"node {follower.id}, restarted, rolling plain's segments")
        producer.flush(10)


CASES = {
    "leader-kill9": (leader_kill9, 150),
    "paused-node": (paused_node, 180),
    "controller-death": (controller_death, 150),
    "group-coordinator-kill9": (group_coordinator_kill9, 180),
    "zookeeper-unreachable-at-start": (zookeeper_unreachable_at_start, 90),
    "zookeeper-lost": (zookeeper_lost, 150),
    "duplicate-broker-id": (duplicate_broker_id, 90),
    "unusable-log-dir": (unusable_log_dir, 60),
    "network-partition": (network_partition, 180),
    "large-create-topics": (large_create_topics, 150),
    "zookeeper-stall": (zookeeper_stall, 150),
    "idempotent-producers": (idempotent_producers, 120),
    "zookeeper-topic-configs": (zookeeper_topic_configs, 150),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
