#!/usr/bin/python3
"""__consumer_offsets in Kafka's own record schemas, end to end.

    offsets_format_test.py TROUPE_BINARY CASE

CASE is one of:

  format   real clients commit to a running `troupe serve` (a classic group
           with a member, kafka-python; commits without membership, with
           metadata; a KIP-848 group, @platformatic/kafka); troupe's
           __consumer_offsets, consumed with kafka-python and read from its
           segment files after a clean stop, decodes record by record with
           tests/kafka/offsets_decoder.py (written from Kafka 3.9's JSON
           schemas) to exactly the committed values, in the key and value
           versions Kafka 3.9 writes
  upgrade  `troupe serve` on a copy of tests/fixtures/legacy_offsets (a
           log.dirs written by the release before issue 20, protobuf
           records) answers OffsetFetch and DescribeGroups with the
           fixture's values, appends the rewrite in Kafka's format (a
           tombstone of every old key, then the current records, which
           decode with the independent decoder to the same values, stamped
           with the load's wall clock), and
           after a restart answers the same again without a second rewrite

Each run starts its own server (one broker, one __consumer_offsets
partition) on free ports with a temporary log.dirs and stops it by pid,
also on failure; every wait is bounded.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402
import offsets_decoder as kafka  # noqa: E402

FIXTURE = os.path.join(SOURCE, "tests", "fixtures", "legacy_offsets")
MAKER = os.path.join(SOURCE, "tests", "fixtures",
                     "make_legacy_offsets_fixture.py")
KIP848_MEMBER = os.path.join(SOURCE, "tests", "fixtures", "kip848_member.mjs")
TOPIC = "fixture-events"  # the topic the fixture's member helpers use
PARTITIONS = 3
OFFSETS_DIR = os.path.join("broker-0", "__consumer_offsets-0")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Server:
    """`troupe serve` with one broker and one __consumer_offsets partition
    on `logs`."""

    def __init__(self, binary, logs, log_path):
        self.port = free_port_range(1)
        self.log_path = log_path
        self.log = open(log_path, "a")
        self.proc = subprocess.Popen(
            [binary, "serve", "--http-port", "0", "--log-level", "info",
             "--override", "troupe.brokers=1",
             "--override", "offsets.topic.num.partitions=1",
             "--override", "log.dirs=" + logs,
             "--override", "port=%d" % self.port,
             "--override", "group.initial.rebalance.delay.ms=0",
             "--override", "group.consumer.assignment.interval.ms=0",
             "--override", "num.partitions=%d" % PARTITIONS,
             "--override", "default.replication.factor=1",
             "--override", "min.insync.replicas=1"],
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent())
        ready = "Kafka listeners on %d.." % self.port
        deadline = time.time() + 30
        while time.time() < deadline and self.proc.poll() is None:
            with open(log_path) as f:
                if ready in f.read():
                    try:
                        socket.create_connection(("127.0.0.1", self.port),
                                                 1).close()
                        return
                    except OSError:
                        pass
            time.sleep(0.1)
        self.stop()
        raise AssertionError("troupe serve did not come up")

    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def tail(self):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-40:])


def start_member(args):
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, preexec_fn=die_with_parent())
    line = p.stdout.readline()
    check(line, "member %s printed nothing" % args)
    return p, json.loads(line)


def consume_offsets_topic(bootstrap, timeout=30):
    """Every record of __consumer_offsets-0 as a Kafka tool reads it: a
    kafka-python consumer from the beginning to the end offset."""
    from kafka import KafkaConsumer, TopicPartition
    tp = TopicPartition("__consumer_offsets", 0)
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                      group_id=None)
    try:
        c.assign([tp])
        c.seek_to_beginning(tp)
        end = c.end_offsets([tp])[tp]
        out = []
        deadline = time.time() + timeout
        while c.position(tp) < end:
            check(time.time() < deadline, "could not read __consumer_offsets "
                  "to offset %d" % end)
            for records in c.poll(timeout_ms=500).values():
                out.extend((r.offset, r.key, r.value) for r in records)
        return out
    finally:
        c.close()


def decode_all(records, allow_legacy=False):
    """Each record decoded with Kafka's schemas, in log order:
    [(offset, record type, key name, key, value version|None, value)].
    Any record that does not decode fails, except, with allow_legacy,
    troupe's old protobuf records (first key byte not 0)."""
    out = []
    for offset, key, value in records:
        check(key is not None, "record %d has no key" % offset)
        if key[0] != 0:
            check(allow_legacy, "record %d is not in Kafka's format: %r" %
                  (offset, key[:8]))
            continue
        try:
            t, key_name, k = kafka.decode_key(key)
            version, v = None, None
            if value is not None:
                version, _, v = kafka.decode_value(t, value)
        except kafka.DecodeError as e:
            raise AssertionError("record %d does not decode with Kafka's "
                                 "schema: %s" % (offset, e))
        out.append((offset, t, key_name, k, version, v))
    return out


