#!/usr/bin/python3
"""Issue 22's admin APIs end to end against `troupe serve` (the embedded
node: three brokers in one process) with real Kafka clients.

    admin_api_test.py TROUPE_BINARY CASE [NODE]

kafka-python's KafkaAdminClient sends DeleteGroups, OffsetFetch and
CreatePartitions; confluent-kafka (librdkafka) produces and consumes in
classic groups. Debian's clients (confluent-kafka 1.7, kafka-python 2.0.2)
have no OffsetDelete, DeleteRecords, DescribeLogDirs, ElectLeaders or admin
offset commit, so those are written here field for field as Kafka's JSON
schemas (clients/src/main/resources/common/message/*Request.json), with
tests/lib/kafka_wire.py's framing, and sent to the broker Kafka's
AdminClient would pick (the group coordinator, the partition leader, the
controller).

CASE is one of:

  delete-groups      DeleteGroups: NON_EMPTY_GROUP for a group with a
                     member; accepted once it is empty, its offsets are gone,
                     a second delete is GROUP_ID_NOT_FOUND
  offset-delete      OffsetDelete: GROUP_SUBSCRIBED_TO_TOPIC for a topic a
                     member subscribes to, accepted for another topic and
                     once the group is empty
  admin-commit       OffsetCommit with generation -1 and no member id to an
                     Empty group is stored and a consumer resumes there; to a
                     Stable group it is UNKNOWN_MEMBER_ID
  create-partitions  CreatePartitions: validate_only changes nothing,
                     INVALID_PARTITIONS, UNKNOWN_TOPIC_OR_PARTITION; a classic
                     group and a KIP-848 group own the new partitions
  delete-records     DeleteRecords: the low watermark, ListOffsets earliest,
                     OFFSET_OUT_OF_RANGE below it, kept across a restart
  describe-log-dirs  DescribeLogDirs: the log dir and the partitions' sizes
  kip848-admin       @platformatic/kafka's Admin (flexible versions) with a
                     KIP-848 group: NON_EMPTY_GROUP, GROUP_SUBSCRIBED_TO_TOPIC,
                     UNKNOWN_MEMBER_ID for an admin commit while it has a
                     member; once empty the admin commit is stored and a new
                     member resumes there, OffsetDelete and DeleteGroups
                     succeed, GROUP_ID_NOT_FOUND after; DeleteRecords' low
                     watermark, DescribeLogDirs of one topic on 3 brokers
                     (tests/kafka/platformatic/admin_groups.mjs)
  elect-leaders      ElectLeaders PREFERRED: ELECTION_NOT_NEEDED when the
                     preferred leader leads, UNKNOWN_TOPIC_OR_PARTITION

Every wait is bounded; the server is stopped by pid however the case ends.
"""

import os
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from kafka_wire import Conn, _Reader, _string  # noqa: E402
from troupe_serve import TroupeServe  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kafka import KafkaAdminClient  # noqa: E402
from kafka.admin import NewPartitions  # noqa: E402
from kafka.errors import KafkaError as KafkaErrorKP  # noqa: E402

# Kafka's error codes (Errors.java).
NONE = 0
OFFSET_OUT_OF_RANGE = 1
UNKNOWN_TOPIC_OR_PARTITION = 3
UNKNOWN_MEMBER_ID = 25
ILLEGAL_GENERATION = 22
INVALID_PARTITIONS = 37
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
ELECTION_NOT_NEEDED = 84
GROUP_SUBSCRIBED_TO_TOPIC = 86

# API keys.
FETCH = 1
LIST_OFFSETS = 2
METADATA = 3
OFFSET_COMMIT = 8
OFFSET_FETCH = 9
FIND_COORDINATOR = 10
DELETE_RECORDS = 21
DESCRIBE_LOG_DIRS = 35
ELECT_LEADERS = 43
OFFSET_DELETE = 47


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)
    log("ok: " + msg)


def wait_for(what, pred, timeout, interval=0.2):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            v = pred()
            if v:
                return v
        except Exception as e:  # noqa: BLE001 - a probe may fail meanwhile
            last = e
        time.sleep(interval)
    raise AssertionError("timed out waiting for %s (last error %r)"
                         % (what, last))


