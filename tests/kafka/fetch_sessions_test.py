#!/usr/bin/python3
"""Incremental fetch sessions (KIP-227) end to end against `troupe serve`:

    fetch_sessions_test.py TROUPE_BINARY

Fetch v11 written field for field as Kafka's FetchRequest.json and
FetchResponse.json (tests/lib/kafka_wire.py's framing), to the broker that
leads the partitions, as a Java consumer's fetcher sends them:

- a full fetch at epoch 0 opens a session: a non-zero session id, every
  partition answered;
- an incremental fetch (epoch 1, 2, ...) names only what changed and is
  answered only the partitions with something new (records, a new high
  watermark); a partition it does not name keeps its fetch offset;
- a resent epoch is INVALID_FETCH_SESSION_EPOCH, an unknown session
  FETCH_SESSION_ID_NOT_FOUND;
- a forgotten partition is no longer answered;
- a full fetch at epoch -1 naming the session closes it;
- librdkafka (confluent-kafka, sessionless) reads the same records.

The server is stopped by pid however the test ends.
"""

import os
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kafka_wire import Conn, _Reader, _string  # noqa: E402
from troupe_serve import TroupeServe  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

FETCH = 1
NONE = 0
FETCH_SESSION_ID_NOT_FOUND = 70
INVALID_FETCH_SESSION_EPOCH = 71


def log(msg):
    print("[fetch-sessions] " + msg, flush=True)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    log("ok: " + what)


def _array(items, encode):
    return struct.pack(">i", len(items)) + b"".join(encode(x) for x in items)


def fetch_v11(port, session_id, epoch, partitions, forgotten=(),
              max_wait_ms=50, topic="s", min_bytes=1, leader_epoch=-1):
    """Fetch v11: `partitions` [(partition, fetch offset)] of `topic`,
    `forgotten` [partition], each with current leader epoch
    `leader_epoch`. Answers (error, session id,
    {partition: (error, high watermark, record bytes)})."""
    def part(p):
        idx, offset = p
        # partition, current_leader_epoch, fetch_offset, log_start_offset,
        # partition_max_bytes
        return struct.pack(">iiqqi", idx, leader_epoch, offset, -1, 1 << 20)
    topics = [(topic, list(partitions))] if partitions else []
    body = struct.pack(">iiiib", -1, max_wait_ms, min_bytes, 1 << 24, 0)
    body += struct.pack(">ii", session_id, epoch)
    body += _array(topics, lambda t: _string(t[0]) + _array(t[1], part))
    gone = [(topic, list(forgotten))] if forgotten else []
    body += _array(gone, lambda t: _string(t[0])
                   + _array(t[1], lambda p: struct.pack(">i", p)))
    body += _string("")  # rack_id
    with Conn("127.0.0.1", port) as c:
        r = _Reader(c.request(FETCH, 11, body))
    r.int32()  # throttle
    error, sid = r.int16(), r.int32()
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            idx, err, hw = r.int32(), r.int16(), r.int64()
            r.int64()  # last stable offset
            r.int64()  # log start offset
            n = r.int32()  # aborted transactions (nullable)
            for _ in range(max(n, 0)):
                r.int64()
                r.int64()
            r.int32()  # preferred read replica
            size = r.int32()
            records = r.take(size) if size > 0 else b""
            out[idx] = (err, hw, records)
    return error, sid, out


def produce(bootstrap, topic, partition, n, tag):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all",
                  "log_level": 0})
    for i in range(n):
        p.produce(topic, value=("%s-%d" % (tag, i)).encode(),
                  partition=partition)
    left = p.flush(30)
    check(left == 0, "%d records of %s acknowledged on partition %d"
          % (n, tag, partition))


