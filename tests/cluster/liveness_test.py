#!/usr/bin/python3
"""Broker liveness over the node links (KIP-631's heartbeats and fencing,
docs/ARCHITECTURE.md §7) and preferred leaders, on a cluster of real
processes. One case per run:

    liveness_test.py build/troupe CASE

The ZooKeeper session timeout is Kafka's 18 s here, so that what the cases
see is fencing over the node links and not a session expiring: the fenced
broker stays in /brokers/ids throughout. Each case starts its own ZooKeeper
and nodes on free ports (tests/cluster/cluster_fixture.py) and stops them by
pid however it ends. Gaps are printed; only generous bounds are asserted
(the README's failover benchmark has the figures).
"""

import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cluster_fixture import (  # noqa: E402
    Cluster,
    ProducerLoop,
    check,
    check_acknowledged_present,
    read_acknowledged,
    first_ack_of_epoch,
    log,
    main,
    wait_for,
)

FOREVER = float("inf")
KAFKA_SESSION_MS = 18000


def led_by_non_controller(c, topic):
    ctl = c.controller()
    for p in c.topic_partitions(topic):
        if c.partition_state(topic, p)["leader"] != ctl:
            return p
    raise AssertionError(f"every partition of {topic} is led by the controller {ctl}")


def moved_off(c, topic, p, victim, before):
    s = c.partition_state(topic, p)
    return s["leader"] not in (-1, victim.id) and s["leader_epoch"] > before["leader_epoch"] and s


def read_back(c, prods, topic):
    for q in c.topic_partitions(topic):
        acked = [a for prod in prods for a in prod.acked]
        check_acknowledged_present(acked, read_acknowledged(c, topic, q, acked), topic, q)


# -- kill -9 of a leader's node ------------------------------------------------------------------


def kill9_failover(troupe):
    """kill -9 of a leader's node: librdkafka's acks=all produce resumes on
    the new leader within about a second, long before the killed node's
    ZooKeeper session expires."""
    with Cluster(troupe, session_timeout_ms=KAFKA_SESSION_MS) as c:
        c.start(3)
        topic = c.create_topic("failover", 3, 3)
        p = led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        victim = c.node(before["leader"])
        prod = ProducerLoop(c.bootstrap(), topic, partition=p, rate=500)
        prod.start()
        wait_for("300 acknowledged records", lambda: len(prod.acked) >= 300, 30)
        t_kill = time.monotonic()
        victim.kill9()
        after = wait_for("a new leader with leader epoch + 1", lambda: moved_off(c, topic, p, victim, before), 15, interval=0.02)
        t_moved = time.monotonic() - t_kill
        check(victim.id in c.registered(), f"broker {victim.id}'s session expired already: this is not fencing")
        check(after["leader_epoch"] == before["leader_epoch"] + 1, f"leader epoch {before['leader_epoch']} -> {after['leader_epoch']}")
        check(victim.id not in after["isr"], f"the killed broker {victim.id} is still in the ISR: {after}")
        gap = first_ack_of_epoch(c, prod, topic, p, after) - t_kill
        log(f"kill -9 of broker {victim.id}: new leader {after['leader']} in ZooKeeper after {t_moved * 1000:.0f} ms, its first acknowledgement {gap * 1000:.0f} ms after the kill; broker {victim.id} still registered (zookeeper.session.timeout.ms={KAFKA_SESSION_MS})")
        check(gap < 5.0, f"the first acknowledgement came {gap:.1f} s after the kill")
        # Metadata lists only the brokers that are not fenced.
        live = c.node(after["leader"])
        wait_for(f"node {live.id}'s metadata without broker {victim.id}", lambda: victim.id not in [b["id"] for b in (live.metadata() or {}).get("brokers", [])], 10)
        wait_for("200 more acknowledgements", lambda: len(prod.acks_between(t_kill, FOREVER)) >= 200, 30)
        check(prod.stop() == 0, "records still unacknowledged")
        check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")
        read_back(c, [prod], topic)
        log(f"{len(prod.acked)} acknowledged records, all read back")


# -- kill -9 of the controller's node -----------------------------------------------------------