# -- raw requests ----------------------------------------------------------------

def _array(items, enc):
    return struct.pack(">i", len(items)) + b"".join(enc(x) for x in items)


def _int32s(xs):
    return _array(xs, lambda x: struct.pack(">i", x))


def _ask(port, key, version, body):
    with Conn("127.0.0.1", port, timeout=30) as c:
        return _Reader(c.request(key, version, body))


def metadata(port, topics):
    """Metadata v1: (controller id, {broker: port},
    {topic: (error, {partition: (error, leader, replicas)})})."""
    r = _ask(port, METADATA, 1, _array(topics, _string))
    brokers = {}
    for _ in range(r.int32()):
        node, _host, p, _rack = r.int32(), r.string(), r.int32(), r.string()
        brokers[node] = p
    controller = r.int32()
    out = {}
    for _ in range(r.int32()):
        err, name, _internal = r.int16(), r.string(), r.int8()
        parts = {}
        for _ in range(r.int32()):
            perr, idx, leader = r.int16(), r.int32(), r.int32()
            replicas = [r.int32() for _ in range(r.int32())]
            [r.int32() for _ in range(r.int32())]  # isr
            parts[idx] = (perr, leader, replicas)
        out[name] = (err, parts)
    return controller, brokers, out


def leader_port(srv, topic, partition):
    _, brokers, topics = metadata(srv.port, [topic])
    return brokers[topics[topic][1][partition][1]]


def coordinator_port(srv, group):
    """FindCoordinator v0."""
    r = _ask(srv.port, FIND_COORDINATOR, 0, _string(group))
    err, _node, _host, port = r.int16(), r.int32(), r.string(), r.int32()
    check(err == NONE, "FindCoordinator %s: error %d" % (group, err))
    return port


def offset_delete(port, group, topics):
    """OffsetDelete v0: (error, {(topic, partition): error})."""
    body = _string(group) + _array(
        list(topics.items()),
        lambda t: _string(t[0]) + _int32s(t[1]))
    r = _ask(port, OFFSET_DELETE, 0, body)
    err, _throttle = r.int16(), r.int32()
    out = {}
    for _ in range(r.int32()):
        name = r.string()
        for _ in range(r.int32()):
            idx, perr = r.int32(), r.int16()
            out[(name, idx)] = perr
    return err, out


def offset_commit_admin(port, group, topic, offsets):
    """OffsetCommit v2 as an admin sends it (AdminClient's
    alterConsumerGroupOffsets): generation -1, no member id.
    {partition: error}."""
    body = (_string(group) + struct.pack(">i", -1) + _string("")
            + struct.pack(">q", -1)
            + _array([topic], lambda t: _string(t) + _array(
                list(offsets.items()),
                lambda p: struct.pack(">iq", p[0], p[1]) + _string(None))))
    r = _ask(port, OFFSET_COMMIT, 2, body)
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            idx, err = r.int32(), r.int16()
            out[idx] = err
    return out


def offset_fetch(port, group, topic, partitions):
    """OffsetFetch v1: {partition: (offset, error)}."""
    body = _string(group) + _array([topic], lambda t: _string(t)
                                    + _int32s(partitions))
    r = _ask(port, OFFSET_FETCH, 1, body)
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            idx, off, _meta, err = r.int32(), r.int64(), r.string(), r.int16()
            out[idx] = (off, err)
    return out


def delete_records(port, topic, offsets, timeout_ms=30000):
    """DeleteRecords v0: {partition: (low watermark, error)}."""
    body = _array([topic], lambda t: _string(t) + _array(
        list(offsets.items()), lambda p: struct.pack(">iq", p[0], p[1])))
    body += struct.pack(">i", timeout_ms)
    r = _ask(port, DELETE_RECORDS, 0, body)
    r.int32()
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            idx, low, err = r.int32(), r.int64(), r.int16()
            out[idx] = (low, err)
    return out


def list_offset(port, topic, partition, timestamp):
    """ListOffsets v1: (error, offset); -2 earliest, -1 latest."""
    body = struct.pack(">i", -1) + _array(
        [topic], lambda t: _string(t) + _array(
            [partition], lambda p: struct.pack(">iq", p, timestamp)))
    r = _ask(port, LIST_OFFSETS, 1, body)
    r.int32()
    r.string()
    r.int32()
    _idx, err, _ts, off = r.int32(), r.int16(), r.int64(), r.int64()
    return err, off


