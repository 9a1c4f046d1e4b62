#!/usr/bin/python3
"""Kafka's Python clients against a real `troupe serve`.

    python_clients_test.py TROUPE_BINARY CLIENT CASE

CLIENT is kafka-python (Debian's python3-kafka, its own protocol code) or
confluent (python3-confluent-kafka, librdkafka). CASE is one of:

  admin    the admin client creates a topic; it is in the metadata
  produce  a producer with acks=all gets every record acknowledged
  group    three consumers in one group split the partitions, one closes
           and the others take over, a new one resumes from the committed
           offsets

Each run starts its own server on free ports with a temporary log.dirs and
stops it by pid, also on failure; every wait is bounded.
"""

import collections
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

PARTITIONS = 6
RECORDS = 300


def free_port_range(n):
    for _ in range(200):
        base = random.randint(20000, 40000)
        ok = True
        for p in range(base, base + n):
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                ok = False
            finally:
                s.close()
        if ok:
            return base
    raise RuntimeError("no free port range")


class Server:
    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="troupe-py-")
        self.port = free_port_range(3)
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [binary, "serve", "--http-port", "0", "--log-level", "info",
             "--override", "log.dirs=" + os.path.join(self.dir, "logs"),
             "--override", "port=%d" % self.port,
             "--override", "group.initial.rebalance.delay.ms=0",
             "--override", "num.partitions=%d" % PARTITIONS,
             "--override", "default.replication.factor=3",
             "--override", "min.insync.replicas=2"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop(failed=True)
        raise RuntimeError("troupe serve did not come up")

    def bootstrap(self):
        return ",".join("127.0.0.1:%d" % (self.port + i) for i in range(3))

    def stop(self, failed=False):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        if failed:
            with open(self.log_path) as f:
                lines = f.readlines()
            print("--- server log (tail)")
            sys.stdout.writelines(lines[-60:])
        if os.environ.get("KEEP_LOGS"):
            print("logs in", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def wait_for(what, cond, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting for " + what)


# -- the clients, behind one small interface ---------------------------------


class KafkaPython:
    name = "kafka-python"

    def __init__(self, bootstrap):
        import kafka  # Debian's python3-kafka
        self.kafka = kafka
        self.bootstrap = bootstrap

    def create_topic(self, topic, partitions):
        from kafka.admin import KafkaAdminClient, NewTopic
        admin = KafkaAdminClient(bootstrap_servers=self.bootstrap,
                                 client_id="troupe-test-admin",
                                 request_timeout_ms=30000)
        try:
            res = admin.create_topics(
                [NewTopic(topic, num_partitions=partitions,
                          replication_factor=3)])
            errors = [e for e in res.topic_errors if e[1] != 0]
            check(not errors, "kafka-python admin created %s (errors %s)"
                  % (topic, errors))
        finally:
            admin.close()

    def partitions_of(self, topic):
        consumer = self.kafka.KafkaConsumer(bootstrap_servers=self.bootstrap)
        try:
            deadline = time.time() + 30
            while time.time() < deadline:
                parts = consumer.partitions_for_topic(topic)
                if parts:
                    return sorted(parts)
                time.sleep(0.2)
            return []
        finally:
            consumer.close()

    def produce(self, topic, values):
        producer = self.kafka.KafkaProducer(bootstrap_servers=self.bootstrap,
                                            acks="all", retries=5,
                                            linger_ms=5)
        try:
            futures = [producer.send(topic, key=str(i % 17).encode(),
                                     value=v.encode())
                       for i, v in enumerate(values)]
            producer.flush(timeout=60)
            acked = 0
            for f in futures:
                md = f.get(timeout=60)
                if md.offset >= 0:
                    acked += 1
            return acked
        finally:
            producer.close(timeout=10)

    def consumer(self, group, topic):
        c = self.kafka.KafkaConsumer(
            topic, bootstrap_servers=self.bootstrap, group_id=group,
            auto_offset_reset="earliest", enable_auto_commit=False,
            session_timeout_ms=6000, heartbeat_interval_ms=300,
            max_poll_interval_ms=60000, client_id="troupe-test")
        return KafkaPythonConsumer(c)


class KafkaPythonConsumer:
    def __init__(self, c):
        import kafka
        self.kafka = kafka
        self.c = c

    def poll(self):
        values = []
        for records in self.c.poll(timeout_ms=100).values():
            values.extend(r.value.decode() for r in records)
        return values

    def assignment(self):
        return {tp.partition for tp in self.c.assignment()}

    def commit(self):
        """Commits the positions of every assigned partition; False when
        the group fenced the commit (a rebalance took the partitions)."""
        try:
            self.c.commit()
            return True
        except self.kafka.errors.KafkaError as e:
            print("commit refused:", e)
            return False

    def close(self):
        self.c.close(autocommit=False)


class Confluent:
    name = "confluent-kafka"

    def __init__(self, bootstrap):
        import confluent_kafka  # Debian's python3-confluent-kafka
        self.ck = confluent_kafka
        self.bootstrap = bootstrap

    def create_topic(self, topic, partitions):
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        futures = admin.create_topics(
            [NewTopic(topic, num_partitions=partitions, replication_factor=3)],
            request_timeout=30)
        futures[topic].result(timeout=60)
        check(True, "confluent-kafka admin created " + topic)

    def partitions_of(self, topic):
        from confluent_kafka.admin import AdminClient
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        md = admin.list_topics(topic=topic, timeout=30)
        t = md.topics.get(topic)
        if t is None or t.error is not None:
            return []
        return sorted(t.partitions)

    def produce(self, topic, values):
        # Idempotence (KIP-98): InitProducerId, then sequenced batches.
        producer = self.ck.Producer({"bootstrap.servers": self.bootstrap,
                                     "acks": "all",
                                     "enable.idempotence": True,
                                     "linger.ms": 5})
        acked = collections.Counter()

        def on_delivery(err, msg):
            acked["ok" if err is None and msg.offset() >= 0 else "failed"] += 1
            if err is not None:
                print("delivery failed:", err)

        for i, v in enumerate(values):
            producer.produce(topic, key=str(i % 17), value=v,
                             on_delivery=on_delivery)
            producer.poll(0)
        left = producer.flush(60)
        check(left == 0, "every record left the producer")
        return acked["ok"]

    def consumer(self, group, topic):
        c = self.ck.Consumer({"bootstrap.servers": self.bootstrap,
                              "group.id": group,
                              "auto.offset.reset": "earliest",
                              "enable.auto.commit": False,
                              "session.timeout.ms": 6000,
                              "heartbeat.interval.ms": 300,
                              "client.id": "troupe-test"})
        c.subscribe([topic])
        return ConfluentConsumer(c)


class ConfluentConsumer:
    def __init__(self, c):
        import confluent_kafka
        self.c = c
        self.error = confluent_kafka.KafkaException

    def poll(self):
        values = []
        for m in self.c.consume(num_messages=500, timeout=0.1):
            if m.error() is None:
                values.append(m.value().decode())
        return values

    def assignment(self):
        return {tp.partition for tp in self.c.assignment()}

    def commit(self):
        """Commits the offsets of the records consume() returned; False
        when the group fenced the commit."""
        try:
            parts = self.c.commit(asynchronous=False)
        except self.error as e:
            print("commit refused:", e)
            return False
        failed = [(p.partition, str(p.error)) for p in parts
                  if p.error is not None]
        if failed:
            print("commit refused:", failed)
        return not failed

    def close(self):
        self.c.close()


# -- the cases -----------------------------------------------------------------


def case_admin(client):
    client.create_topic("py-admin", 4)
    parts = client.partitions_of("py-admin")
    check(parts == [0, 1, 2, 3], "py-admin has partitions 0..3 (%s)" % parts)


def case_produce(client):
    client.create_topic("py-produce", PARTITIONS)
    values = ["v%d" % i for i in range(RECORDS)]
    acked = client.produce("py-produce", values)
    check(acked == RECORDS, "%d of %d records acknowledged with acks=all"
          % (acked, RECORDS))


class Member:
    """One consumer driven by its own thread, as an application would run
    it: kafka-python's poll() blocks in JoinGroup until the rebalance
    completes, so one thread cannot drive several members of a group.
    Every client call happens on the member's thread (neither client is
    thread-safe); the test asks for the close through `requests`."""

    def __init__(self, client, group, topic, seen):
        self.seen = seen
        self.lock = threading.Lock()
        self.owned = set()
        self.requests = queue.Queue()
        self.error = None
        self.thread = threading.Thread(target=self.run,
                                       args=(client, group, topic),
                                       daemon=True)
        self.thread.start()

    def run(self, client, group, topic):
        c = None
        try:
            c = client.consumer(group, topic)
            while True:
                # At least once: a batch counts as read once its offsets
                # are committed; a fenced commit leaves it to the
                # partition's next owner.
                values = c.poll()
                if values and c.commit():
                    self.seen.update(values)
                with self.lock:
                    self.owned = c.assignment()
                try:
                    what, done = self.requests.get_nowait()
                except queue.Empty:
                    continue
                if what == "close":
                    c.close()
                    c = None
                    with self.lock:
                        self.owned = set()
                    done.set()
                    return
        except Exception as e:  # reported by the test's thread
            self.error = e
            if c is not None:
                c.close()

    def check_alive(self):
        if self.error is not None:
            raise self.error
        return True

    def assignment(self):
        self.check_alive()
        with self.lock:
            return set(self.owned)

    def ask(self, what):
        done = threading.Event()
        self.requests.put((what, done))
        deadline = time.time() + 60
        while not done.wait(0.1):
            if self.error is not None:
                raise self.error
            if time.time() > deadline:
                raise AssertionError("member did not %s in time" % what)

    def close(self):
        if self.thread.is_alive():
            self.ask("close")
        self.thread.join(30)


class Seen:
    """Values the members read, counted across their threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()

    def update(self, values):
        with self.lock:
            self.counts.update(values)

    def __getitem__(self, value):
        with self.lock:
            return self.counts[value]


def split_evenly(members):
    owned = [m.assignment() for m in members]
    union = set().union(*owned)
    disjoint = sum(len(o) for o in owned) == len(union)
    return disjoint and union == set(range(PARTITIONS)) and all(owned)


def case_group(client):
    topic = "py-group"
    group = "py-group-" + client.name
    client.create_topic(topic, PARTITIONS)
    first = ["a%d" % i for i in range(RECORDS)]
    check(client.produce(topic, first) == RECORDS, "first records written")

    seen = Seen()
    members = [Member(client, group, topic, seen) for _ in range(3)]
    try:
        wait_for("three consumers to split %d partitions" % PARTITIONS,
                 lambda: split_evenly(members), timeout=90)
        owned = [sorted(m.assignment()) for m in members]
        check(all(len(o) == 2 for o in owned),
              "each of three consumers owns two partitions: %s" % owned)

        # One consumer closes (LeaveGroup).
        members.pop().close()
        wait_for("the two survivors to take over every partition",
                 lambda: split_evenly(members), timeout=90)
        check(True, "survivors own %s"
              % [sorted(m.assignment()) for m in members])
        wait_for("every first record to be consumed and committed",
                 lambda: all(m.check_alive() for m in members)
                 and all(seen[v] for v in first), timeout=90)
    finally:
        for m in members:
            m.close()

    # A new member resumes from the committed offsets: it reads the new
    # records only.
    second = ["b%d" % i for i in range(60)]
    check(client.produce(topic, second) == len(second), "new records written")
    got = Seen()
    late = Member(client, group, topic, got)
    try:
        wait_for("the new consumer to read the new records",
                 lambda: late.check_alive() and all(got[v] for v in second),
                 timeout=90)
        # Each partition is read in offset order, so a first record read
        # again would have arrived before the new records of its partition.
    finally:
        late.close()
    again = [v for v in first if got[v]]
    check(not again, "the new consumer resumed from the committed offsets "
          "(%d first records read again)" % len(again))


CLIENTS = {"kafka-python": KafkaPython, "confluent": Confluent}
CASES = {"admin": case_admin, "produce": case_produce, "group": case_group}


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in CLIENTS \
            or sys.argv[3] not in CASES:
        print(__doc__)
        return 2
    server = Server(sys.argv[1])
    failed = True
    try:
        CASES[sys.argv[3]](CLIENTS[sys.argv[2]](server.bootstrap()))
        failed = False
    finally:
        server.stop(failed=failed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