def controller_kill9(troupe):
    """kill -9 of the node of the active controller, which leads a
    partition: the brokers see its node link close and depose it (they
    delete /controller) instead of waiting for its ZooKeeper session to
    expire; the new controller fences the dead broker at once, and
    acks=all produce resumes on the partition's new leader."""
    with Cluster(troupe, session_timeout_ms=KAFKA_SESSION_MS) as c:
        c.start(3)
        # Six partitions over three brokers: each leads two.
        topic = c.create_topic("headless", 6, 3)
        ctl, epoch = c.controller(), c.controller_epoch()
        led = [q for q in c.topic_partitions(topic) if c.partition_state(topic, q)["leader"] == ctl]
        check(led, f"the controller {ctl} leads no partition of {topic}")
        p = led[0]
        before = c.partition_state(topic, p)
        victim = c.node(ctl)
        prod = ProducerLoop(c.bootstrap(), topic, partition=p, rate=500)
        prod.start()
        wait_for("300 acknowledged records", lambda: len(prod.acked) >= 300, 30)
        t_kill = time.monotonic()
        victim.kill9()
        wait_for("another controller", lambda: c.controller() not in (None, ctl), 15, interval=0.02)
        t_ctl = time.monotonic() - t_kill
        after = wait_for("a new leader with leader epoch + 1", lambda: moved_off(c, topic, p, victim, before), 15, interval=0.02)
        t_moved = time.monotonic() - t_kill
        check(victim.id in c.registered(), f"broker {victim.id}'s session expired already: the controller was not deposed")
        check(c.controller_epoch() > epoch, f"controller epoch {epoch} -> {c.controller_epoch()}")
        check(victim.id not in after["isr"], f"the killed broker {victim.id} is still in the ISR: {after}")
        gap = first_ack_of_epoch(c, prod, topic, p, after) - t_kill
        log(f"kill -9 of the controller's node (broker {victim.id}): controller {c.controller()} after {t_ctl * 1000:.0f} ms, new leader {after['leader']} of {topic}-{p} after {t_moved * 1000:.0f} ms, its first acknowledgement {gap * 1000:.0f} ms after the kill (zookeeper.session.timeout.ms={KAFKA_SESSION_MS})")
        check(gap < 5.0, f"the first acknowledgement came {gap:.1f} s after the kill")
        wait_for("200 more acknowledgements", lambda: len(prod.acks_between(t_kill, FOREVER)) >= 200, 30)
        # It comes back as a broker and follows the new controller.
        victim.start()
        c.wait_ready([1, 2, 3])
        c.wait_isr(topic, p, [1, 2, 3], 60)
        check(prod.stop() == 0, "records still unacknowledged")
        check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")
        read_back(c, [prod], topic)
        log(f"{len(prod.acked)} acknowledged records, all read back")


# -- DescribeCluster v2 ---------------------------------------------------------------------------


def describe_cluster(node, include_fenced):
    """DescribeCluster v2 (flexible) with IncludeFencedBrokers, raw:
    [(broker id, is fenced)]."""
    body = struct.pack(">bbb", 0, 1, 1 if include_fenced else 0) + b"\x00"
    header = struct.pack(">hhih", 60, 2, 7, 4) + b"test" + b"\x00"
    with socket.create_connection((node.host, node.kafka_port), timeout=10) as s:
        msg = header + body
        s.sendall(struct.pack(">i", len(msg)) + msg)
        size = struct.unpack(">i", _recv(s, 4))[0]
        data = _recv(s, size)

    pos = [0]

    def take(fmt):
        v = struct.unpack_from(fmt, data, pos[0])
        pos[0] += struct.calcsize(fmt)
        return v[0]

    def uvarint():
        shift = value = 0
        while True:
            b = data[pos[0]]
            pos[0] += 1
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7

    def cstring():
        n = uvarint() - 1
        if n < 0:
            return None
        v = data[pos[0]:pos[0] + n].decode()
        pos[0] += n
        return v

    def tags():
        for _ in range(uvarint()):
            uvarint()
            pos[0] += uvarint()

    take(">i")  # correlation id
    tags()
    take(">i")  # throttle
    error = take(">h")
    message = cstring()
    check(error == 0, f"DescribeCluster v2 answered error {error}: {message}")
    take(">b")  # endpoint type
    cstring()  # cluster id
    take(">i")  # controller id
    brokers = []
    for _ in range(uvarint() - 1):
        bid = take(">i")
        cstring()
        take(">i")
        cstring()
        fenced = take(">b") != 0
        tags()
        brokers.append((bid, fenced))
    return sorted(brokers)


