#!/usr/bin/python3
"""Multi-process cluster tests: ZooKeeper and troupe nodes as real
processes, librdkafka clients (confluent-kafka, kcat), what ZooKeeper holds
read with kazoo. One case per run:

    cluster_tests.py build/troupe CASE

Each case starts its own ZooKeeper and nodes on free ports with temporary
directories, runs within its own time budget and stops every process by pid
however it ends (tests/cluster/cluster_fixture.py).
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import Consumer, KafkaException, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

from cluster_fixture import (  # noqa: E402
    OFFSETS_TOPIC,
    Cluster,
    ProducerLoop,
    Topology,
    check_acknowledged_present,
    coordinator_partition,
    free_ports,
    kcat_metadata,
    log,
    main,
    read_partition,
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


def truncations(node, topic):
    return [line for line in node.log_text().splitlines() if "truncating" in line and topic in line]


# -- kill -9 of a leader's node ---------------------------------------------------------------


def leader_kill9(troupe):
    with Cluster(troupe) as c:
        c.start(3)
        topic = c.create_topic("orders", 3, 3)
        p = partition_led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        victim = c.node(before["leader"])
        log(f"{topic}-{p}: leader {victim.id}, leader epoch {before['leader_epoch']}, ISR {before['isr']}")
        prod = ProducerLoop(c.bootstrap(), topic, partition=p, rate=300)
        prod.start()
        wait_for("200 acknowledged records", lambda: len(prod.acked) >= 200, 30)

        t_kill = time.monotonic()
        victim.kill9()
        after = wait_for(
            "a new leader of the partition",
            lambda: (s := c.partition_state(topic, p))["leader"] not in (-1, victim.id) and s,
            c.session_timeout_ms / 1000 + 20,
        )
        log(f"{topic}-{p}: leader {after['leader']}, leader epoch {after['leader_epoch']}, ISR {after['isr']} after {time.monotonic() - t_kill:.1f} s")
        assert after["leader_epoch"] == before["leader_epoch"] + 1, f"leader epoch {before['leader_epoch']} -> {after['leader_epoch']}"
        assert victim.id not in after["isr"], after
        new_leader = c.node(after["leader"])
        wait_for(
            "the new leader's own view of its epoch",
            lambda: (v := node_view(new_leader, topic, p)) and field(v, "leader") == new_leader.id and field(v, "leader_epoch") == after["leader_epoch"],
            10,
        )
        wait_for("acknowledgements from the new leader", lambda: len(prod.acks_between(t_kill + 0.1, FOREVER)) >= 100, 30)
        first = min(a.t for a in prod.acks_between(t_kill + 0.1, FOREVER))
        log(f"first acknowledgement after the kill: {first - t_kill:.2f} s (zookeeper.session.timeout.ms={c.session_timeout_ms})")

        victim.restart()
        c.wait_ready([1, 2, 3])
        c.wait_isr(topic, p, [1, 2, 3], 30)
        rejoined = c.partition_state(topic, p)
        assert rejoined["leader"] == new_leader.id and rejoined["leader_epoch"] == after["leader_epoch"], rejoined
        time.sleep(1)
        assert prod.stop() == 0, "records still unacknowledged after 60 s"
        assert not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}"

        records = read_partition(new_leader.bootstrap, topic, p)
        check_acknowledged_present(prod.acked, records, topic, p)
        log(f"{len(prod.acked)} acknowledged records, all read back ({len(records)} in the partition)")
        check_replicas_converged(c, topic, [p])
        log(f"the restarted broker {victim.id} logged {len(truncations(victim, topic))} truncations of {topic}")


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
        assert moved["leader"] != paused.id and moved["leader_epoch"] == before["leader_epoch"] + 1, moved
        t_moved = time.monotonic()
        wait_for("produce continuing on the new leader", lambda: len(general.acks_between(t_moved, FOREVER, partition=p)) >= 50, 30)

        t_cont = time.monotonic()
        paused.cont()
        wait_for(f"broker {paused.id} registered again", lambda: paused.id in c.registered(), 30)
        wait_for(f"broker {paused.id} back in every ISR", lambda: all(sorted(s["isr"]) == [1, 2, 3] for s in c.all_states().values()), 60, interval=0.5)
        log(f"broker {paused.id} back in every ISR {time.monotonic() - t_cont:.1f} s after SIGCONT")
        time.sleep(1)
        for prod in (general, pinned):
            assert prod.stop() == 0, "records still unacknowledged"
            assert not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}"
        for q in c.topic_partitions(topic):
            records = read_partition(c.leader(topic, q).bootstrap, topic, q)
            check_acknowledged_present(general.acked + pinned.acked, records, topic, q)
        late = pinned.acks_between(t_pause, FOREVER)
        log(f"{len(general.acked)} + {len(pinned.acked)} acknowledged records all read back; {len(late)} of the pinned producer's were acknowledged after SIGSTOP")
        check_replicas_converged(c, topic, c.topic_partitions(topic))
        log(f"the deposed leader logged {len(truncations(paused, topic))} truncations of {topic}")


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
        assert c.controller_epoch() == epoch + 1, c.controller_epoch()
        wait_for(f"broker {old} out of every ISR and leadership", lambda: all(s["leader"] != old and old not in s["isr"] for s in c.all_states().values()), 20)

        victim.restart()
        c.wait_ready([1, 2, 3])
        assert c.controller() == new, "the controller moved back"
        survivor = next(n for n in c.nodes if n.id not in (new,))
        topic = c.create_topic("after-failover", 3, 3, via=survivor)
        p = partition_led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        leader = c.node(before["leader"])
        leader.kill9()
        after = wait_for("the leader to move", lambda: (s := c.partition_state(topic, p))["leader"] not in (-1, leader.id) and s, c.session_timeout_ms / 1000 + 20)
        assert after["leader_epoch"] == before["leader_epoch"] + 1, after
        log(f"{topic}-{p}: leader {before['leader']} -> {after['leader']}, epoch {before['leader_epoch']} -> {after['leader_epoch']}")
        prod = ProducerLoop(c.bootstrap(exclude=[leader]), topic, partition=p, rate=100)
        prod.start()
        wait_for("acks=all produce on the new leader", lambda: len(prod.acked) >= 20, 30)
        assert prod.stop() == 0 and not prod.failed
        check_acknowledged_present(prod.acked, read_partition(c.node(after["leader"]).bootstrap, topic, p), topic, p)


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
        assert all(o >= 0 for o in before.values()), before

        t_kill = time.monotonic()
        c.node(coordinator).kill9()
        moved = wait_for("the coordinator to move", lambda: (poll_all(0.2), c.partition_state(OFFSETS_TOPIC, cp))[1]["leader"] not in (-1, coordinator), c.session_timeout_ms / 1000 + 20, interval=0)
        log(f"coordinator moved to broker {c.partition_state(OFFSETS_TOPIC, cp)['leader']} after {time.monotonic() - t_kill:.1f} s")
        assert moved
        t_moved = time.monotonic()

        def commits_advanced():
            poll_all(0.5)
            now = members[0].committed(parts, topic)
            return all(now[q] > before[q] for q in parts) and now

        after = wait_for("commits accepted by the new coordinator", commits_advanced, 60, interval=0)
        log(f"committed after the move ({time.monotonic() - t_moved:.1f} s): {after}")
        rebalances = sum(m.rebalances for m in members) - assignments
        log(f"rebalances after the coordinator's node was killed: {rebalances} (target 0)")
        assert rebalances == 0, f"{rebalances} rebalances when the coordinator moved"

        assert prod.stop() == 0 and not prod.failed, prod.failed[:3]
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
        assert extra.stop() == 0 and not extra.failed
        fresh = GroupMember("c-new", c.bootstrap(), group, topic)
        members = [fresh]
        later = {a.value for a in extra.acked}
        wait_for("the new member to consume the later records", lambda: (poll_all(0.5), later <= set(fresh.consumed))[1], 60, interval=0)
        assert fresh.first == {q: committed[q] for q in fresh.first}, f"started at {fresh.first}, committed {committed}"
        old = {a.value for a in prod.acked} & set(fresh.consumed)
        assert not old, f"the new member re-read {len(old)} records committed before"
        fresh.consumer.close()
        log(f"the new member started at the committed offsets {fresh.first}")


# -- ZooKeeper faults, bad input ----------------------------------------------------------------


def zookeeper_unreachable_at_start(troupe):
    with Cluster(troupe, props={"offsets.topic.replication.factor": 1}) as c:
        port = free_ports(1)[0]
        c.zk_connect = f"127.0.0.1:{port}"
        node = c.add_node().start()
        wait_for("a log line naming the unreachable ZooKeeper", lambda: f"cannot reach ZooKeeper at {c.zk_connect}" in node.log_text(), c.session_timeout_ms / 1000 + 15)
        assert node.alive(), "the node exited instead of retrying"
        md = kcat_metadata(node.bootstrap, 3)
        assert md is None, f"Metadata answered without ZooKeeper: {md}"
        admin = AdminClient({"bootstrap.servers": node.bootstrap, "socket.connection.setup.timeout.ms": 2000, "log_level": 2})
        try:
            answer = admin.list_topics(timeout=3)
            raise AssertionError(f"Metadata answered without ZooKeeper: brokers {answer.brokers}, topics {list(answer.topics)}")
        except KafkaException as e:
            log(f"Metadata without ZooKeeper fails: {e}")
        c.start_zookeeper(port)
        c.wait_ready([1])
        md = kcat_metadata(node.bootstrap)
        assert [b["id"] for b in md["brokers"]] == [1], md
        retries = node.log_text().count("cannot reach ZooKeeper")
        log(f"the node logged {retries} 'cannot reach ZooKeeper' lines, then registered")


def zookeeper_lost(troupe):
    with Cluster(troupe, session_timeout_ms=6000) as c:
        c.start(3)
        topic = c.create_topic("zk-loss", 3, 3)
        prod = ProducerLoop(c.bootstrap(), topic, rate=200)
        prod.start()
        wait_for("acknowledgements", lambda: len(prod.acked) >= 100, 30)
        t_lost = time.monotonic()
        c.stop_zookeeper()
        wait_for("acknowledgements after ZooKeeper was lost", lambda: len(prod.acks_between(t_lost + 0.5, FOREVER)) >= 50, 5)
        stepped = [n.id for n in c.nodes if "stepping down" in n.log_text()]
        assert not stepped, f"brokers {stepped} stepped down before their session timeout"
        log(f"{len(prod.acks_between(t_lost + 0.5, FOREVER))} records acknowledged while ZooKeeper was gone and no node had stepped down")
        wait_for("every node stepping down", lambda: all("stepping down" in n.log_text() for n in c.nodes), c.session_timeout_ms / 1000 + 15)
        t_down = time.monotonic()
        log(f"every node stepped down {t_down - t_lost:.1f} s after ZooKeeper was lost")
        for n in c.nodes:
            assert n.alive(), f"node {n.id} exited"
            assert n.metadata(2) is None, f"node {n.id} answers Metadata after stepping down"
        time.sleep(3)
        late = prod.acks_between(t_down + 1, FOREVER)
        assert not late, f"{len(late)} records acknowledged by nodes that had stepped down"

        c.start_zookeeper(c.zk_port)
        c.wait_ready([1, 2, 3])
        t_back = time.monotonic()
        wait_for("acknowledgements after ZooKeeper returned", lambda: len(prod.acks_between(t_back, FOREVER)) >= 100, 60)
        assert prod.stop() == 0 and not prod.failed, prod.failed[:3]
        for q in c.topic_partitions(topic):
            check_acknowledged_present(prod.acked, read_partition(c.leader(topic, q).bootstrap, topic, q), topic, q)
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
        assert rc != 0, rc
        assert "broker.id 1 is already registered" in text, text[-2000:]
        assert c.zk.get("/brokers/ids/1")[1].ephemeralOwner == owner, "the registration changed hands"
        assert first.alive() and [b["id"] for b in first.metadata()["brokers"]] == [1]


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
        assert rc != 0, rc
        assert "log.dirs" in text and "not a writable directory" in text, text[-2000:]
        assert 7 not in c.registered(), "the node registered"
        log(f"exit {rc}: {[line for line in text.splitlines() if 'log.dirs' in line]}")


# -- a node cut off from the others -----------------------------------------------------------------


def network_partition(troupe):
    topo = Topology(["zk", "n1", "n2", "n3", "client"])
    try:
        topo.create()
        topo.enter("client")
        with Cluster(troupe, session_timeout_ms=6000, topology=topo) as c:
            c.start(3)
            topic = c.create_topic("split", 3, 3)
            ctl = c.controller()
            states = {q: c.partition_state(topic, q) for q in c.topic_partitions(topic)}
            leaders = {s["leader"] for s in states.values()}
            cut = next(n for n in c.nodes if n.id != ctl and n.id in leaders)
            others = [n for n in c.nodes if n is not cut]
            led_by_cut = [q for q, s in states.items() if s["leader"] == cut.id]
            led_by_others = [q for q in states if q not in led_by_cut]
            log(f"cutting broker {cut.id} (leads {led_by_cut}) off from brokers {[n.id for n in others]}; controller {ctl}")
            prod = ProducerLoop(c.bootstrap(), topic, rate=300)
            prod.start()
            wait_for("acknowledgements on every partition", lambda: all(len(prod.acks_between(0, FOREVER, partition=q)) >= 20 for q in states), 30)

            t_cut = time.monotonic()
            topo.cut(cut.netns, [n.netns for n in others])
            # Its followers cannot fetch: the leaders drop it from their ISRs
            # (replica.lag.time.max.ms) and acks=all goes on without it.
            wait_for(f"broker {cut.id} out of the ISRs of {led_by_others}", lambda: all(cut.id not in c.partition_state(topic, q)["isr"] for q in led_by_others), 30)
            t_shrunk = time.monotonic()
            wait_for("acknowledgements without the cut broker", lambda: all(len(prod.acks_between(t_shrunk, FOREVER, partition=q)) >= 20 for q in led_by_others), 30)
            # It keeps its ZooKeeper session, so the controller keeps it and
            # its leaderships; with min.insync.replicas=2 nothing it leads
            # can be acknowledged while its followers cannot fetch.
            hold = t_cut + 1.5 * c.session_timeout_ms / 1000
            while time.monotonic() < hold:
                assert cut.id in c.registered(), f"broker {cut.id} lost its registration"
                time.sleep(0.5)
            for q in led_by_cut:
                s = c.partition_state(topic, q)
                assert s["leader"] == cut.id and s["leader_epoch"] == states[q]["leader_epoch"], s
            t_heal = time.monotonic()
            acked_while_cut = {q: prod.acks_between(t_cut + 1.0, t_heal, partition=q) for q in led_by_cut}
            log(f"while cut ({t_heal - t_cut:.1f} s): {sum(len(prod.acks_between(t_cut + 1.0, t_heal, partition=q)) for q in led_by_others)} records acknowledged on {led_by_others}, {sum(map(len, acked_while_cut.values()))} on {led_by_cut}")
            sent_after_cut = [a for q in led_by_cut for a in acked_while_cut[q]]
            topo.heal()
            log("healed")
            assert not sent_after_cut, f"{len(sent_after_cut)} records acknowledged on partitions led by the cut broker while it was cut off"

            wait_for("every ISR complete again", lambda: all(sorted(c.partition_state(topic, q)["isr"]) == [1, 2, 3] for q in states), 60, interval=0.5)
            log(f"every ISR complete {time.monotonic() - t_heal:.1f} s after healing")
            t_healed = time.monotonic()
            wait_for("acknowledgements on every partition after healing", lambda: all(len(prod.acks_between(t_healed, FOREVER, partition=q)) >= 20 for q in states), 30)
            assert prod.stop() == 0 and not prod.failed, prod.failed[:3]
            for q in states:
                check_acknowledged_present(prod.acked, read_partition(c.leader(topic, q).bootstrap, topic, q), topic, q)
            check_replicas_converged(c, topic, list(states))
            log(f"{len(prod.acked)} acknowledged records all read back")
    finally:
        topo.destroy()
        left = topo.leftovers()
        assert not left, f"namespaces left: {left}"


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
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