def fetch_error(port, topic, partition, offset):
    """Fetch v4 of one partition: (error, high watermark)."""
    body = struct.pack(">iiiib", -1, 100, 1, 1 << 20, 0) + _array(
        [topic], lambda t: _string(t) + _array(
            [partition], lambda p: struct.pack(">iqi", p, offset, 1 << 20)))
    r = _ask(port, FETCH, 4, body)
    r.int32()
    r.int32()
    r.string()
    r.int32()
    _idx, err, hw = r.int32(), r.int16(), r.int64()
    return err, hw


def describe_log_dirs(port):
    """DescribeLogDirs v0 of every partition:
    [(error, path, {(topic, partition): size})]."""
    r = _ask(port, DESCRIBE_LOG_DIRS, 0, struct.pack(">i", -1))
    r.int32()
    out = []
    for _ in range(r.int32()):
        err, path = r.int16(), r.string()
        sizes = {}
        for _ in range(r.int32()):
            name = r.string()
            for _ in range(r.int32()):
                idx, size, _lag, _future = (r.int32(), r.int64(), r.int64(),
                                            r.int8())
                sizes[(name, idx)] = size
        out.append((err, path, sizes))
    return out


def elect_leaders(port, topic, partitions, election_type=0):
    """ElectLeaders v1 (0 PREFERRED): (error, {partition: (error, msg)})."""
    body = struct.pack(">b", election_type) + _array(
        [topic], lambda t: _string(t) + _int32s(partitions))
    body += struct.pack(">i", 30000)
    r = _ask(port, ELECT_LEADERS, 1, body)
    r.int32()
    top = r.int16()
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            idx, err, msg = r.int32(), r.int16(), r.string()
            out[idx] = (err, msg)
    return top, out


# -- client helpers --------------------------------------------------------------

def create_topic(srv, topic, partitions):
    admin = AdminClient({"bootstrap.servers": srv.bootstrap()})
    fs = admin.create_topics([NewTopic(topic, num_partitions=partitions,
                                       replication_factor=3)],
                             request_timeout=30)
    fs[topic].result(timeout=60)
    wait_for("topic %s led" % topic, lambda: all(
        p[1] >= 0 for p in metadata(srv.port, [topic])[2][topic][1].values())
        and len(metadata(srv.port, [topic])[2][topic][1]) == partitions, 30)


def produce(srv, topic, n, partition=None):
    p = Producer({"bootstrap.servers": srv.bootstrap(), "acks": "all",
                  "linger.ms": 0})
    failed = []
    for i in range(n):
        kw = {} if partition is None else {"partition": partition}
        p.produce(topic, value=b"v%d" % i, key=b"k%d" % i,
                  on_delivery=lambda e, m: e and failed.append(e), **kw)
        p.poll(0)
    check(p.flush(60) == 0 and not failed,
          "%d records to %s acknowledged (%s)" % (n, topic, failed))


def consumer(srv, group, topics, **extra):
    conf = {"bootstrap.servers": srv.bootstrap(), "group.id": group,
            "auto.offset.reset": "earliest", "enable.auto.commit": False,
            "session.timeout.ms": 6000}
    conf.update(extra)
    c = Consumer(conf)
    c.subscribe(topics)
    return c


def consume(c, n, timeout=40):
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m)
    check(len(got) >= n, "consumed %d of %d records" % (len(got), n))
    return got


def kadmin(srv):
    return KafkaAdminClient(bootstrap_servers=srv.bootstrap(),
                            request_timeout_ms=30000)


def delete_group(admin, group):
    [(gid, err)] = admin.delete_consumer_groups([group])
    return err.errno


# -- cases -----------------------------------------------------------------------

