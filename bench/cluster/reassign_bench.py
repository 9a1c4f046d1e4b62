#!/usr/bin/python3
"""Partition reassignment throughput, with and without a replication
throttle (KIP-73), against the produce throughput it leaves: three nodes
and ZooKeeper, then a fourth node. A topic of 4 partitions with replication
factor 1 holds MIB MiB; each row moves all of it onto broker 4 (or back)
with `troupe reassign --execute [--throttle RATE]` and waits for --verify.
Meanwhile one librdkafka producer (acks=all, 1 KiB records, as fast as
the cluster acknowledges) writes to another topic (3 partitions,
replication factor 3); its acknowledged MiB/s during the move is compared
with the same producer's rate in the 5 s before it, in the same run.

    reassign_bench.py TROUPE [MIB] [THROTTLES]    THROTTLES: none,16777216,4194304

Prints a markdown table (scripts/bench_cluster.sh).
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests", "cluster"))

from cluster_fixture import Cluster, fill, log, wait_for  # noqa: E402
from confluent_kafka import Producer  # noqa: E402


class Saturating(threading.Thread):
    """Produces 1 KiB records as fast as they are acknowledged (at most
    `window` unacknowledged); keeps (time, bytes) of every ack."""

    def __init__(self, bootstrap, topic, window=20000):
        super().__init__(daemon=True)
        self.p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5, "log_level": 2})
        self.topic, self.window = topic, window
        self.acks = []
        self.lock = threading.Lock()
        self.halt = threading.Event()

    def _ack(self, err, msg):
        if err is None:
            with self.lock:
                self.acks.append((time.monotonic(), len(msg.value())))

    def run(self):
        value = b"v" * 1024
        while not self.halt.is_set():
            try:
                self.p.produce(self.topic, value, on_delivery=self._ack)
            except BufferError:
                self.p.poll(0.01)
                continue
            if len(self.p) > self.window:
                self.p.poll(0.005)
            else:
                self.p.poll(0)

    def mib_per_s(self, t0, t1):
        with self.lock:
            n = sum(b for t, b in self.acks if t0 <= t < t1)
        return n / (1 << 20) / max(t1 - t0, 1e-9)

    def stop(self):
        self.halt.set()
        self.join(timeout=10)
        self.p.flush(30)


def reassign(troupe, bootstrap, *args):
    r = subprocess.run([troupe, "reassign", "--bootstrap-server", bootstrap, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr


def main():
    troupe = sys.argv[1]
    mib = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    throttles = (sys.argv[3] if len(sys.argv) > 3 else "none,16777216,4194304").split(",")
    rows = []
    with Cluster(troupe) as c, tempfile.TemporaryDirectory(prefix="troupe-reassign-bench-") as tmp:
        c.start(3)
        topic = c.create_topic("bulk", 4, 1)
        c.set_topic_configs(topic, min_insync_replicas=1)
        size = fill(c.bootstrap(), topic, 4, mib)
        c.add_node().start()
        c.wait_ready([1, 2, 3, 4])
        home = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"]
        live = c.create_topic("live", 3, 3)
        prod = Saturating(c.bootstrap(), live)
        prod.start()
        time.sleep(3)  # the producer's connections and batches settle
        on4 = False
        for throttle in throttles:
            target = {q: (home[str(q)] if on4 else [4]) for q in range(4)}
            path = os.path.join(tmp, "plan.json")
            with open(path, "w") as f:
                json.dump({"version": 1, "partitions": [{"topic": topic, "partition": q, "replicas": r} for q, r in target.items()]}, f)
            t_before = time.monotonic()
            time.sleep(5)
            args = ["--execute", "--reassignment-json-file", path]
            if throttle != "none":
                args += ["--throttle", throttle]
            t0 = time.monotonic()
            rc, out = reassign(troupe, c.bootstrap(), *args)
            if rc != 0:
                raise SystemExit(f"--execute failed: {out}")
            wait_for("the reassignment", lambda: reassign(troupe, c.bootstrap(), "--verify", "--reassignment-json-file", path)[0] == 0, 600, interval=0.2)
            t1 = time.monotonic()
            before = prod.mib_per_s(t_before, t0)
            during = prod.mib_per_s(t0, t1)
            moved = size / (1 << 20) / (t1 - t0)
            label = "none" if throttle == "none" else f"{int(throttle) / (1 << 20):g} MiB/s"
            log(f"throttle {label}: {mib} MiB in {t1 - t0:.1f} s ({moved:.1f} MiB/s); produce {before:.2f} -> {during:.2f} MiB/s")
            rows.append((label, t1 - t0, moved, before, during))
            on4 = not on4
        prod.stop()
    print(f"| throttle | {mib} MiB moved in | reassignment MiB/s | produce MiB/s before | produce MiB/s during | produce kept |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, secs, moved, before, during in rows:
        print(f"| {label} | {secs:.1f} s | {moved:.1f} | {before:.2f} | {during:.2f} | {during / before:.0%} |")


if __name__ == "__main__":
    main()
