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

and, with confluent only (the error codes as librdkafka reports them):

  not-enough-replicas
           an acks=all producer to a partition whose ISR fell below
           min.insync.replicas gets NOT_ENOUGH_REPLICAS, nothing is
           written, and it produces again once the ISR is back
  fenced-instance-id
           a second consumer with the same group.instance.id (KIP-345)
           takes the first one's place; the first gets the fatal
           FENCED_INSTANCE_ID
  out-of-order-sequence-number
           an idempotent producer whose acknowledged records an unclean
           leader election lost gets the fatal OUT_OF_ORDER_SEQUENCE_NUMBER

Each run starts its own server on free ports with a temporary log.dirs and
stops it by pid, also on failure; every wait is bounded.
"""

import collections
import http.client
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402

PARTITIONS = 6
RECORDS = 300


class Server:
    """`troupe serve` on port..port+2; with `http`, also troupe's gateway
    on port+3 with its admin routes (stopping and starting brokers).
    `overrides` are more --override properties, later ones winning."""

    def __init__(self, binary, overrides=(), http=False):
        self.dir = tempfile.mkdtemp(prefix="troupe-py-")
        self.port = free_port_range(4 if http else 3)
        self.http_port = self.port + 3 if http else 0
        self.alive = {0, 1, 2}
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.log = open(self.log_path, "w")
        args = [binary, "serve", "--http-port", str(self.http_port),
                "--log-level", "info",
                "--override", "log.dirs=" + os.path.join(self.dir, "logs"),
                "--override", "port=%d" % self.port,
                "--override", "group.initial.rebalance.delay.ms=0",
                "--override", "num.partitions=%d" % PARTITIONS,
                "--override", "default.replication.factor=3",
                "--override", "min.insync.replicas=2"]
        if http:
            args += ["--http-bind", "127.0.0.1",
                     "--override", "troupe.http.admin.enable=true"]
        for o in overrides:
            args += ["--override", o]
        self.proc = subprocess.Popen(args, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent())
        # Ready means our process answers: still running, its own ready
        # line (printed once every listener is bound) and a connection.
        ready = "Kafka listeners on %d.." % self.port
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            with open(self.log_path) as f:
                if ready in f.read():
                    try:
                        socket.create_connection(("127.0.0.1", self.port),
                                                 1).close()
                        return
                    except OSError:
                        pass
            time.sleep(0.1)
        self.stop(failed=True)
        raise RuntimeError("troupe serve did not come up")

    def bootstrap(self, brokers=range(3)):
        return ",".join("127.0.0.1:%d" % (self.port + i) for i in brokers)

    def live_bootstrap(self):
        """The brokers this test has not stopped. A stopped broker drops
        every connection, and librdkafka, given it as a bootstrap broker,
        may spend a whole metadata timeout retrying it and the other
        stopped one (seen in CI with two of the three stopped)."""
        return self.bootstrap(sorted(self.alive))

    def set_broker(self, broker_id, alive):
        """Stops or starts one broker through the admin route, as an
        operator would (docs/ARCHITECTURE.md §4: the controller moves its
        leaderships and shrinks the ISRs at once, like Kafka's
        onBrokerFailure)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port,
                                          timeout=30)
        try:
            conn.request("POST", "/v1/brokers/%d/%s"
                         % (broker_id, "start" if alive else "stop"),
                         headers={"Content-Length": "0"})
            res = conn.getresponse()
            body = res.read().decode()
        finally:
            conn.close()
        check(res.status == 200, "broker %d %s (%d %s)"
              % (broker_id, "started" if alive else "stopped", res.status,
                 body))
        if alive:
            self.alive.add(broker_id)
        else:
            self.alive.discard(broker_id)

    def partition_view(self, topic, partition):
        """One partition in troupe's GET /v1/partitions (its leader's log
        end offset, which a Kafka client cannot ask for)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port,
                                          timeout=30)
        try:
            conn.request("GET", "/v1/partitions?topic=" + topic)
            res = conn.getresponse()
            body = res.read().decode()
        finally:
            conn.close()
        if res.status != 200:
            raise AssertionError("GET /v1/partitions answered %d: %s"
                                 % (res.status, body))
        for p in json.loads(body)["partitions"]:
            if p["partition"] == partition:
                return p
        raise AssertionError("no %s-%d in %s" % (topic, partition, body))

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


# -- Kafka's error codes as librdkafka reports them (confluent only) ----------


def partition_zero(client, server, topic):
    """Partition 0 of `topic` as a live broker's Metadata answer has it, or
    None."""
    from confluent_kafka.admin import AdminClient
    admin = AdminClient({"bootstrap.servers": server.live_bootstrap()})
    try:
        md = admin.list_topics(topic=topic, timeout=10)
    except client.ck.KafkaException:
        return None  # no broker answers (all of them stopped)
    t = md.topics.get(topic)
    if t is None or t.error is not None or 0 not in t.partitions:
        return None
    return t.partitions[0]


def wait_for_isr(client, server, topic, isr, leader=None):
    """Waits until partition 0's ISR is `isr` (and its leader `leader`)."""
    def reached():
        p = partition_zero(client, server, topic)
        return p is not None and p.leader >= 0 and sorted(p.isrs) == isr \
            and (leader is None or p.leader == leader)
    wait_for("%s-0 to have ISR %s%s" % (topic, isr, "" if leader is None
                                         else " and leader %d" % leader),
             reached, timeout=60)
    return partition_zero(client, server, topic)