def case_delete_groups(srv, _node):
    topic, group = "dg", "dg-group"
    create_topic(srv, topic, 2)
    produce(srv, topic, 10)
    c = consumer(srv, group, [topic])
    consume(c, 10)
    c.commit(asynchronous=False)
    admin = kadmin(srv)
    offsets = admin.list_consumer_group_offsets(group)
    check(sum(o.offset for o in offsets.values()) == 10,
          "the group's committed offsets add up to 10: %s" % offsets)
    err = delete_group(admin, group)
    check(err == NON_EMPTY_GROUP,
          "DeleteGroups of a group with a live member is NON_EMPTY_GROUP "
          "(%d)" % err)
    check(sum(o.offset for o in admin.list_consumer_group_offsets(
        group).values()) == 10, "a refused DeleteGroups kept the offsets")
    c.close()
    err = wait_for("the group to empty and be deleted", lambda: (
        lambda e: e if e != NON_EMPTY_GROUP else None)(
            delete_group(admin, group)) or "done", 20)
    check(err == NONE or err == "done",
          "DeleteGroups of the emptied group succeeds (%r)" % err)
    offsets = admin.list_consumer_group_offsets(group)
    check(not offsets, "the deleted group has no offsets: %s" % offsets)
    raw = offset_fetch(coordinator_port(srv, group), group, topic, [0, 1])
    check(all(v[0] == -1 for v in raw.values()),
          "OffsetFetch answers -1 for each partition: %s" % raw)
    err = delete_group(admin, group)
    check(err == GROUP_ID_NOT_FOUND,
          "a second DeleteGroups is GROUP_ID_NOT_FOUND (%d)" % err)
    check(delete_group(admin, "never-existed") == GROUP_ID_NOT_FOUND,
          "DeleteGroups of an unknown group is GROUP_ID_NOT_FOUND")
    admin.close()


def case_offset_delete(srv, _node):
    group = "od-group"
    create_topic(srv, "od-a", 1)
    create_topic(srv, "od-b", 1)
    produce(srv, "od-a", 5)
    c = consumer(srv, group, ["od-a"])
    consume(c, 5)
    c.commit(asynchronous=False)
    # A commit for a topic the member does not subscribe to.
    c.commit(offsets=[TopicPartition("od-b", 0, 3)], asynchronous=False)
    coord = coordinator_port(srv, group)
    check(offset_fetch(coord, group, "od-b", [0])[0][0] == 3,
          "od-b's offset 3 is committed")
    err, parts = offset_delete(coord, group, {"od-a": [0]})
    check(err == NONE and parts == {("od-a", 0): GROUP_SUBSCRIBED_TO_TOPIC},
          "OffsetDelete of a subscribed topic: partition error "
          "GROUP_SUBSCRIBED_TO_TOPIC (%d, %s)" % (err, parts))
    check(offset_fetch(coord, group, "od-a", [0])[0][0] == 5,
          "od-a's offset 5 is still committed")
    err, parts = offset_delete(coord, group, {"od-b": [0]})
    check(err == NONE and parts == {("od-b", 0): NONE},
          "OffsetDelete of a topic no member subscribes to succeeds "
          "(%d, %s)" % (err, parts))
    check(offset_fetch(coord, group, "od-b", [0])[0][0] == -1,
          "od-b's offset is gone")
    c.close()

    def deleted():
        e, p = offset_delete(coord, group, {"od-a": [0]})
        return (e, p) if p.get(("od-a", 0)) != GROUP_SUBSCRIBED_TO_TOPIC \
            else None
    err, parts = wait_for("the group to empty", deleted, 20)
    check(err == NONE and parts == {("od-a", 0): NONE},
          "OffsetDelete once the group is empty succeeds (%d, %s)"
          % (err, parts))
    check(offset_fetch(coord, group, "od-a", [0])[0][0] == -1,
          "od-a's offset is gone")
    err, _ = offset_delete(coordinator_port(srv, "od-unknown"), "od-unknown",
                           {"od-a": [0]})
    check(err == GROUP_ID_NOT_FOUND,
          "OffsetDelete of an unknown group is GROUP_ID_NOT_FOUND (%d)" % err)