def latest(decoded):
    """The last record of each key: {(type, key fields): (version, value)}."""
    out = {}
    for _, t, _, k, version, v in decoded:
        key = (1 if t == 0 else t, tuple(sorted(k.items())))
        out[key] = (version, v)
    return out


def offset_key(group, partition):
    return (1, tuple(sorted({"group": group, "topic": TOPIC,
                             "partition": partition}.items())))


def group_key(t, group, member=None):
    k = {"GroupId": group} if t >= 3 else {"group": group}
    if member is not None:
        k["MemberId"] = member
    return (t, tuple(sorted(k.items())))


def check_offsets(state, group, expected, leader_epoch):
    for p, (offset, metadata) in expected.items():
        got = state.get(offset_key(group, int(p)))
        check(got and got[1], "no OffsetCommit record for %s-%s" % (group, p))
        version, v = got
        check(version == 3, "OffsetCommitValue v%s, Kafka 3.9 writes v3" %
              version)
        # commitTimestamp is wall-clock milliseconds, as Kafka's tools and
        # offsets expiry read it.
        check(v["offset"] == offset and v["metadata"] == metadata
              and v["leaderEpoch"] == leader_epoch
              and abs(v["commitTimestamp"] - time.time() * 1000) < 600000,
              "%s-%s decodes to %r, committed %r" % (group, p, v,
                                                     (offset, metadata)))


# -- format ----------------------------------------------------------------------

