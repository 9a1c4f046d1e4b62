#!/usr/bin/python3
"""Committed offsets survive everything but KIP-211's expiry (issue 20).

    offsets_retention_test.py TROUPE_BINARY classic|consumer|expiry [NODE]

The regression of issue 20, as a user met it: a group commits once and
goes quiet; another group commits many times, which rolls the segments
of __consumer_offsets; log retention runs (log.retention.ms of a few
seconds). Kafka's __consumer_offsets is compacted and never time-retained,
and a group's offsets expire only by offsets.retention.minutes (KIP-211,
default 7 days): the quiet group's offset must still be there after
retention runs, after a restart of the node, and after its coordinator's
broker stops and another broker takes the partition over.

  classic   the quiet group is a librdkafka consumer (Debian's
            python3-confluent-kafka) of the classic protocol
  consumer  the quiet group is a KIP-848 consumer group
            (@platformatic/kafka with groupProtocol 'consumer', run by
            NODE through tests/kafka/platformatic/commit_once.mjs)
  expiry    the other side, with offsets.retention.minutes=1: an Empty
            classic group, an Empty KIP-848 group and a standalone commit
            expire (not before the retention time); their records leave the
            log through compaction; after a restart they are still gone,
            while a Stable group's older commit, a recent standalone commit
            and the busy group's are intact

The server runs with its own log.dirs on free ports and is stopped by pid,
also on failure; every wait is bounded. Checks observe only what a Kafka
client sees (OffsetFetch, Metadata).
"""

import http.client
import os
import threading
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402
import offsets_decoder  # noqa: E402  Kafka's schemas, independent of troupe

import confluent_kafka  # noqa: E402  Debian's python3-confluent-kafka
import confluent_kafka.admin  # noqa: E402
from confluent_kafka import TopicPartition  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOPIC = "quiet-topic"
NOISE_TOPIC = "noisy-topic"
RECORDS = 100
NOISY_COMMITS = 1500
# Small enough that the noise rolls many segments and retention runs
# several times while the test waits.
OVERRIDES = [
    "offsets.topic.num.partitions=1",
    "log.retention.ms=4000",
    "log.retention.check.interval.ms=1000",
    "log.segment.bytes=16384",
    "offsets.topic.segment.bytes=16384",
    "group.initial.rebalance.delay.ms=0",
    "default.replication.factor=3",
    "min.insync.replicas=1",
]


def require(cond, what):
    """A condition waited for: fails the test without an ok line."""
    if not cond:
        raise AssertionError(what)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what, flush=True)


class Server:
    """`troupe serve` (three brokers on port..port+2, the admin routes on
    port+3) on one log.dirs that outlives a restart."""

    def __init__(self, binary, overrides=()):
        self.binary = binary
        self.overrides = OVERRIDES + list(overrides)
        self.dir = tempfile.mkdtemp(prefix="troupe-retention-")
        self.port = free_port_range(4)
        self.http_port = self.port + 3
        self.proc = None
        self.log = None
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.starts = 0

    def start(self):
        self.starts += 1
        self.log = open(self.log_path, "a")
        self.log.write("=== start %d\n" % self.starts)
        self.log.flush()
        args = [self.binary, "serve", "--http-port", str(self.http_port),
                "--http-bind", "127.0.0.1", "--log-level", "info",
                "--override", "log.dirs=" + os.path.join(self.dir, "logs"),
                "--override", "port=%d" % self.port,
                "--override", "troupe.http.admin.enable=true"]
        for o in self.overrides:
            args += ["--override", o]
        self.proc = subprocess.Popen(args, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent())
        ready = "Kafka listeners on %d.." % self.port
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            with open(self.log_path) as f:
                text = f.read()
            if ready in text.split("=== start %d\n" % self.starts)[-1]:
                try:
                    socket.create_connection(("127.0.0.1", self.port),
                                             1).close()
                    return
                except OSError:
                    pass
            time.sleep(0.1)
        raise RuntimeError("troupe serve did not come up")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def cleanup(self, failed):
        self.stop()
        if failed:
            with open(self.log_path) as f:
                lines = f.readlines()
            print("--- server log (tail)")
            sys.stdout.writelines(lines[-80:])
        if os.environ.get("KEEP_LOGS"):
            print("logs in", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def bootstrap(self, brokers=(0, 1, 2)):
        return ",".join("127.0.0.1:%d" % (self.port + i) for i in brokers)

    def stop_broker(self, broker_id):
        """Stops one broker through the admin route, as an operator would:
        the controller moves its leaderships at once."""
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port,
                                          timeout=30)
        try:
            conn.request("POST", "/v1/brokers/%d/stop" % broker_id,
                         headers={"Content-Length": "0"})
            res = conn.getresponse()
            body = res.read().decode()
        finally:
            conn.close()
        check(res.status == 200, "broker %d stopped (%d %s)"
              % (broker_id, res.status, body))

    def segment_files(self):
        """The __consumer_offsets-0 segment files of every broker."""
        found = []
        for root, _, files in os.walk(os.path.join(self.dir, "logs")):
            if os.path.basename(root) == "__consumer_offsets-0":
                found += [os.path.join(root, f) for f in files
                          if f.endswith(".log")]
        return found