def produce_and_report(producer, topic, value):
    """Produces one record to partition 0; its delivery report."""
    reports = []
    producer.produce(topic, value=value, partition=0,
                     on_delivery=lambda err, msg: reports.append((err, msg)))
    left = producer.flush(60)
    check(left == 0 and len(reports) == 1,
          "the producer has the delivery report of %s" % value)
    return reports[0]


def case_not_enough_replicas(client, server):
    # Kafka's Partition.appendRecordsToLeader: with acks=all, a leader whose
    # ISR is smaller than min.insync.replicas (2 here) refuses the batch
    # before appending it. NOT_ENOUGH_REPLICAS is retriable; with its
    # retries spent, librdkafka reports it in the delivery report.
    topic = "py-min-isr"
    client.create_topic(topic, 1)
    p = wait_for_isr(client, server, topic, [0, 1, 2])
    leader = p.leader
    producer = client.ck.Producer({"bootstrap.servers": client.bootstrap,
                                   "acks": "all",
                                   "enable.idempotence": False,
                                   "retries": 2,
                                   "retry.backoff.ms": 200,
                                   "request.timeout.ms": 5000,
                                   "message.timeout.ms": 30000})
    err, msg = produce_and_report(producer, topic, "before")
    check(err is None, "acks=all with the full ISR is acknowledged (%s)"
          % err)
    first = msg.offset()

    followers = [b for b in p.replicas if b != leader]
    for b in followers:
        server.set_broker(b, False)
    wait_for_isr(client, server, topic, [leader], leader=leader)
    err, _ = produce_and_report(producer, topic, "refused")
    check(err is not None
          and err.code() == client.ck.KafkaError.NOT_ENOUGH_REPLICAS,
          "acks=all below min.insync.replicas gets NOT_ENOUGH_REPLICAS (%s)"
          % err)

    for b in followers:
        server.set_broker(b, True)
    wait_for_isr(client, server, topic, [0, 1, 2])
    err, msg = produce_and_report(producer, topic, "after")
    check(err is None, "acks=all is acknowledged once the ISR is back (%s)"
          % err)
    # The refused batch was never appended: the next one follows the first.
    check(msg.offset() == first + 1,
          "the refused record was not written (offsets %d, %d)"
          % (first, msg.offset()))


def case_fenced_instance_id(client, server):
    # KIP-345: a JoinGroup with a known group.instance.id and no member id
    # replaces the static member (GroupCoordinator.replaceStaticMember); the
    # old member id is fenced, and its next Heartbeat, SyncGroup, JoinGroup
    # or OffsetCommit gets FENCED_INSTANCE_ID. librdkafka makes it a fatal
    # error and hands it to the consumer as a _FATAL event whose text is the
    # fatal error's own (rd_kafka_set_fatal_error).
    topic = "py-static"
    client.create_topic(topic, 2)
    conf = {"bootstrap.servers": client.bootstrap,
            "group.id": "py-static-group",
            "group.instance.id": "instance-1",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": 6000,
            "heartbeat.interval.ms": 300}
    ck = client.ck
    fenced_text = ck.KafkaError(ck.KafkaError.FENCED_INSTANCE_ID).str()
    errors = {"first": [], "second": []}

    def poll(name, c):
        for m in c.consume(num_messages=100, timeout=0.1):
            if m.error() is not None:
                print("%s consumer: %s" % (name, m.error()))
                errors[name].append(m.error())

    def owns_all(c):
        return {tp.partition for tp in c.assignment()} == {0, 1}

    first = ck.Consumer(conf)
    second = None
    try:
        first.subscribe([topic])

        def first_joined():
            poll("first", first)
            return owns_all(first)
        wait_for("the first static member to own both partitions",
                 first_joined)

        second = ck.Consumer(conf)
        second.subscribe([topic])

        def first_fenced():
            poll("first", first)
            poll("second", second)
            return any(e.code() == ck.KafkaError._FATAL for e in
                       errors["first"]) and owns_all(second)
        wait_for("the first member to be fenced and the second to own both "
                 "partitions", first_fenced)
        fatal = [e for e in errors["first"]
                 if e.code() == ck.KafkaError._FATAL]
        check(fenced_text in fatal[0].str(),
              "the replaced member's fatal error is FENCED_INSTANCE_ID (%s)"
              % fatal[0].str())

        # The new instance stays: the fenced one does not come back.
        deadline = time.time() + 5
        while time.time() < deadline:
            poll("first", first)
            poll("second", second)
        check(not errors["second"] and owns_all(second),
              "the new instance keeps both partitions, without errors (%s)"
              % errors["second"])
    finally:
        first.close()
        if second is not None:
            second.close()