def case_format(binary, work):
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka import TopicPartition
    from kafka.admin import NewTopic
    from kafka.structs import OffsetAndMetadata
    logs = os.path.join(work, "logs")
    server = Server(binary, logs, os.path.join(work, "troupe.log"))
    members = []
    try:
        boot = server.bootstrap()
        admin = KafkaAdminClient(bootstrap_servers=boot)
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])
        admin.close()
        producer = KafkaProducer(bootstrap_servers=boot, acks="all")
        for p in range(PARTITIONS):
            for i in range(5):
                producer.send(TOPIC, value=b"v%d" % i, partition=p)
        producer.flush()
        producer.close()

        classic = {"0": [7, "m7"], "1": [8, ""], "2": [2, "x"]}
        p, member = start_member([sys.executable, MAKER, "--classic-member",
                                  boot, "fmt-classic", json.dumps([classic]),
                                  "1"])
        members.append(p)

        c = KafkaConsumer(bootstrap_servers=boot, group_id="fmt-standalone",
                          enable_auto_commit=False)
        tp = TopicPartition(TOPIC, 0)
        c.assign([tp])
        c.commit({tp: OffsetAndMetadata(3, "standalone")})
        c.close(autocommit=False)

        p, kip848 = start_member(["node", KIP848_MEMBER, boot, "fmt-kip848",
                                  TOPIC, str(PARTITIONS),
                                  json.dumps({"0": 4, "1": 6}), "stay"])
        members.append(p)

        consumed = consume_offsets_topic(boot)
        check(consumed, "__consumer_offsets is empty")
        for source, records in (("consumed", consumed), (None, None)):
            if source is None:
                server.stop()
                for m in members:
                    m.kill()
                    m.wait()
                members = []
                records = kafka.read_segment_files(os.path.join(logs,
                                                                OFFSETS_DIR))
                source = "segment files"
                check(len(records) >= len(consumed),
                      "the segment files hold fewer records than were "
                      "consumed")
            decoded = decode_all(records)
            # Kafka 3.9 writes OffsetCommitKey as record type 1, never 0.
            check(all(t != 0 for _, t, _, _, _, _ in decoded),
                  "an OffsetCommitKey of record type 0")
            state = latest(decoded)
            check_offsets(state, "fmt-classic",
                          {p: tuple(v) for p, v in classic.items()}, -1)
            check_offsets(state, "fmt-standalone", {"0": (3, "standalone")},
                          -1)
            check_offsets(state, "fmt-kip848", {"0": (4, ""), "1": (6, "")},
                          0)
            # The classic group's metadata, GroupMetadataValue v3.
            version, g = state[group_key(2, "fmt-classic")]
            check(version == 3, "GroupMetadataValue v%s" % version)
            check(g["protocolType"] == "consumer" and g["protocol"] == "range"
                  and g["generation"] == member["generation"]
                  and g["leader"] == member["member_id"]
                  and [m["memberId"] for m in g["members"]]
                  == [member["member_id"]]
                  and g["members"][0]["clientId"] == "fmt-classic"
                  and g["members"][0]["groupInstanceId"] is None
                  and abs(g["currentStateTimestamp"] - time.time() * 1000)
                  < 600000,
                  "GroupMetadataValue of fmt-classic: %r" % g)
            # The KIP-848 group's records, each in its own record type.
            mid = kip848["memberId"]
            for t in (3, 4, 6):
                check(state.get(group_key(t, "fmt-kip848"), (0, None))[1]
                      is not None, "no record of type %d for fmt-kip848" % t)
            version, epoch = state[group_key(3, "fmt-kip848")]
            check(version == 0 and epoch["Epoch"] >= 1,
                  "ConsumerGroupMetadataValue %r" % epoch)
            _, topics = state[group_key(4, "fmt-kip848")]
            check([(t["TopicName"], t["NumPartitions"])
                   for t in topics["Topics"]] == [(TOPIC, PARTITIONS)],
                  "ConsumerGroupPartitionMetadataValue %r" % topics)
            topic_id = topics["Topics"][0]["TopicId"]
            _, m = state[group_key(5, "fmt-kip848", mid)]
            check(m["SubscribedTopicNames"] == [TOPIC]
                  and m["ClientId"] == "fixture-kip848",
                  "ConsumerGroupMemberMetadataValue %r" % m)
            _, target = state[group_key(7, "fmt-kip848", mid)]
            _, current = state[group_key(8, "fmt-kip848", mid)]
            for name, parts in (("target", target["TopicPartitions"]),
                                ("current", current["AssignedPartitions"])):
                check([(x["TopicId"], sorted(x["Partitions"])) for x in parts]
                      == [(topic_id, [0, 1, 2])],
                      "%s assignment of %s: %r" % (name, mid, parts))
            check(current["MemberEpoch"] == epoch["Epoch"]
                  and current["State"] == 0,
                  "ConsumerGroupCurrentMemberAssignmentValue %r" % current)
            print("ok: %d records (%s) decode with Kafka 3.9's schemas to "
                  "the committed values" % (len(decoded), source))
    except AssertionError:
        print(server.tail())
        raise
    finally:
        server.stop()
        for m in members:
            m.kill()
            m.wait()


# -- upgrade ---------------------------------------------------------------------

