#!/usr/bin/python3
"""kafka-python 2.0.2 (Debian's python3-kafka) at api_version=(0, 10, 1)
against `troupe serve`. With api_version given, kafka-python sends no
ApiVersions and uses what a Kafka 0.10.1 broker serves: Produce v2 (magic 1
message sets), Fetch v3, ListOffsets v1, Metadata v1, FindCoordinator v0,
JoinGroup v1, SyncGroup/Heartbeat/LeaveGroup v0, OffsetCommit v2,
OffsetFetch v1.

    kafka_python_old_api_test.py TROUPE CASE

  produce  an acks=all producer (uncompressed, then gzip: a wrapper
           message) gets every record acknowledged at its partition's next
           offset; a consumer reads them back with the same offsets, keys,
           values and timestamps; end_offsets (ListOffsets v1) agree
  group    two consumers of one group split four partitions two and two and
           read every record, committing after each batch; no committed
           record is delivered again; after both close, a new consumer of
           the group reads the committed offsets back (committed(), i.e.
           OffsetFetch v1) as the partitions' ends and, after more records,
           gets only those
"""

import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from troupe_serve import TroupeServe  # noqa: E402

import kafka  # noqa: E402  Debian's python3-kafka
from kafka import TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

API = (0, 10, 1)
PARTITIONS = 4


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok: " + what)
    sys.stdout.flush()