def _recv(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise AssertionError("the connection closed")
        out += chunk
    return out


# -- SIGSTOP --------------------------------------------------------------------------------------


def sigstop_fenced(troupe):
    """A SIGSTOPped leader is fenced after broker.session.timeout.ms while it
    keeps its ZooKeeper session, acknowledges nothing while fenced, and
    after SIGCONT is unfenced, catches up and is back in every ISR."""
    with Cluster(troupe, session_timeout_ms=KAFKA_SESSION_MS) as c:
        c.start(3)
        topic = c.create_topic("paused", 3, 3)
        p = led_by_non_controller(c, topic)
        before = c.partition_state(topic, p)
        paused = c.node(before["leader"])
        session_ms = int(c.props.get("broker.session.timeout.ms", 2000))
        general = ProducerLoop(c.bootstrap(), topic, rate=300, prefix="any")
        # Only the paused broker is its bootstrap, with timeouts long
        # enough that its requests wait in the paused leader's socket and
        # are read after SIGCONT by a leader deposed meanwhile.
        pinned = ProducerLoop(paused.bootstrap, topic, partition=p, rate=100, prefix="pinned", conf={"request.timeout.ms": 30000, "message.timeout.ms": 120000})
        general.start()
        pinned.start()
        wait_for("acknowledgements", lambda: len(general.acked) >= 200 and len(pinned.acked) >= 50, 30)

        t_pause = time.monotonic()
        paused.pause()
        after = wait_for(f"{topic}-{p} moved off broker {paused.id}", lambda: moved_off(c, topic, p, paused, before), session_ms / 1000 + 15, interval=0.05)
        t_fenced = time.monotonic() - t_pause
        log(f"broker {paused.id} fenced {t_fenced * 1000:.0f} ms after SIGSTOP (broker.session.timeout.ms={session_ms}): {topic}-{p} leader {after['leader']}, epoch {after['leader_epoch']}")
        check(paused.id in c.registered(), f"broker {paused.id}'s ZooKeeper session expired: this is not fencing")
        wait_for(f"broker {paused.id} out of every ISR", lambda: all(paused.id not in s["isr"] for s in c.all_states().values()), 10)
        # DescribeCluster v2 (KIP-1073): the fenced broker is listed, marked
        # fenced, only when IncludeFencedBrokers asks for it.
        live = c.node(after["leader"])
        others = sorted((n.id, False) for n in c.nodes if n is not paused)
        wait_for("DescribeCluster without the fenced broker", lambda: describe_cluster(live, False) == others, 10)
        listed = describe_cluster(live, True)
        check(listed == sorted(others + [(paused.id, True)]), f"DescribeCluster with IncludeFencedBrokers listed {listed}")
        log(f"DescribeCluster v2: {others} without fenced brokers, {listed} with them")
        wait_for("produce going on without the paused broker", lambda: len(general.acks_between(t_pause + t_fenced, FOREVER, partition=p)) >= 50, 30)
        t_first = first_ack_of_epoch(c, general, topic, p, after)
        log(f"first acknowledgement by the new leader of {topic}-{p} {(t_first - t_pause) * 1000:.0f} ms after SIGSTOP")
        time.sleep(2)
        t_cont = time.monotonic()
        paused.cont()
        acked_while_fenced = pinned.acks_between(t_pause, t_cont)
        wait_for(f"broker {paused.id} back in every ISR", lambda: all(sorted(s["isr"]) == [1, 2, 3] for s in c.all_states().values()), 60, interval=0.2)
        log(f"broker {paused.id} unfenced and back in every ISR {time.monotonic() - t_cont:.1f} s after SIGCONT")
        check(paused.id in c.registered(), f"broker {paused.id} left /brokers/ids")
        check(not acked_while_fenced, f"{len(acked_while_fenced)} records acknowledged through the paused broker while it was stopped")
        time.sleep(1)
        for prod in (general, pinned):
            check(prod.stop() == 0, "records still unacknowledged")
            check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")
        read_back(c, [general, pinned], topic)
        late = pinned.acks_between(t_cont, FOREVER)
        log(f"{len(general.acked)} + {len(pinned.acked)} acknowledged records all read back; the pinned producer's first after SIGCONT {(min(a.t for a in late) - t_cont) * 1000 if late else float('nan'):.0f} ms after it")


# -- preferred leaders -----------------------------------------------------------------------------


def preferred_leader_return(troupe):
    """A restarted node gets its preferred leaderships back within the
    leader imbalance check (auto.leader.rebalance.enable), with a new
    leader epoch, and produce goes on throughout."""
    interval = 3
    with Cluster(troupe, props={"leader.imbalance.check.interval.seconds": interval}) as c:
        c.start(3)
        topic = c.create_topic("preferred", 6, 3)
        preferred = {q: c.zk_get_json(f"/brokers/topics/{topic}")["partitions"][str(q)][0] for q in c.topic_partitions(topic)}
        ctl = c.controller()
        victim = c.node(next(b for b in sorted(set(preferred.values())) if b != ctl))
        mine = [q for q, b in preferred.items() if b == victim.id]
        check(all(c.partition_state(topic, q)["leader"] == victim.id for q in mine), f"broker {victim.id} does not lead its preferred partitions {mine} at the start")
        prod = ProducerLoop(c.bootstrap(), topic, rate=300)
        prod.start()
        wait_for("acknowledgements", lambda: len(prod.acked) >= 200, 30)
        victim.kill9()
        wait_for(f"{mine} led by others", lambda: all(c.partition_state(topic, q)["leader"] not in (-1, victim.id) for q in mine), 20)
        epochs = {q: c.partition_state(topic, q)["leader_epoch"] for q in mine}
        time.sleep(interval + 1)  # an imbalance check with the broker away moves nothing to it
        check(all(c.partition_state(topic, q)["leader"] != victim.id for q in mine), "leadership went to a dead broker")
        victim.restart()
        t_back = time.monotonic()
        c.wait_ready([1, 2, 3])
        wait_for(f"broker {victim.id} leading {mine} again", lambda: all(c.partition_state(topic, q)["leader"] == victim.id for q in mine), c.session_timeout_ms / 1000 + 4 * interval + 30, interval=0.2)
        log(f"broker {victim.id} leads its preferred partitions {mine} again {time.monotonic() - t_back:.1f} s after its restart (leader.imbalance.check.interval.seconds={interval})")
        for q in mine:
            s = c.partition_state(topic, q)
            check(s["leader_epoch"] == epochs[q] + 1, f"{topic}-{q}: leader epoch {epochs[q]} -> {s['leader_epoch']}, expected + 1")
        t_moved = time.monotonic()
        wait_for("acknowledgements on the moved partitions", lambda: all(len(prod.acks_between(t_moved, FOREVER, partition=q)) >= 10 for q in mine), 30)
        check(prod.stop() == 0, "records still unacknowledged")
        check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")
        read_back(c, [prod], topic)
        log(f"{len(prod.acked)} acknowledged records, all read back")


def leader_rebalance_disabled(troupe):
    """auto.leader.rebalance.enable=false: a restarted node stays a
    follower of the partitions it prefers (an ElectLeaders is then the way
    back)."""
    interval = 2
    with Cluster(troupe, props={"leader.imbalance.check.interval.seconds": interval, "auto.leader.rebalance.enable": "false"}) as c:
        c.start(3)
        topic = c.create_topic("stays", 3, 3)
        p = led_by_non_controller(c, topic)
        victim = c.leader(topic, p)
        victim.kill9()
        wait_for(f"{topic}-{p} led by another broker", lambda: c.partition_state(topic, p)["leader"] not in (-1, victim.id), 20)
        victim.restart()
        c.wait_ready([1, 2, 3])
        c.wait_isr(topic, p, [1, 2, 3], 30)
        time.sleep(3 * interval)
        check(c.partition_state(topic, p)["leader"] != victim.id, "leadership moved back with auto.leader.rebalance.enable=false")


CASES = {
    "kill9-failover": (kill9_failover, 120),
    "controller-kill9": (controller_kill9, 150),
    "sigstop-fenced": (sigstop_fenced, 150),
    "preferred-leader-return": (preferred_leader_return, 150),
    "leader-rebalance-disabled": (leader_rebalance_disabled, 120),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