def read_manifest():
    rows = []
    with open(os.path.join(FIXTURE, "manifest.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                rows.append(line.split("\t"))
    return rows


def attr(row, key):
    for f in row:
        if f.startswith(key + "="):
            return f[len(key) + 1:]
    raise AssertionError("manifest row %r has no %s" % (row, key))


def check_answers(boot, rows):
    """OffsetFetch and DescribeGroups answer the fixture's values."""
    from kafka import KafkaAdminClient
    admin = KafkaAdminClient(bootstrap_servers=boot)
    try:
        expected = {}
        for row in rows:
            if row[0] == "offset":
                expected.setdefault(row[1], {})[int(row[3])] = (int(row[4]),
                                                                row[6])
        for group, offsets in sorted(expected.items()):
            deadline = time.time() + 30
            while True:
                try:
                    got = admin.list_consumer_group_offsets(group)
                    break
                except Exception as e:  # COORDINATOR_LOAD_IN_PROGRESS
                    check(time.time() < deadline, "OffsetFetch of %s: %s" %
                          (group, e))
                    time.sleep(0.2)
            got = {tp.partition: (o.offset, o.metadata)
                   for tp, o in got.items() if tp.topic == TOPIC}
            check(got == offsets, "OffsetFetch of %s answers %r, the fixture "
                  "holds %r" % (group, got, offsets))
        for row in rows:
            if row[0] != "classic":
                continue
            (g,) = admin.describe_consumer_groups([row[1]])
            check(g.state == row[3] and g.protocol_type == row[2],
                  "DescribeGroups of %s: %r" % (row[1], g))
            members = int(attr(row, "members"))
            check(len(g.members) == members, "DescribeGroups of %s: %d "
                  "members" % (row[1], len(g.members)))
            if members:
                m = g.members[0]
                check(g.protocol == attr(row, "protocol")
                      and m.member_id == attr(row, "member")
                      and m.client_id == attr(row, "client_id")
                      and [(a[0], sorted(a[1]))
                           for a in m.member_assignment.assignment]
                      == [(TOPIC, [0, 1, 2])],
                      "DescribeGroups of %s: %r" % (row[1], g))
        return len(expected)
    finally:
        admin.close()


def case_upgrade(binary, work):
    rows = read_manifest()
    logs = os.path.join(work, "logs")
    shutil.copytree(os.path.join(FIXTURE, "logs"), logs)
    old = kafka.read_segment_files(os.path.join(logs, OFFSETS_DIR))
    check(old and all(k[0] != 0 for _, k, _ in old),
          "the fixture should hold only the old protobuf records")
    old_keys = {k for _, k, v in old}
    log_path = os.path.join(work, "troupe.log")
    started_ms = int(time.time() * 1000)
    server = Server(binary, logs, log_path)
    try:
        groups = check_answers(server.bootstrap(), rows)
        # The rewrite: a tombstone of each old key whose last record holds
        # a value, then the current state in Kafka's format.
        deadline = time.time() + 30
        while True:
            records = consume_offsets_topic(server.bootstrap())
            new = records[len(old):]
            if any(k[0] == 0 for _, k, _ in new):
                break
            check(time.time() < deadline, "no rewrite in Kafka's format")
            time.sleep(0.2)
        last_old = {}
        for _, k, v in old:
            last_old[k] = v
        tombstoned = {k for _, k, v in new if k[0] != 0}
        check(all(v is None for _, k, v in new if k[0] != 0),
              "the rewrite writes only tombstones of the old keys")
        check(tombstoned == {k for k, v in last_old.items() if v is not None},
              "the rewrite tombstones every old key whose last record holds "
              "a value, and only those")
        check(tombstoned <= old_keys, "tombstones of keys never written")
        first_kafka = min(o for o, k, _ in new if k[0] == 0)
        check(all(o < first_kafka for o, k, _ in new if k[0] != 0),
              "every old key's tombstone comes before the Kafka records")
        state = latest(decode_all(new, allow_legacy=True))
        for row in rows:
            if row[0] == "offset":
                got = state.get(offset_key(row[1], int(row[3])))
                # The old release's steady-clock stamps become the load's
                # wall clock, as Kafka's tools and offsets expiry read them.
                check(got and got[1] and got[1]["offset"] == int(row[4])
                      and got[1]["metadata"] == row[6]
                      and got[1]["leaderEpoch"] == int(row[5])
                      and got[1]["commitTimestamp"] >= started_ms,
                      "rewritten %s-%s: %r" % (row[1], row[3], got))
            elif row[0] == "consumer":
                got = state.get(group_key(5, row[1], attr(row, "member")))
                check(got and got[1]
                      and got[1]["SubscribedTopicNames"] == [TOPIC],
                      "rewritten member of %s: %r" % (row[1], got))
        stable = [r for r in rows if r[0] == "classic" and r[3] == "Stable"]
        for row in stable:
            _, g = state[group_key(2, row[1])]
            check(g["members"][0]["memberId"] == attr(row, "member"),
                  "rewritten GroupMetadataValue of %s: %r" % (row[1], g))
        server.stop()

        # A restart reads the rewrite (and the old records before it) and
        # answers the same; nothing is rewritten twice.
        server = Server(binary, logs, log_path)
        check_answers(server.bootstrap(), rows)
        again = consume_offsets_topic(server.bootstrap())
        check(len([1 for _, k, _ in again if k[0] != 0])
              == len(old) + len(tombstoned),
              "a second load wrote old-format tombstones again")
        print("ok: the fixture's %d groups answer the same before and after "
              "the rewrite (%d old keys tombstoned) and a restart" %
              (groups, len(tombstoned)))
    except AssertionError:
        print(server.tail())
        raise
    finally:
        server.stop()


def main():
    binary, case = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="troupe-offsets-format-")
    try:
        {"format": case_format, "upgrade": case_upgrade}[case](binary, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