def wait_for(what, pred, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError("within %d s: %s" % (timeout, what))


def create_topic(bootstrap, topic):
    """With the current protocol (confluent-kafka): not what is checked."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 3)])[topic].result(20)


def producer(bootstrap, **kw):
    return kafka.KafkaProducer(bootstrap_servers=bootstrap, api_version=API,
                               acks="all", retries=3, linger_ms=5,
                               request_timeout_ms=20000, **kw)


def produce(p, topic, tag, per_partition, next_offset, stamp_ms):
    """per_partition keyed records to each partition; checks that each is
    acknowledged at its partition's next offset. Returns (partition,
    offset, key, value, timestamp) tuples."""
    sent = []
    futures = []
    for i in range(per_partition):
        for part in range(PARTITIONS):
            key = b"%s-k-%d-%d" % (tag.encode(), part, i)
            value = b"%s-%d-%d" % (tag.encode(), part, i)
            ts = stamp_ms + i
            futures.append((part, key, value, ts,
                            p.send(topic, key=key, value=value,
                                   partition=part, timestamp_ms=ts)))
    p.flush(timeout=30)
    for part, key, value, ts, f in futures:
        md = f.get(timeout=30)
        if md.offset != next_offset[part]:
            raise AssertionError(
                "%s: %s acknowledged at offset %d of partition %d, expected "
                "%d" % (tag, value, md.offset, part, next_offset[part]))
        next_offset[part] += 1
        sent.append((part, md.offset, key, value, ts))
    return sent


def case_produce(bootstrap):
    topic = "kafka-python-old-produce"
    create_topic(bootstrap, topic)
    next_offset = [0] * PARTITIONS
    stamp = int(time.time() * 1000) - 3600 * 1000
    sent = []
    for codec in (None, "gzip"):
        p = producer(bootstrap, compression_type=codec)
        try:
            batch = produce(p, topic, codec or "none", 25, next_offset,
                            stamp + len(sent))
        finally:
            p.close(timeout=10)
        check(True, "acks=all at %s: %d records (%s) acknowledged, each at "
              "its partition's next offset" % (API, len(batch),
                                              codec or "uncompressed"))
        sent += batch

    c = kafka.KafkaConsumer(bootstrap_servers=bootstrap, api_version=API,
                            enable_auto_commit=False,
                            consumer_timeout_ms=10000)
    try:
        tps = [TopicPartition(topic, part) for part in range(PARTITIONS)]
        ends = c.end_offsets(tps)
        check(all(ends[tp] == next_offset[tp.partition] for tp in tps),
              "end_offsets (ListOffsets v1) are the acknowledged counts %s"
              % next_offset)
        c.assign(tps)
        c.seek_to_beginning(*tps)
        got = {}
        deadline = time.time() + 30
        while len(got) < len(sent) and time.time() < deadline:
            for records in c.poll(timeout_ms=200).values():
                for r in records:
                    got[(r.partition, r.offset)] = (r.key, r.value,
                                                    r.timestamp)
        for part, off, key, value, ts in sent:
            r = got.get((part, off))
            if r != (key, value, ts):
                raise AssertionError(
                    "partition %d offset %d: read %s, produced %s"
                    % (part, off, r, (key, value, ts)))
        check(len(got) == len(sent),
              "a consumer at %s (Fetch v3) read all %d records back with "
              "their offsets, keys, values and timestamps" % (API, len(sent)))
    finally:
        c.close()


class Member(threading.Thread):
    """A group member on its own thread (kafka-python's poll blocks in
    JoinGroup during a rebalance). A batch counts as delivered once its
    commit succeeded; a fenced commit leaves it to the next owner."""

    def __init__(self, name, bootstrap, topic, group):
        super().__init__(daemon=True)
        self.name = name
        self.args = (bootstrap, topic, group)
        self.lock = threading.Lock()
        self.committed_batches = []  # [(partition, offset, value)]
        self.refused = 0
        self.owned = set()
        self.stop_event = threading.Event()
        self.error = None
        self.start()

    def run(self):
        bootstrap, topic, group = self.args
        c = None
        try:
            c = kafka.KafkaConsumer(
                topic, bootstrap_servers=bootstrap, api_version=API,
                group_id=group, client_id=self.name,
                auto_offset_reset="earliest", enable_auto_commit=False,
                session_timeout_ms=6000, heartbeat_interval_ms=300,
                max_poll_interval_ms=30000, request_timeout_ms=20000)
            while not self.stop_event.is_set():
                batch = []
                for records in c.poll(timeout_ms=100).values():
                    batch += [(r.partition, r.offset, r.value.decode())
                              for r in records]
                if batch:
                    try:
                        c.commit()
                        with self.lock:
                            self.committed_batches += batch
                    except kafka.errors.KafkaError as e:
                        print("%s: commit refused: %r" % (self.name, e))
                        self.refused += 1
                with self.lock:
                    self.owned = {tp.partition for tp in c.assignment()}
            c.close(autocommit=False)
            c = None
        except Exception as e:
            self.error = e
            if c is not None:
                c.close(autocommit=False)

    def alive(self):
        if self.error is not None:
            raise AssertionError("%s failed: %r" % (self.name, self.error))
        return True

    def assignment(self):
        self.alive()
        with self.lock:
            return set(self.owned)

    def delivered(self):
        with self.lock:
            return list(self.committed_batches)

    def close(self):
        self.stop_event.set()
        self.join(30)
        if self.is_alive():
            raise AssertionError("%s did not close within 30 s" % self.name)
        self.alive()


def case_group(bootstrap):
    topic = "kafka-python-old-group"
    group = "kafka-python-old-group"
    create_topic(bootstrap, topic)
    next_offset = [0] * PARTITIONS
    stamp = int(time.time() * 1000)
    p = producer(bootstrap)
    try:
        first = produce(p, topic, "a", 40, next_offset, stamp)
        check(True, "produced %d records at %s" % (len(first), API))

        members = [Member("m1", bootstrap, topic, group),
                   Member("m2", bootstrap, topic, group)]
        try:
            def split():
                owned = [m.assignment() for m in members]
                return (all(len(o) == 2 for o in owned) and
                        set().union(*owned) == set(range(PARTITIONS)))
            wait_for("the two consumers to own two partitions each", split)
            check(True, "two consumers at %s split the partitions: %s"
                  % (API, [sorted(m.assignment()) for m in members]))
            want = {v.decode() for _, _, _, v, _ in first}
            wait_for("every record to be read and committed",
                     lambda: all(m.alive() for m in members) and
                     want <= {v for m in members for _, _, v in m.delivered()},
                     timeout=45)
        finally:
            for m in members:
                m.close()
        all_delivered = [d for m in members for d in m.delivered()]
        seen = {}
        for d in all_delivered:
            seen[d] = seen.get(d, 0) + 1
        again = [d for d, n in seen.items() if n > 1]
        check(not again, "every record read and committed once (%d "
              "deliveries, %d refused commits); committed records delivered "
              "again: %s" % (len(all_delivered),
                             sum(m.refused for m in members), again[:5]))

        # A new consumer of the group: the commits are what it reads back.
        c = kafka.KafkaConsumer(
            topic, bootstrap_servers=bootstrap, api_version=API,
            group_id=group, client_id="m3", auto_offset_reset="earliest",
            enable_auto_commit=False, session_timeout_ms=6000,
            heartbeat_interval_ms=300, request_timeout_ms=20000)
        try:
            committed = [c.committed(TopicPartition(topic, part))
                         for part in range(PARTITIONS)]
            check(committed == next_offset,
                  "after the consumers closed, committed() (OffsetFetch v1) "
                  "reads back %s, the partitions' ends %s"
                  % (committed, next_offset))
            later = produce(p, topic, "b", 5, next_offset, stamp)
            want = {v.decode() for _, _, _, v, _ in later}
            got = []
            deadline = time.time() + 30
            while len(got) < len(want) and time.time() < deadline:
                for records in c.poll(timeout_ms=200).values():
                    got += [r.value.decode() for r in records]
            # Anything late would show within a further poll.
            for records in c.poll(timeout_ms=500).values():
                got += [r.value.decode() for r in records]
            check(sorted(got) == sorted(want),
                  "a restarted consumer of the group resumed at the "
                  "committed offsets: it read only the %d newer records "
                  "(read %d, first %s)" % (len(want), len(got), got[:3]))
        finally:
            c.close(autocommit=False)
    finally:
        p.close(timeout=10)


CASES = {"produce": case_produce, "group": case_group}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print(__doc__)
        return 2
    failed = True
    srv = TroupeServe(sys.argv[1], prefix="troupe-kafka-python-old-")
    try:
        srv.start()
        CASES[sys.argv[2]](srv.bootstrap())
        failed = False
    except AssertionError as e:
        print("FAIL: %s" % e)
    except kafka.errors.KafkaError as e:
        print("FAIL: kafka-python at %s: %r" % (API, e))
    finally:
        srv.cleanup(failed=failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
