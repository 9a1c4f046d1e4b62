#!/usr/bin/python3
"""Failover of a cluster of troupe processes: three nodes and ZooKeeper
(zookeeper.session.timeout.ms at Kafka's 18 s), a topic with replication
factor 3 and min.insync.replicas=2, a librdkafka producer (acks=all, 300
records/s) on each of its three partitions. Each trial picks a partition
whose leader is not the controller's node (kill9, sigstop) or is
(kill9-controller, sigstop-controller: the brokers depose the controller
first, cluster/controller_failover.cpp), kills that node with -9 or
stops it with SIGSTOP, and measures the
time until ZooKeeper names a new leader and until the first record of the
new leader epoch is acknowledged. A killed node is restarted, a stopped one
continued, and it rejoins the ISR before the next trial.

The producers' socket.timeout.ms is 5000 (librdkafka's default of 60 s
otherwise decides: a metadata request sent to the stopped broker, whose
connection stays open, waits that long before the client asks another).

The same run compares troupe's broker liveness defaults
(broker.heartbeat.interval.ms=200, broker.session.timeout.ms=2000) with
Kafka's KRaft defaults (2000, 9000) on the same machine.

    failover_bench.py TROUPE [TRIALS] [FAULTS]
        FAULTS: kill9,sigstop,kill9-controller,sigstop-controller

Prints a markdown table (scripts/bench_cluster.sh).
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "cluster"))

from cluster_fixture import Cluster, ProducerLoop, first_ack_of_epoch, log, wait_for  # noqa: E402

SESSION_MS = 18000
SETTINGS = [
    ("troupe's defaults (200 / 2000)", {}),
    ("Kafka's KRaft defaults (2000 / 9000)", {"broker.heartbeat.interval.ms": 2000, "broker.session.timeout.ms": 9000}),
]


def trial(c, topic, prods, fault):
    # A partition led by a broker that is (the *-controller faults) or is
    # not the active controller.
    on_controller = fault.endswith("-controller")

    def pick():
        ctl = c.controller()
        return [q for q in c.topic_partitions(topic) if (c.partition_state(topic, q)["leader"] == ctl) == on_controller][:1]

    # A restarted broker leads again once the imbalance check (5 s here)
    # gives it its preferred leaderships back.
    p = wait_for("a partition to fault", pick, 60, interval=0.5)[0]
    prod = prods[p]
    before = c.partition_state(topic, p)
    victim = c.node(before["leader"])
    t_fault = time.monotonic()
    if fault.startswith("kill9"):
        victim.kill9()
    else:
        victim.pause()
    state = wait_for("a new leader", lambda: (s := c.partition_state(topic, p))["leader"] not in (-1, victim.id) and s["leader_epoch"] > before["leader_epoch"] and s, SESSION_MS / 1000 + 30, interval=0.02)
    t_leader = time.monotonic()
    t_ack = first_ack_of_epoch(c, prod, topic, p, state, timeout=60)
    if fault.startswith("kill9"):
        victim.restart()
    else:
        victim.cont()
    c.wait_ready([n.id for n in c.nodes], timeout=SESSION_MS / 1000 + 60)
    for q in c.topic_partitions(topic):
        c.wait_isr(topic, q, [n.id for n in c.nodes], 60)
    time.sleep(1)
    return (t_leader - t_fault) * 1000, (t_ack - t_fault) * 1000


def run(troupe, props, fault, trials):
    props = dict(props, **{"leader.imbalance.check.interval.seconds": 5})
    with Cluster(troupe, session_timeout_ms=SESSION_MS, props=props) as c:
        c.start(3)
        # Six partitions over three brokers: each broker leads two, the
        # controller's node among them.
        topic = c.create_topic("failover", 6, 3)
        prods = [ProducerLoop(c.bootstrap(), topic, partition=q, rate=150, prefix=f"p{q}", conf={"message.timeout.ms": 120000, "topic.metadata.refresh.fast.interval.ms": 100, "socket.timeout.ms": 5000}) for q in range(6)]
        for prod in prods:
            prod.start()
        wait_for("acknowledgements", lambda: all(len(prod.acked) >= 100 for prod in prods), 30)
        out = []
        for i in range(trials):
            leader_ms, ack_ms = trial(c, topic, prods, fault)
            log(f"{fault} {props or 'defaults'}, trial {i + 1}: new leader after {leader_ms:.0f} ms, first acknowledgement by it after {ack_ms:.0f} ms")
            out.append((leader_ms, ack_ms))
        for prod in prods:
            prod.stop()
        return out, sum(len(prod.failed) for prod in prods)


def main():
    troupe = os.path.abspath(sys.argv[1])
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    faults = (sys.argv[3] if len(sys.argv) > 3 else "kill9,sigstop").split(",")
    rows = []
    for fault in faults:
        for name, props in SETTINGS:
            results, failed = run(troupe, props, fault, trials)
            leaders = [r[0] for r in results]
            acks = [r[1] for r in results]
            rows.append((fault, name, trials, statistics.median(leaders), max(leaders), statistics.median(acks), max(acks), failed))
    print()
    print("| fault | broker.heartbeat.interval.ms / broker.session.timeout.ms | trials | → new leader in ZooKeeper, median / max (ms) | → first ack by the new leader, median / max (ms) | failed records |")
    print("|---|---|---:|---:|---:|---:|")
    for fault, name, n, leader, leader_max, ack, ack_max, failed in rows:
        what = ("kill -9" if fault.startswith("kill9") else "SIGSTOP") + (" of the controller's node" if fault.endswith("-controller") else "")
        print(f"| {what} | {name} | {n} | {leader:,.0f} / {leader_max:,.0f} | {ack:,.0f} / {ack_max:,.0f} | {failed} |")


if __name__ == "__main__":
    main()