def case_admin_commit(srv, _node):
    topic, group = "ac", "ac-group"
    create_topic(srv, topic, 1)
    produce(srv, topic, 20, partition=0)
    c = consumer(srv, group, [topic])
    consume(c, 20)
    c.commit(asynchronous=False)
    c.close()
    coord = coordinator_port(srv, group)
    check(offset_fetch(coord, group, topic, [0])[0][0] == 20,
          "the consumer committed 20")
    res = wait_for("the admin commit to the Empty group", lambda: (
        lambda r: r if r.get(0) == NONE else None)(
            offset_commit_admin(coord, group, topic, {0: 7})), 20)
    check(res == {0: NONE},
          "an admin OffsetCommit (generation -1, no member) to the Empty "
          "group is accepted: %s" % res)
    check(offset_fetch(coord, group, topic, [0])[0][0] == 7,
          "OffsetFetch answers the reset offset 7")
    admin = kadmin(srv)
    got = admin.list_consumer_group_offsets(group)
    check(got[TopicPartitionKP(topic, 0)].offset == 7,
          "kafka-python's list_consumer_group_offsets shows 7: %s" % got)
    admin.close()
    c = consumer(srv, group, [topic])
    first = consume(c, 1)[0]
    check(first.offset() == 7,
          "a consumer of the group resumes at 7 (%d)" % first.offset())
    # The group is Stable with a member: the same commit is refused as
    # Kafka's ClassicGroup.validateOffsetCommit refuses it.
    res = offset_commit_admin(coord, group, topic, {0: 2})
    check(res.get(0) in (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION),
          "an admin OffsetCommit to a Stable group is UNKNOWN_MEMBER_ID "
          "(%s)" % res)
    check(res.get(0) == UNKNOWN_MEMBER_ID,
          "exactly UNKNOWN_MEMBER_ID, as Kafka (%s)" % res)
    check(offset_fetch(coord, group, topic, [0])[0][0] == 7,
          "the refused commit changed nothing")
    c.close()


def TopicPartitionKP(topic, partition):
    from kafka.structs import TopicPartition as TP
    return TP(topic, partition)


def partitions_of(srv, topic):
    return len(metadata(srv.port, [topic])[2][topic][1])