def admin(bootstrap):
    return confluent_kafka.admin.AdminClient(
        {"bootstrap.servers": bootstrap, "socket.timeout.ms": 10000})


def create_topics(bootstrap):
    a = admin(bootstrap)
    futures = a.create_topics([
        confluent_kafka.admin.NewTopic(t, num_partitions=1,
                                       replication_factor=3)
        for t in (TOPIC, NOISE_TOPIC)])
    for t, f in futures.items():
        f.result(timeout=30)
    check(True, "topics %s and %s created" % (TOPIC, NOISE_TOPIC))


def produce(bootstrap, topic, n):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap,
                                  "acks": "all", "linger.ms": 5})
    for i in range(n):
        p.produce(topic, value=b"v%d" % i, partition=0)
    check(p.flush(30) == 0, "%d records produced to %s" % (n, topic))


def committed(bootstrap, group, topic, deadline_s=60):
    """The group's committed offset of topic-0 by OffsetFetch (-1: none),
    retried while the coordinator moves or loads (librdkafka retries those
    errors itself, within its timeout)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap,
                                  "group.id": group,
                                  "enable.auto.commit": False})
    try:
        deadline = time.time() + deadline_s
        last = None
        while time.time() < deadline:
            try:
                tps = c.committed([TopicPartition(topic, 0)], timeout=10)
                # librdkafka reports "nothing committed" (Kafka's -1) as
                # OFFSET_INVALID.
                offset = tps[0].offset
                return -1 if offset < 0 else offset
            except confluent_kafka.KafkaException as e:
                last = e
                time.sleep(0.5)
        raise AssertionError("OffsetFetch for %s never answered: %s"
                             % (group, last))
    finally:
        c.close()


def classic_commit_once(bootstrap, group):
    """A librdkafka consumer of the classic protocol reads the topic,
    commits once, and closes: the group is Empty with one offset."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap,
                                  "group.id": group,
                                  "auto.offset.reset": "earliest",
                                  "enable.auto.commit": False,
                                  "session.timeout.ms": 6000})
    try:
        c.subscribe([TOPIC])
        seen = 0
        last = None
        deadline = time.time() + 60
        while seen < RECORDS and time.time() < deadline:
            m = c.poll(0.5)
            if m is None or m.error():
                continue
            seen += 1
            last = m
        check(seen == RECORDS, "the classic consumer read %d records" % seen)
        c.commit(message=last, asynchronous=False)
    finally:
        c.close()


def kip848_commit_once(bootstrap, group, node):
    """A KIP-848 consumer (@platformatic/kafka, groupProtocol 'consumer')
    reads the topic, commits once, and leaves: the group is Empty with
    one offset."""
    script = os.path.join(HERE, "platformatic", "commit_once.mjs")
    r = subprocess.run([node, script, bootstrap, TOPIC, group, "consumer",
                        str(RECORDS)], timeout=120,
                       preexec_fn=die_with_parent())
    check(r.returncode == 0, "the KIP-848 consumer read and committed")


