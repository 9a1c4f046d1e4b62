#!/usr/bin/python3
"""Failover of a cluster of troupe processes against
zookeeper.session.timeout.ms: three nodes and ZooKeeper, a topic with
replication factor 3 and min.insync.replicas=2, a librdkafka producer
(acks=all, 500 records/s) pinned to one partition; the partition leader's
node is killed with -9 and the times from the kill until ZooKeeper names a
new leader and until the first record acknowledged by the new leader are
measured; the node is restarted and rejoins the ISR before the next trial.

    failover_bench.py TROUPE [SESSION_MS,SESSION_MS,...] [TRIALS]

Prints a markdown table (scripts/bench_cluster.sh).
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "cluster"))

from cluster_fixture import Cluster, ProducerLoop, log, wait_for  # noqa: E402


def trial(c, topic, p, prod):
    state = c.partition_state(topic, p)
    victim = c.node(state["leader"])
    with prod.lock:
        last_old = max((a.offset for a in prod.acked if a.partition == p), default=-1)
    t_kill = time.monotonic()
    victim.kill9()
    wait_for("a new leader", lambda: c.partition_state(topic, p)["leader"] not in (-1, victim.id), c.session_timeout_ms / 1000 + 30, interval=0.02)
    t_leader = time.monotonic()

    def first_new_ack():
        with prod.lock:
            news = [a.t for a in prod.acked if a.partition == p and a.offset > last_old and a.t > t_kill]
        return min(news) if news else None

    t_ack = wait_for("an acknowledgement from the new leader", first_new_ack, 60, interval=0.02)
    victim.restart()
    c.wait_ready([n.id for n in c.nodes])
    c.wait_isr(topic, p, [n.id for n in c.nodes], 60)
    time.sleep(1)
    return (t_leader - t_kill) * 1000, (t_ack - t_kill) * 1000


def run(troupe, session_ms, trials):
    with Cluster(troupe, session_timeout_ms=session_ms) as c:
        c.start(3)
        topic = c.create_topic("failover", 1, 3)
        prod = ProducerLoop(c.bootstrap(), topic, partition=0, rate=500, conf={"message.timeout.ms": 120000, "topic.metadata.refresh.fast.interval.ms": 100})
        prod.start()
        wait_for("acknowledgements", lambda: len(prod.acked) >= 200, 30)
        out = []
        for i in range(trials):
            leader_ms, ack_ms = trial(c, topic, 0, prod)
            log(f"session {session_ms} ms, trial {i + 1}: new leader after {leader_ms:.0f} ms, first acknowledgement after {ack_ms:.0f} ms")
            out.append((leader_ms, ack_ms))
        prod.stop()
        return out, len(prod.failed)


def main():
    troupe = os.path.abspath(sys.argv[1])
    sessions = [int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "3000,6000,10000").split(",")]
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rows = []
    for s in sessions:
        results, failed = run(troupe, s, trials)
        leaders = [r[0] for r in results]
        acks = [r[1] for r in results]
        rows.append((s, trials, statistics.median(leaders), statistics.median(acks), max(acks), failed))
    print()
    print("| zookeeper.session.timeout.ms | trials | kill -9 → new leader in ZooKeeper, median (ms) | kill -9 → first ack by the new leader, median (ms) | max (ms) | median − session timeout (ms) | failed records |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for s, n, leader, ack, worst, failed in rows:
        print(f"| {s} | {n} | {leader:,.0f} | {ack:,.0f} | {worst:,.0f} | {ack - s:,.0f} | {failed} |")


if __name__ == "__main__":
    main()