def run(srv):
    bootstrap = srv.bootstrap()
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 0})
    futures = admin.create_topics([NewTopic("s", 6, 3)])
    futures["s"].result(30)
    # The partitions one broker leads: the session's.
    deadline = time.monotonic() + 30
    leaders = {}
    while time.monotonic() < deadline:
        md = admin.list_topics(timeout=10)
        t = md.topics.get("s")
        if t and len(t.partitions) == 6 and all(
                p.leader >= 0 for p in t.partitions.values()):
            leaders = {i: p.leader for i, p in t.partitions.items()}
            break
        time.sleep(0.2)
    by_broker = {}
    for p, b in leaders.items():
        by_broker.setdefault(b, []).append(p)
    broker, mine = max(by_broker.items(), key=lambda kv: len(kv[1]))
    check(len(mine) >= 2, "broker %d leads partitions %s" % (broker, mine))
    port = srv.port + broker
    a, b = mine[0], mine[1]
    produce(bootstrap, "s", a, 10, "a1")

    # A full fetch at epoch 0 opens a session and is answered in full.
    err, sid, parts = fetch_v11(port, 0, 0, [(a, 0), (b, 0)])
    check(err == NONE and sid != 0, "a full fetch at epoch 0 opens session %d"
          % sid)
    check(set(parts) == {a, b}, "the full fetch answers both partitions")
    check(parts[a][1] == 10 and len(parts[a][2]) > 0,
          "partition %d: high watermark 10 and its records" % a)

    # Incremental: partition a moves to offset 10, nothing new anywhere.
    err, sid2, parts = fetch_v11(port, sid, 1, [(a, 10)])
    check(err == NONE and sid2 == sid, "the incremental fetch keeps the id")
    check(parts == {}, "nothing new: an empty incremental response")

    # New records on b only: only b is answered, though not named.
    produce(bootstrap, "s", b, 5, "b1")
    err, _, parts = fetch_v11(port, sid, 2, [])
    check(err == NONE and set(parts) == {b},
          "only partition %d, with new records, is answered" % b)
    check(parts[b][1] == 5 and len(parts[b][2]) > 0,
          "partition %d: high watermark 5 and its records" % b)

    # The same epoch again, and an unknown session.
    err, _, parts = fetch_v11(port, sid, 2, [])
    check(err == INVALID_FETCH_SESSION_EPOCH and parts == {},
          "a resent epoch is INVALID_FETCH_SESSION_EPOCH")
    unknown = sid + 1 if sid < 0x7fffffff else 1
    err, _, _ = fetch_v11(port, unknown, 1, [])
    check(err == FETCH_SESSION_ID_NOT_FOUND,
          "an unknown session is FETCH_SESSION_ID_NOT_FOUND")

    # a keeps fetch offset 10 in the session: new records on a are
    # answered from there.
    produce(bootstrap, "s", a, 3, "a2")
    err, _, parts = fetch_v11(port, sid, 3, [(b, 5)])
    check(err == NONE and set(parts) == {a},
          "partition %d, not named since, is answered its new records" % a)
    check(b"a2-0" in parts[a][2] and b"a1-0" not in parts[a][2],
          "from the fetch offset the session kept (10)")

    # Forget b: new records there are not answered.
    err, _, parts = fetch_v11(port, sid, 4, [(a, 13)], forgotten=[b])
    check(err == NONE, "b forgotten")
    produce(bootstrap, "s", b, 2, "b2")
    err, _, parts = fetch_v11(port, sid, 5, [])
    check(err == NONE and b not in parts,
          "a forgotten partition is not answered")

    # A full fetch at epoch -1 closes the session and opens none.
    err, sid3, parts = fetch_v11(port, sid, -1, [(a, 0)])
    check(err == NONE and sid3 == 0 and a in parts,
          "a full fetch at epoch -1 is answered without a session")
    err, _, _ = fetch_v11(port, sid, 6, [])
    check(err == FETCH_SESSION_ID_NOT_FOUND,
          "the session it named is closed")

    # librdkafka (no sessions) reads the same partitions.
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "fs",
                  "auto.offset.reset": "earliest", "log_level": 0})
    c.assign([TopicPartition("s", a, 0), TopicPartition("s", b, 0)])
    got = set()
    deadline = time.monotonic() + 30
    while len(got) < 20 and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.add(m.value())
    c.close()
    check(len(got) == 20, "librdkafka reads the 20 records of both")


def main():
    if len(sys.argv) < 2:
        print("usage: fetch_sessions_test.py TROUPE")
        return 2
    overrides = ["offsets.topic.replication.factor=3",
                 "default.replication.factor=3"]
    with TroupeServe(sys.argv[1], overrides=overrides) as srv:
        run(srv)
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
