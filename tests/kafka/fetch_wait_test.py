#!/usr/bin/python3
"""A fetch waits for min.bytes summed over all its partitions, as Kafka's
ReplicaManager.fetchMessages and DelayedFetch, end to end against
`troupe serve`:

    fetch_wait_test.py TROUPE_BINARY

Fetch v11 by hand (tests/kafka/fetch_sessions_test.py's codec), sessionless,
to the broker that leads two partitions a and b, both read to their end:

- records produced to b while the fetch waits answer it at once, long
  before max.wait.ms, though a has nothing;
- with nothing produced the fetch is answered at max.wait.ms, empty;
- records below min.bytes do not end the wait: the answer comes at
  max.wait.ms and carries them;
- max.wait.ms 0 is answered at once;
- a fetch at the high watermark (which the listener answers from the
  leader's published view, without asking the replica) still hears
  UNKNOWN_LEADER_EPOCH for a leader epoch from the future, and hears
  the partition is gone once the topic is deleted;
- librdkafka, assigned all six partitions, reads a record produced to one
  of them within a fraction of its fetch.wait.max.ms (500 ms).

Bounds are wide (the machine is shared): "at once" is under half the wait.
The server is stopped by pid however the test ends.
"""

import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from troupe_serve import TroupeServe  # noqa: E402
from fetch_sessions_test import fetch_v11  # noqa: E402

from confluent_kafka import (Consumer, OFFSET_END, Producer,  # noqa: E402
                             TopicPartition)
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

NONE = 0
UNKNOWN_LEADER_EPOCH = 75


def log(msg):
    print("[fetch-wait] " + msg, flush=True)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    log("ok: " + what)


def leaders_of(admin, topic, count):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        t = admin.list_topics(timeout=10).topics.get(topic)
        if t and len(t.partitions) == count and all(
                p.leader >= 0 for p in t.partitions.values()):
            return {i: p.leader for i, p in t.partitions.items()}
        time.sleep(0.2)
    raise AssertionError("no leaders for " + topic)


def timed_fetch(port, parts, max_wait_ms, min_bytes=1, during=None,
                leader_epoch=-1):
    """Sends the fetch; runs `during` 300 ms later on another thread.
    Answers (seconds taken, error, {partition: (error, hw, records)})."""
    if during:
        t = threading.Timer(0.3, during)
        t.start()
    start = time.monotonic()
    err, _, out = fetch_v11(port, 0, -1, parts, max_wait_ms=max_wait_ms,
                            topic="w", min_bytes=min_bytes,
                            leader_epoch=leader_epoch)
    took = time.monotonic() - start
    if during:
        t.join()
    return took, err, out


def run(srv):
    bootstrap = srv.bootstrap()
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    admin.create_topics([NewTopic("w", 6, 1)])["w"].result(30)
    by_broker = {}
    for p, b in leaders_of(admin, "w", 6).items():
        by_broker.setdefault(b, []).append(p)
    broker, mine = max(by_broker.items(), key=lambda kv: len(kv[1]))
    check(len(mine) >= 2, "broker %d leads partitions %s" % (broker, mine))
    port = srv.port + broker
    a, b = mine[0], mine[1]
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                         "linger.ms": 0, "log_level": 0})
    sent = [0]

    def produce_b(value=b"x" * 10):
        producer.produce("w", value=value, partition=b)
        producer.flush(10)
        sent[0] += 1

    produce_b()  # warms the producer's metadata
    ends = {a: 0, b: sent[0]}

    took, err, out = timed_fetch(port, [(a, ends[a]), (b, ends[b])], 5000,
                                 during=produce_b)
    check(err == NONE and b in out and len(out[b][2]) > 0,
          "records on b answer the fetch of a and b")
    check(took < 2.5, "at once, not at max.wait.ms 5000 (took %.3f s)" % took)
    ends[b] = sent[0]

    took, err, out = timed_fetch(port, [(a, ends[a]), (b, ends[b])], 1000)
    check(err == NONE and all(len(v[2]) == 0 for v in out.values()),
          "nothing produced: an empty answer")
    check(took >= 0.9, "at max.wait.ms 1000 (took %.3f s)" % took)

    took, err, out = timed_fetch(port, [(a, ends[a]), (b, ends[b])], 2000,
                                 min_bytes=1 << 20, during=produce_b)
    check(err == NONE and len(out[b][2]) > 0,
          "records below min.bytes are answered at the end of the wait")
    check(took >= 1.8, "which min.bytes 1 MiB kept going to max.wait.ms "
          "2000 (took %.3f s)" % took)
    ends[b] = sent[0]

    took, err, out = timed_fetch(port, [(a, ends[a]), (b, ends[b])], 0)
    check(err == NONE and took < 1.0,
          "max.wait.ms 0 is answered at once (took %.3f s)" % took)

    # Caught up, the partitions are answered from their leaders' views; the
    # fetch's leader epoch is still checked (Kafka's FetchRequest fencing).
    took, err, out = timed_fetch(port, [(a, ends[a]), (b, ends[b])], 1000,
                                 leader_epoch=999)
    check(err == NONE and out[a][0] == UNKNOWN_LEADER_EPOCH
          and out[b][0] == UNKNOWN_LEADER_EPOCH and took < 0.5,
          "a leader epoch from the future hears UNKNOWN_LEADER_EPOCH at once, "
          "at the high watermark too (took %.3f s; %s)" % (took, out))

    # librdkafka, fetch.wait.max.ms 500: a record on one of six partitions
    # reaches the consumer long before the wait ends.
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "fw",
                  "log_level": 0, "fetch.wait.max.ms": 500})
    c.assign([TopicPartition("w", p, OFFSET_END) for p in range(6)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # every position resolved
        c.poll(0.2)
        if all(tp.offset >= 0 for tp in
               c.position([TopicPartition("w", p) for p in range(6)])):
            break
    latencies = []
    for _ in range(10):
        t0 = time.monotonic()
        produce_b()
        got = None
        while got is None and time.monotonic() - t0 < 10:
            m = c.poll(0.05)
            if m is not None and not m.error():
                got = m
        check(got is not None, "librdkafka reads the record")
        latencies.append(time.monotonic() - t0)
    c.close()
    latencies.sort()
    check(latencies[len(latencies) // 2] < 0.25,
          "librdkafka's median latency %.3f s is well under its fetch.wait.max.ms"
          % latencies[len(latencies) // 2])
    ends[b] = sent[0]

    # A deleted topic's leaders withdraw their views: a fetch at the high
    # watermark hears an error, not an empty answer.
    admin.delete_topics(["w"])["w"].result(30)
    deadline = time.monotonic() + 15
    errors = (NONE, NONE)
    while time.monotonic() < deadline:
        _, err, out = timed_fetch(port, [(a, ends[a]), (b, ends[b])], 100)
        errors = (out.get(a, (NONE,))[0], out.get(b, (NONE,))[0]) \
            if err == NONE else (err, err)
        if NONE not in errors:
            break
        time.sleep(0.2)
    check(NONE not in errors,
          "a fetch of the deleted topic at its old high watermark hears "
          "errors %s" % (errors,))


def main():
    if len(sys.argv) < 2:
        print("usage: fetch_wait_test.py TROUPE")
        return 2
    with TroupeServe(sys.argv[1]) as srv:
        run(srv)
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