def case_out_of_order_sequence_number(client, server):
    # KIP-98: the leader checks each batch's first sequence against its
    # producer state (ProducerAppendInfo.checkSequence). An unclean election
    # makes a replica that lacks acknowledged records the leader; its state,
    # rebuilt from its log, ends before the producer's next sequence, so it
    # answers OUT_OF_ORDER_SEQUENCE_NUMBER. Sent as the first request in
    # flight, librdkafka cannot reason about the lost records and raises a
    # fatal error with that code (rd_kafka_handle_idempotent_Produce_error);
    # confluent-kafka raises it from poll() and flush().
    topic = "py-idempotent"
    client.create_topic(topic, 1)
    p = wait_for_isr(client, server, topic, [0, 1, 2])
    leader = p.leader
    followers = [b for b in p.replicas if b != leader]
    ck = client.ck
    producer = ck.Producer({"bootstrap.servers": client.bootstrap,
                            "enable.idempotence": True,
                            "acks": "all",
                            "linger.ms": 0})

    def produce_all(prefix, n):
        for i in range(n):
            err, msg = produce_and_report(producer, topic, "%s%d" % (prefix, i))
            check(err is None, "%s%d acknowledged at offset %d (%s)"
                  % (prefix, i, msg.offset(), err))

    produce_all("replicated-", 3)
    # The followers stop: the ISR is the leader alone, which is enough with
    # min.insync.replicas=1, so these records are acknowledged by it only.
    for b in followers:
        server.set_broker(b, False)
    wait_for_isr(client, server, topic, [leader], leader=leader)
    produce_all("leader-only-", 3)

    # The leader stops too; a follower returns and, with
    # unclean.leader.election.enable, leads without the last three records.
    server.set_broker(leader, False)
    server.set_broker(followers[0], True)
    wait_for_isr(client, server, topic, [followers[0]], leader=followers[0])
    # The metadata names the new leader before its replica has opened the
    # log and taken the role; the view says -1 until then.
    wait_for("the new leader's replica to report its log end offset",
             lambda: server.partition_view(topic, 0)["log_end_offset"] >= 0)
    view = server.partition_view(topic, 0)
    check(view["log_end_offset"] == 3,
          "the new leader's log ends after the replicated records "
          "(log end offset %d in GET /v1/partitions)" % view["log_end_offset"])
    # Alone in its ISR, the new leader serves its whole log at once, as
    # Kafka's Partition.makeLeader raises the high watermark.
    wait_for("the new leader's high watermark to reach its log end",
             lambda: server.partition_view(topic, 0)["high_watermark"] == 3,
             timeout=10)

    reports = []
    producer.produce(topic, value="after-election", partition=0,
                     on_delivery=lambda err, msg: reports.append(err))
    fatal = None
    deadline = time.time() + 60
    while fatal is None and time.time() < deadline:
        try:
            producer.poll(0.1)
        except ck.KafkaException as e:
            fatal = e.args[0]
            print("fatal:", fatal)
    check(fatal is not None and fatal.fatal()
          and fatal.code() == ck.KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER,
          "the producer's fatal error is OUT_OF_ORDER_SEQUENCE_NUMBER (%s)"
          % fatal)
    try:
        producer.flush(10)
    except ck.KafkaException:
        pass  # the fatal error again
    check(reports and reports[0] is not None and reports[0].code()
          == ck.KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER,
          "the batch's delivery report says OUT_OF_ORDER_SEQUENCE_NUMBER "
          "(%s)" % reports)


CLIENTS = {"kafka-python": KafkaPython, "confluent": Confluent}
CASES = {"admin": case_admin, "produce": case_produce, "group": case_group}
# Cases that stop brokers or need more properties: (case, overrides, http).
CONFLUENT_CASES = {
    "not-enough-replicas": (case_not_enough_replicas, (), True),
    "fenced-instance-id": (case_fenced_instance_id, (), False),
    "out-of-order-sequence-number": (
        case_out_of_order_sequence_number,
        ("min.insync.replicas=1", "unclean.leader.election.enable=true"),
        True),
}


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in CLIENTS \
            or not (sys.argv[3] in CASES or sys.argv[2] == "confluent"
                    and sys.argv[3] in CONFLUENT_CASES):
        print(__doc__)
        return 2
    if sys.argv[3] in CASES:
        case, overrides, http_admin = CASES[sys.argv[3]], (), False
        run = lambda client, server: case(client)
    else:
        run, overrides, http_admin = CONFLUENT_CASES[sys.argv[3]]
    server = Server(sys.argv[1], overrides, http_admin)
    failed = True
    try:
        run(CLIENTS[sys.argv[2]](server.bootstrap()), server)
        failed = False
    finally:
        server.stop(failed=failed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
