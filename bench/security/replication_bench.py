"""Replication across nodes over TLS node links against plain links, in the
same run (README, "Security"; not a test).

    /usr/bin/python3 bench/security/replication_bench.py build/troupe \\
        [--seconds 10] [--trials 2] [--size 1000]

Each trial starts ZooKeeper and three `troupe serve` nodes
(tests/cluster/cluster_fixture.py) with troupe.cluster.security=plaintext,
then with troupe.cluster.security=ssl (certificates from tests/lib/certs.py),
creates a 3-partition topic with replication factor 3 (min.insync.replicas
2), and runs one librdkafka producer (confluent-kafka) with acks=all for
--seconds: each acknowledged record was written by the leader and fetched
by a follower over a node link. The producer's queue holds at most 20,000
records, so the latency (produce() to acknowledgement) includes that
queueing. Printed: acknowledged records and MB per second, and that
latency's p50 and p99, per mode, and TLS as a fraction of plain. Every process is stopped by pid at the end of each
trial.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "cluster"))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))

from certs import make_pki  # noqa: E402
from cluster_fixture import Cluster, log  # noqa: E402
from confluent_kafka import Producer  # noqa: E402


def run(troupe, mode, seconds, size):
    with Cluster(troupe) as c:
        if mode == "ssl":
            pki = make_pki(os.path.join(c.dir, "pki"))
            c.props.update({
                "troupe.cluster.security": "ssl",
                "troupe.cluster.ssl.keystore.location": pki.server_pem,
                "troupe.cluster.ssl.truststore.location": pki.ca_cert,
            })
        else:
            c.props["troupe.cluster.security"] = "plaintext"
        c.start(3)
        topic = c.create_topic("bench-replication", 3, 3)
        p = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 5, "batch.num.messages": 1000, "queue.buffering.max.messages": 20000, "enable.idempotence": False})
        value = b"x" * size
        latencies, errors = [], [0]

        def report(err, msg, t0):
            if err:
                errors[0] += 1
            else:
                latencies.append(time.monotonic() - t0)

        start = time.monotonic()
        end = start + seconds
        while time.monotonic() < end:
            t0 = time.monotonic()
            try:
                p.produce(topic, value, on_delivery=lambda err, msg, t0=t0: report(err, msg, t0))
            except BufferError:
                p.poll(0.005)
                continue
            p.poll(0)
        p.flush(60)
        elapsed = time.monotonic() - start
        latencies.sort()
        n = len(latencies)
        return {
            "records": n,
            "rate": n / elapsed,
            "mb": n * size / elapsed / 1e6,
            "p50": latencies[n // 2] * 1000 if n else float("nan"),
            "p99": latencies[int(n * 0.99)] * 1000 if n else float("nan"),
            "errors": errors[0],
        }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("troupe")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--size", type=int, default=1000)
    a = ap.parse_args()
    troupe = os.path.abspath(a.troupe)
    results = {"plaintext": [], "ssl": []}
    for t in range(a.trials):
        for mode in ("plaintext", "ssl"):
            r = run(troupe, mode, a.seconds, a.size)
            log(f"trial {t + 1} {mode}: {r}")
            results[mode].append(r)

    def best(mode, key):
        return max(r[key] for r in results[mode])

    def median(mode, key):
        xs = sorted(r[key] for r in results[mode])
        return xs[len(xs) // 2]

    print()
    print(f"Replication across 3 nodes, RF 3, acks=all, {a.size}-byte records, one librdkafka producer, {a.seconds:.0f} s x {a.trials} trials per mode (best trial; latency: median of trials)")
    print()
    print("| node links | records/s | MB/s | ack p50 ms | ack p99 ms | errors |")
    print("|---|---:|---:|---:|---:|---:|")
    for mode, name in (("plaintext", "plain (troupe.cluster.security=plaintext)"), ("ssl", "mutual TLS (troupe.cluster.security=ssl)")):
        print(f"| {name} | {best(mode, 'rate'):,.0f} | {best(mode, 'mb'):.1f} | {median(mode, 'p50'):.1f} | {median(mode, 'p99'):.1f} | {sum(r['errors'] for r in results[mode])} |")
    print()
    print(f"TLS / plain throughput: {best('ssl', 'rate') / best('plaintext', 'rate'):.2f}")


if __name__ == "__main__":
    main()