def noisy_commits(bootstrap, group):
    """Another group commits many times (offsets stored without a group
    membership, as manual assignment does): every commit is a record of
    __consumer_offsets, so its segments roll."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap,
                                  "group.id": group,
                                  "enable.auto.commit": False})
    try:
        for i in range(NOISY_COMMITS):
            c.commit(offsets=[TopicPartition(NOISE_TOPIC, 0, i + 1)],
                     asynchronous=False)
    finally:
        c.close()
    check(True, "group %s committed %d times" % (group, NOISY_COMMITS))


def offsets_records(server):
    """Every record of __consumer_offsets-0 in the segment files of the
    three brokers, decoded from Kafka's schemas: (group, key schema,
    whether it holds a value)."""
    out = []
    for root, _, files in os.walk(os.path.join(server.dir, "logs")):
        if os.path.basename(root) != "__consumer_offsets-0":
            continue
        for _, key, value in offsets_decoder.read_segment_files(root):
            _, name, fields = offsets_decoder.decode_key(key)
            out.append((fields.get("group"), name, value is not None))
    return out


def listed_groups(bootstrap):
    return sorted(g.id for g in admin(bootstrap).list_groups(timeout=30))


class Busy(threading.Thread):
    """A group that commits all the time (offsets without a group
    membership): it rolls segments and leaves the cleaner dirty data."""

    def __init__(self, bootstrap):
        super().__init__(daemon=True)
        self.bootstrap = bootstrap
        self.stopping = threading.Event()
        self.last = 0
        self.error = None

    def run(self):
        c = confluent_kafka.Consumer({"bootstrap.servers": self.bootstrap,
                                      "group.id": "busy",
                                      "enable.auto.commit": False})
        try:
            while not self.stopping.is_set():
                c.commit(offsets=[TopicPartition(NOISE_TOPIC, 0,
                                                 self.last + 1)],
                         asynchronous=False)
                self.last += 1
                time.sleep(0.005)
        except Exception as e:  # reported by stop()
            self.error = e
        finally:
            c.close()

    def stop(self):
        self.stopping.set()
        self.join(30)
        check(self.error is None and not self.is_alive(),
              "the busy group committed %d times (%s)"
              % (self.last, self.error))


def case_expiry(binary, node):
    """KIP-211 end to end: what expires, when, and that it stays gone."""
    server = Server(binary, [
        "offsets.retention.minutes=1",
        "offsets.retention.check.interval.ms=1000",
        "log.cleaner.backoff.ms=200",
        "log.cleaner.delete.retention.ms=2000",
        "log.cleaner.min.cleanable.ratio=0.01",
    ])
    failed = True
    busy = None
    kept = None
    try:
        server.start()
        boot = server.bootstrap()
        create_topics(boot)
        produce(boot, TOPIC, RECORDS)
        t0 = time.time()
        classic_commit_once(boot, "gone-classic")
        kip848_commit_once(boot, "gone-consumer", node)
        solo = confluent_kafka.Consumer({"bootstrap.servers": boot,
                                         "group.id": "gone-solo",
                                         "enable.auto.commit": False})
        solo.commit(offsets=[TopicPartition(TOPIC, 0, 5)], asynchronous=False)
        solo.close()
        # A Stable group: its member stays, its commit gets old.
        kept = confluent_kafka.Consumer({"bootstrap.servers": boot,
                                         "group.id": "kept-stable",
                                         "auto.offset.reset": "earliest",
                                         "enable.auto.commit": False,
                                         "session.timeout.ms": 10000})
        kept.subscribe([TOPIC])
        got = 0
        last = None
        deadline = time.time() + 60
        while got < RECORDS and time.time() < deadline:
            m = kept.poll(0.5)
            if m is not None and not m.error():
                got += 1
                last = m
        check(got == RECORDS, "the Stable group's member read %d records"
              % got)
        kept.commit(message=last, asynchronous=False)
        busy = Busy(boot)
        busy.start()

        def idle(seconds):
            # The Stable member goes on polling (and heartbeating).
            end = time.time() + seconds
            while time.time() < end:
                kept.poll(0.2)

        idle(max(0, t0 + 40 - time.time()))
        check(committed(boot, "gone-classic", TOPIC) == RECORDS
              and committed(boot, "gone-consumer", TOPIC) == RECORDS
              and committed(boot, "gone-solo", TOPIC) == 5,
              "40 s after their commits nothing has expired yet")
        deadline = t0 + 120
        while committed(boot, "gone-classic", TOPIC) != -1:
            require(time.time() < deadline, "the Empty classic group expires")
            idle(1)
        elapsed = time.time() - t0
        check(elapsed >= 55, "the Empty classic group expired %.0f s after "
              "its commit (offsets.retention.minutes=1)" % elapsed)
        while (committed(boot, "gone-consumer", TOPIC) != -1
               or committed(boot, "gone-solo", TOPIC) != -1):
            require(time.time() < deadline, "the KIP-848 group and the "
                    "standalone commit expire")
            idle(1)
        check(True, "the Empty KIP-848 group and the standalone commit "
              "expired")
        recent = confluent_kafka.Consumer({"bootstrap.servers": boot,
                                           "group.id": "kept-solo",
                                           "enable.auto.commit": False})
        recent.commit(offsets=[TopicPartition(TOPIC, 0, 7)],
                      asynchronous=False)
        recent.close()
        check(committed(boot, "kept-stable", TOPIC) == RECORDS,
              "the Stable group's commit, %.0f s old, is kept"
              % (time.time() - t0))
        groups = listed_groups(boot)
        check(not any(g.startswith("gone-") for g in groups),
              "ListGroups no longer lists the expired groups (%s)" % groups)
        # Compaction: no value of the expired groups stays in the log.
        gone = ("gone-classic", "gone-consumer", "gone-solo")
        deadline = time.time() + 60
        while True:
            records = offsets_records(server)
            values = [r for r in records if r[0] in gone and r[2]]
            if not values:
                break
            require(time.time() < deadline, "the cleaner removes the "
                    "expired groups' records (%d values left)" % len(values))
            idle(1)
        tombstones = [r for r in records if r[0] in gone]
        check(True, "the segment files hold no value of the expired groups "
              "(%d of their tombstones left, dropped after "
              "delete.retention.ms)" % len(tombstones))
        busy.stop()
        kept.close()
        kept = None
        server.stop()
        server.start()
        for g in gone:
            check(committed(boot, g, TOPIC) == -1,
                  "after the restart %s is still gone" % g)
        check(committed(boot, "kept-stable", TOPIC) == RECORDS
              and committed(boot, "kept-solo", TOPIC) == 7
              and committed(boot, "busy", NOISE_TOPIC) == busy.last,
              "after the restart every other group is intact")
        groups = listed_groups(boot)
        check(groups == ["busy", "kept-solo", "kept-stable"],
              "ListGroups after the restart: %s" % groups)
        failed = False
        print("PASS: expired groups stay gone, the others are intact")
        return 0
    finally:
        if busy is not None and busy.is_alive():
            busy.stopping.set()
            busy.join(10)
        if kept is not None:
            kept.close()
        server.cleanup(failed)


def offsets_leader(bootstrap):
    md = admin(bootstrap).list_topics(timeout=30)
    return md.topics["__consumer_offsets"].partitions[0].leader


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("classic", "consumer",
                                                 "expiry"):
        print(__doc__)
        return 2
    binary, protocol = sys.argv[1], sys.argv[2]
    node = sys.argv[3] if len(sys.argv) > 3 else "node"
    if protocol == "expiry":
        return case_expiry(binary, node)
    server = Server(binary)
    failed = True
    try:
        server.start()
        boot = server.bootstrap()
        create_topics(boot)
        produce(boot, TOPIC, RECORDS)
        quiet = "quiet-" + protocol
        if protocol == "classic":
            classic_commit_once(boot, quiet)
        else:
            kip848_commit_once(boot, quiet, node)
        check(committed(boot, quiet, TOPIC) == RECORDS,
              "OffsetFetch answers %d for the quiet group" % RECORDS)
        segments_before = len(server.segment_files())
        noisy_commits(boot, "noisy")
        segments_after = len(server.segment_files())
        check(segments_after > segments_before,
              "the commits rolled segments of __consumer_offsets (%d segment "
              "files on the three brokers, %d before)"
              % (segments_after, segments_before))
        check(committed(boot, "noisy", NOISE_TOPIC) == NOISY_COMMITS,
              "the noisy group's last commit is %d" % NOISY_COMMITS)
        # Several log.retention.check.interval.ms past log.retention.ms.
        time.sleep(8)
        check(committed(boot, quiet, TOPIC) == RECORDS,
              "the quiet group's offset survives log retention and segment "
              "rolls")
        server.stop()
        server.start()
        check(committed(boot, quiet, TOPIC) == RECORDS,
              "the quiet group's offset survives a restart of the node")
        time.sleep(5)
        leader = offsets_leader(boot)
        check(leader >= 0, "broker %d coordinates the groups" % leader)
        server.stop_broker(leader)
        others = [b for b in (0, 1, 2) if b != leader]
        boot = server.bootstrap(others)
        wait_deadline = time.time() + 30
        while offsets_leader(boot) in (leader, -1):
            if time.time() > wait_deadline:
                raise AssertionError("__consumer_offsets got no new leader")
            time.sleep(0.2)
        check(committed(boot, quiet, TOPIC) == RECORDS,
              "the quiet group's offset survives a coordinator move")
        check(committed(boot, "noisy", NOISE_TOPIC) == NOISY_COMMITS,
              "the noisy group's last commit survives it too")
        failed = False
        print("PASS: %s group kept its offset" % protocol)
        return 0
    finally:
        server.cleanup(failed)


if __name__ == "__main__":
    sys.exit(main())