def case_create_partitions(srv, node):
    topic = "cp"
    create_topic(srv, topic, 2)
    produce(srv, topic, 10)
    admin = kadmin(srv)

    def answer(topics, validate_only=False):
        # kafka-python raises the first topic error.
        try:
            r = admin.create_partitions(topics, validate_only=validate_only)
        except KafkaErrorKP as e:
            log("CreatePartitions: %s" % e)
            return {t: e.errno for t in topics}
        return {t[0]: t[1] for t in r.topic_errors}

    c = consumer(srv, "cp-classic", [topic],
                 **{"topic.metadata.refresh.interval.ms": 1000})
    consume(c, 1)
    check(len(c.assignment()) == 2,
          "the classic consumer owns both partitions: %s" % c.assignment())
    kip848 = None
    if node:
        kip848 = subprocess.Popen(
            [node, os.path.join(HERE, "platformatic", "admin_partitions.mjs"),
             srv.bootstrap(), topic, "4"], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        # It prints "owned 2" once its first assignment arrived.
        line = kip848.stdout.readline().strip()
        check(line == "owned 2",
              "the KIP-848 consumer owns both partitions first (%r)" % line)

    r = answer({topic: NewPartitions(4)}, validate_only=True)
    check(r == {topic: NONE}, "validate_only to 4 partitions is accepted: %s"
          % r)
    time.sleep(1)
    check(partitions_of(srv, topic) == 2, "validate_only changed nothing")
    r = answer({topic: NewPartitions(2)})
    check(r == {topic: INVALID_PARTITIONS},
          "a count not above the current one is INVALID_PARTITIONS: %s" % r)
    r = answer({"cp-missing": NewPartitions(3)})
    check(r == {"cp-missing": UNKNOWN_TOPIC_OR_PARTITION},
          "an unknown topic is UNKNOWN_TOPIC_OR_PARTITION: %s" % r)
    r = answer({topic: NewPartitions(4)})
    check(r == {topic: NONE}, "CreatePartitions to 4 succeeds: %s" % r)
    wait_for("4 partitions, each led", lambda: partitions_of(srv, topic) == 4
             and all(p[1] >= 0 for p in metadata(
                 srv.port, [topic])[2][topic][1].values()), 30)
    produce(srv, topic, 4, partition=3)

    def owns_all():
        c.poll(0.2)
        return len(c.assignment()) == 4
    wait_for("the classic group to own the 4 partitions", owns_all, 40)
    check(sorted(tp.partition for tp in c.assignment()) == [0, 1, 2, 3],
          "the classic group owns partitions 0-3 after its metadata refresh "
          "and a rebalance")
    c.close()
    if kip848:
        try:
            out, _ = kip848.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            kip848.kill()
            out, _ = kip848.communicate()
        log("KIP-848 consumer: " + out.strip().replace("\n", " | "))
        check(kip848.returncode == 0 and "owned 4" in out,
              "the KIP-848 group owns the 4 partitions (exit %d)"
              % kip848.returncode)
    admin.close()


def case_delete_records(srv, _node):
    topic = "dr"
    create_topic(srv, topic, 1)
    produce(srv, topic, 10, partition=0)
    port = leader_port(srv, topic, 0)
    res = delete_records(port, topic, {0: 4})
    check(res == {0: (4, NONE)},
          "DeleteRecords before 4 answers low watermark 4: %s" % res)
    check(list_offset(port, topic, 0, -2) == (NONE, 4),
          "ListOffsets earliest is 4")
    check(list_offset(port, topic, 0, -1) == (NONE, 10),
          "ListOffsets latest is still 10")
    err, _ = fetch_error(port, topic, 0, 2)
    check(err == OFFSET_OUT_OF_RANGE,
          "a Fetch at 2, below the low watermark, is OFFSET_OUT_OF_RANGE (%d)"
          % err)
    err, hw = fetch_error(port, topic, 0, 4)
    check(err == NONE and hw == 10, "a Fetch at 4 succeeds (%d, hw %d)"
          % (err, hw))
    res = delete_records(port, topic, {0: 100})
    check(res[0][1] == OFFSET_OUT_OF_RANGE,
          "DeleteRecords beyond the high watermark is OFFSET_OUT_OF_RANGE: %s"
          % res)
    res = delete_records(port, topic, {0: 2})
    check(res == {0: (4, NONE)},
          "DeleteRecords below the low watermark keeps it at 4: %s" % res)
    c = consumer(srv, "dr-group", [topic])
    first = consume(c, 1)[0]
    check(first.offset() == 4, "a consumer from the earliest starts at 4 (%d)"
          % first.offset())
    c.close()
    srv.restart()
    port = wait_for("the topic led after the restart",
                    lambda: leader_port(srv, topic, 0), 30)
    got = wait_for("ListOffsets after the restart",
                   lambda: (lambda r: r if r[0] == NONE else None)(
                       list_offset(port, topic, 0, -2)), 30)
    check(got == (NONE, 4), "after a restart ListOffsets earliest is still 4:"
          " %s" % (got,))
    # Kafka's UnifiedLog keeps the high watermark between the log start and
    # the log end: latest is never below earliest, even before the
    # followers' first fetches after the restart.
    latest = list_offset(port, topic, 0, -1)
    check(latest[0] == NONE and 4 <= latest[1] <= 10,
          "after a restart ListOffsets latest %s is not below earliest 4"
          % (latest,))
    wait_for("the high watermark back at 10", lambda: list_offset(
        port, topic, 0, -1) == (NONE, 10), 30)
    err, _ = fetch_error(port, topic, 0, 2)
    check(err == OFFSET_OUT_OF_RANGE,
          "after a restart a Fetch at 2 is still OFFSET_OUT_OF_RANGE (%d)"
          % err)
    res = delete_records(port, topic, {0: -1})
    check(res == {0: (10, NONE)},
          "DeleteRecords to -1 (the high watermark) answers 10: %s" % res)


def case_describe_log_dirs(srv, _node):
    topic = "dld"
    create_topic(srv, topic, 2)
    produce(srv, topic, 50, partition=0)
    logs = os.path.realpath(os.path.join(srv.dir, "logs"))
    seen = {}
    for broker in range(3):
        dirs = describe_log_dirs(srv.port + broker)
        log("broker %d: %s" % (broker, [(e, p, len(s)) for e, p, s in dirs]))
        check(len(dirs) >= 1 and all(e == NONE for e, _, _ in dirs),
              "broker %d answers its log dirs without error" % broker)
        for err, path, sizes in dirs:
            check(os.path.realpath(path).startswith(logs)
                  and os.path.isdir(path),
                  "broker %d's log dir %s is under log.dirs %s"
                  % (broker, path, logs))
            for (t, p), size in sizes.items():
                if t == topic:
                    pdir = os.path.join(path, "%s-%d" % (t, p))
                    on_disk = sum(os.path.getsize(os.path.join(pdir, f))
                                  for f in os.listdir(pdir)
                                  if f.endswith(".log")) \
                        if os.path.isdir(pdir) else None
                    log("broker %d %s-%d: size %d, on disk %s"
                        % (broker, t, p, size, on_disk))
                    check(on_disk is None or size == on_disk,
                          "broker %d %s-%d's size %d is its segments' bytes"
                          " %s" % (broker, t, p, size, on_disk))
                    seen.setdefault(p, []).append(size)
    check(sorted(seen) == [0, 1], "both partitions of %s are described: %s"
          % (topic, seen))
    check(len(seen[0]) == 3 and len(seen[1]) == 3,
          "each partition has 3 replicas described: %s" % seen)
    check(all(s > 0 for s in seen[0]),
          "partition 0, which holds 50 records, has a size on every replica:"
          " %s" % seen[0])
    check(all(s == 0 for s in seen[1]),
          "partition 1, empty, has size 0: %s" % seen[1])


def case_elect_leaders(srv, _node):
    topic = "el"
    create_topic(srv, topic, 3)
    controller, brokers, topics = metadata(srv.port, [topic])
    parts = topics[topic][1]
    check(all(p[1] == p[2][0] for p in parts.values()),
          "every partition is led by its preferred replica: %s" % parts)
    port = brokers[controller]
    top, res = elect_leaders(port, topic, [0, 1, 2])
    check(top == NONE and sorted(res) == [0, 1, 2]
          and all(e == ELECTION_NOT_NEEDED for e, _ in res.values()),
          "ElectLeaders PREFERRED when the preferred leaders lead: "
          "ELECTION_NOT_NEEDED for each partition (%d, %s)" % (top, res))
    top, res = elect_leaders(port, "el-missing", [0])
    check(res.get(0, (None,))[0] == UNKNOWN_TOPIC_OR_PARTITION,
          "ElectLeaders of an unknown topic is UNKNOWN_TOPIC_OR_PARTITION "
          "(%d, %s)" % (top, res))
    _, _, after = metadata(srv.port, [topic])
    check({i: p[1] for i, p in after[topic][1].items()}
          == {i: p[1] for i, p in parts.items()},
          "the leaders did not change")


def case_kip848_admin(srv, node):
    check(node is not None, "node is given (the KIP-848 case needs it)")
    r = subprocess.run([node, os.path.join(HERE, "platformatic",
                                           "admin_groups.mjs"),
                        srv.bootstrap()], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=150)
    print(r.stdout, flush=True)
    check(r.returncode == 0 and r.stdout.rstrip().endswith("PASS"),
          "@platformatic/kafka's checks of the KIP-848 group's admin APIs "
          "and of DeleteRecords / DescribeLogDirs all hold (exit %d)"
          % r.returncode)


CASES = {
    "kip848-admin": case_kip848_admin,
    "delete-groups": case_delete_groups,
    "offset-delete": case_offset_delete,
    "admin-commit": case_admin_commit,
    "create-partitions": case_create_partitions,
    "delete-records": case_delete_records,
    "describe-log-dirs": case_describe_log_dirs,
    "elect-leaders": case_elect_leaders,
}


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in CASES:
        print("usage: admin_api_test.py TROUPE CASE [NODE]; CASE in %s"
              % ", ".join(CASES))
        return 2
    node = sys.argv[3] if len(sys.argv) > 3 else None
    overrides = ["offsets.topic.replication.factor=3",
                 "default.replication.factor=3"]
    with TroupeServe(sys.argv[1], overrides=overrides) as srv:
        CASES[sys.argv[2]](srv, node)
    log("PASS " + sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
