#!/usr/bin/python3
"""Per-topic configs and compacted topics with real Kafka clients.

    topic_configs_test.py TROUPE_BINARY CASE

CASE is one of:

  create-with-configs
      confluent-kafka's AdminClient creates a topic with configs; CreateTopics
      refuses an unknown config name and a bad value with INVALID_CONFIG and
      Kafka's message, and validate_only creates nothing; DescribeConfigs
      reports each given config as TOPIC_CONFIG and the others as
      DEFAULT_CONFIG or STATIC_BROKER_CONFIG; AlterConfigs replaces the whole
      set of overrides; a broker's configs cannot be altered (INVALID_REQUEST)
      and an unknown topic is UNKNOWN_TOPIC_OR_PARTITION
  compacted-topic
      a topic with cleanup.policy=compact: updates and tombstones per key;
      once the log cleaner ran, a consumer from the beginning (confluent-kafka
      and kcat) sees exactly the latest value of each live key and none of a
      deleted one; a consumer positioned inside a hole continues with the
      next record; a record without a key is refused with INVALID_RECORD

Each run starts its own `troupe serve` (the embedded node, three brokers) on
free ports with a temporary log.dirs and stops it by pid, also on failure;
every wait is bounded.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_clients_test import Server, check, wait_for  # noqa: E402

from confluent_kafka import (  # noqa: E402
    Consumer, KafkaError, KafkaException, Producer, TopicPartition)
from confluent_kafka.admin import (  # noqa: E402
    AdminClient, ConfigResource, NewTopic)

# DescribeConfigsResponse.ConfigSource
TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5


def admin_of(server):
    return AdminClient({"bootstrap.servers": server.bootstrap()})


def create(admin, topic, configs, validate_only=False, partitions=1):
    """The CreateTopics answer for one topic: None or the KafkaError."""
    futures = admin.create_topics(
        [NewTopic(topic, num_partitions=partitions, replication_factor=3,
                  config=configs)],
        request_timeout=30, validate_only=validate_only)
    try:
        futures[topic].result(timeout=60)
        return None
    except KafkaException as e:
        return e.args[0]


def describe(admin, topic):
    """DescribeConfigs of a topic: {name: ConfigEntry}."""
    res = ConfigResource(ConfigResource.Type.TOPIC, topic)
    futures = admin.describe_configs([res], request_timeout=30)
    return futures[res].result(timeout=60)


def alter(admin, resource_type, name, configs):
    """AlterConfigs (33) of one resource: None or the KafkaError."""
    res = ConfigResource(resource_type, name, set_config=configs)
    futures = admin.alter_configs([res], request_timeout=30)
    try:
        futures[res].result(timeout=60)
        return None
    except KafkaException as e:
        return e.args[0]


def topic_exists(admin, topic):
    # Every topic: a Metadata request naming the topic would create it
    # (auto.create.topics.enable).
    md = admin.list_topics(timeout=30)
    t = md.topics.get(topic)
    return t is not None and t.error is None


def case_create_with_configs(server):
    admin = admin_of(server)
    # -- refused, with Kafka's codes and messages ---------------------------
    err = create(admin, "refused-name", {"retention.mss": "1000"})
    check(err is not None and err.code() == KafkaError.INVALID_CONFIG,
          "CreateTopics with an unknown config name is INVALID_CONFIG (%s)"
          % err)
    check("Unknown topic config name: retention.mss" in err.str(),
          "its message names the config as Kafka does (%s)" % err.str())
    err = create(admin, "refused-value", {"retention.ms": "soon"})
    check(err is not None and err.code() == KafkaError.INVALID_CONFIG,
          "CreateTopics with retention.ms=soon is INVALID_CONFIG (%s)" % err)
    check("retention.ms" in err.str() and "soon" in err.str(),
          "its message names the config and the value (%s)" % err.str())
    err = create(admin, "refused-policy", {"cleanup.policy": "shred"})
    check(err is not None and err.code() == KafkaError.INVALID_CONFIG,
          "CreateTopics with cleanup.policy=shred is INVALID_CONFIG (%s)"
          % err)
    check(not topic_exists(admin, "refused-name")
          and not topic_exists(admin, "refused-value"),
          "no refused topic was created")
    # -- validate_only answers without creating -----------------------------
    err = create(admin, "only-checked", {"cleanup.policy": "compact"},
                 validate_only=True)
    check(err is None, "CreateTopics validate_only with valid configs "
          "succeeds (%s)" % err)
    err = create(admin, "only-checked", {"segment.bytes": "-5"},
                 validate_only=True)
    check(err is not None and err.code() == KafkaError.INVALID_CONFIG,
          "CreateTopics validate_only still validates: segment.bytes=-5 is "
          "INVALID_CONFIG (%s)" % err)
    time.sleep(1)
    check(not topic_exists(admin, "only-checked"),
          "validate_only created no topic")
    # -- created with configs ------------------------------------------------
    given = {"cleanup.policy": "compact,delete", "retention.ms": "3600000",
             "max.message.bytes": "65536", "segment.ms": "600000"}
    err = create(admin, "orders", given, partitions=2)
    check(err is None, "CreateTopics with %s succeeds (%s)" % (given, err))
    wait_for("orders in the metadata", lambda: topic_exists(admin, "orders"),
             30)
    configs = describe(admin, "orders")
    for name, value in given.items():
        e = configs.get(name)
        check(e is not None and e.value == value
              and e.source == TOPIC_CONFIG,
              "DescribeConfigs: %s=%s from TOPIC_CONFIG (%s)"
              % (name, value, e and (e.value, e.source)))
    for name in ("segment.bytes", "delete.retention.ms",
                 "min.cleanable.dirty.ratio", "unclean.leader.election.enable",
                 "message.timestamp.type"):
        e = configs.get(name)
        check(e is not None and e.source == DEFAULT_CONFIG,
              "DescribeConfigs: %s has no override, DEFAULT_CONFIG (%s)"
              % (name, e and (e.value, e.source)))
    check(configs["segment.bytes"].value == "1073741824",
          "segment.bytes is the broker's default 1073741824 (%s)"
          % configs["segment.bytes"].value)
    # Set on the command line (Server passes min.insync.replicas=2): the
    # broker's static config.
    e = configs["min.insync.replicas"]
    check(e.value == "2" and e.source == STATIC_BROKER_CONFIG,
          "min.insync.replicas without an override is the broker's "
          "STATIC_BROKER_CONFIG 2 (%s, %s)" % (e.value, e.source))
    # -- AlterConfigs replaces the whole set -------------------------------------
    err = alter(admin, ConfigResource.Type.TOPIC, "orders",
                {"retention.ms": "60000"})
    check(err is None, "AlterConfigs retention.ms=60000 succeeds (%s)" % err)
    configs = describe(admin, "orders")
    check(configs["retention.ms"].value == "60000"
          and configs["retention.ms"].source == TOPIC_CONFIG,
          "retention.ms is 60000 from TOPIC_CONFIG")
    check(configs["cleanup.policy"].value == "delete"
          and configs["cleanup.policy"].source == DEFAULT_CONFIG,
          "AlterConfigs dropped the override it did not list: cleanup.policy "
          "is the default again (%s, %s)"
          % (configs["cleanup.policy"].value, configs["cleanup.policy"].source))
    err = alter(admin, ConfigResource.Type.TOPIC, "orders",
                {"retention.ms": "never"})
    check(err is not None and err.code() == KafkaError.INVALID_CONFIG,
          "AlterConfigs with a bad value is INVALID_CONFIG (%s)" % err)
    check(describe(admin, "orders")["retention.ms"].value == "60000",
          "a refused AlterConfigs changes nothing")
    err = alter(admin, ConfigResource.Type.TOPIC, "no-such-topic",
                {"retention.ms": "1000"})
    check(err is not None
          and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART,
          "AlterConfigs of an unknown topic is UNKNOWN_TOPIC_OR_PARTITION "
          "(%s)" % err)
    err = alter(admin, ConfigResource.Type.BROKER, "0",
                {"log.retention.ms": "1000"})
    check(err is not None and err.code() == KafkaError.INVALID_REQUEST
          and "Cannot update these configs dynamically" in err.str(),
          "AlterConfigs of a broker config is INVALID_REQUEST, the config "
          "cannot be updated dynamically (%s)" % err)
    # -- the REST Proxy view --------------------------------------------------
    if server.http_port:
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", server.http_port,
                                          timeout=30)
        conn.request("GET", "/topics/orders",
                     headers={"Accept": "application/vnd.kafka.v2+json"})
        res = conn.getresponse()
        body = json.loads(res.read().decode())
        conn.close()
        check(res.status == 200 and body["name"] == "orders"
              and body["configs"].get("retention.ms") == "60000"
              and body["configs"].get("cleanup.policy") == "delete"
              and len(body["partitions"]) == 2,
              "REST GET /topics/orders shows the topic's configs (%s)"
              % body.get("configs"))


def consume_all(bootstrap, topic, start=None, idle=3.0, timeout=30):
    """Every record of partition 0 from `start` (default: the beginning)
    until nothing comes for `idle` seconds: [(offset, key, value)]."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused",
                  "enable.auto.commit": False,
                  "enable.partition.eof": False})
    try:
        offset = start if start is not None else -2  # OFFSET_BEGINNING
        c.assign([TopicPartition(topic, 0, offset)])
        out = []
        deadline = time.time() + timeout
        last = time.time()
        while time.time() < deadline and time.time() - last < idle:
            for m in c.consume(num_messages=500, timeout=0.2):
                if m.error() is not None:
                    raise AssertionError("consume: %s" % m.error())
                out.append((m.offset(), m.key(), m.value()))
                last = time.time()
        return out
    finally:
        c.close()


def kcat_all(bootstrap, topic):
    r = subprocess.run(["kcat", "-b", bootstrap, "-C", "-t", topic, "-p", "0",
                        "-o", "beginning", "-e", "-J", "-q"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    check(r.returncode == 0, "kcat read %s (%s)" % (topic, r.stderr.strip()))
    return [json.loads(line) for line in r.stdout.splitlines() if line]


def case_compacted_topic(server):
    admin = admin_of(server)
    topic = "latest-per-key"
    err = create(admin, topic, {
        "cleanup.policy": "compact", "segment.bytes": "2048",
        "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "500",
        "min.compaction.lag.ms": "0"})
    check(err is None, "a compacted topic is created (%s)" % err)
    wait_for(topic + " in the metadata", lambda: topic_exists(admin, topic),
             30)
    producer = Producer({"bootstrap.servers": server.bootstrap(),
                         "acks": "all", "linger.ms": 0,
                         "batch.num.messages": 1})
    failures = []

    def report(err, msg):
        if err is not None:
            failures.append(err)

    # Ten keys, five versions each; keys 7, 8 and 9 end with a tombstone.
    latest = {}
    for version in range(5):
        for k in range(10):
            key, value = "key-%d" % k, "v%d-of-key-%d-%s" % (version, k,
                                                             "x" * 40)
            producer.produce(topic, key=key, value=value, on_delivery=report)
            latest[key] = value
            producer.poll(0)
    for k in (7, 8, 9):
        producer.produce(topic, key="key-%d" % k, value=None,
                         on_delivery=report)
        del latest["key-%d" % k]
    # Records with keys of their own after the last update, so that the
    # updates and tombstones are in segments the cleaner may clean (never
    # the active one).
    count = [0]

    def fill(n):
        out = {}
        for _ in range(n):
            i = count[0]
            count[0] += 1
            key, value = "filler-%d" % i, "f%d-%s" % (i, "y" * 40)
            producer.produce(topic, key=key, value=value, on_delivery=report)
            out[key] = value
            producer.poll(0)
        producer.flush(30)
        return out

    fillers = fill(40)
    check(producer.flush(60) == 0 and not failures,
          "every update, tombstone and filler is acknowledged (%s)" % failures)
    expected = dict(latest)
    expected.update(fillers)

    last = {}

    def compacted():
        records = consume_all(server.bootstrap(), topic, idle=1.5)
        last["records"] = len(records)
        seen = {}
        for offset, key, value in records:
            seen.setdefault(key.decode(), []).append(
                None if value is None else value.decode())
        once = {k: v[0] for k, v in seen.items() if len(v) == 1}
        last["repeated"] = sorted(k for k, v in seen.items() if len(v) > 1)
        last["unexpected"] = sorted(k for k in once if k not in expected)
        if all(len(v) == 1 for v in seen.values()) and once == expected:
            last["done"] = records
            return True
        # Compacted down to one record per key, tombstones included: Kafka
        # drops a tombstone on a later clean once delete.retention.ms has
        # passed since the first, and a clean needs new dirty records.
        if not last["repeated"] and all(
                once[k] is None for k in last["unexpected"]):
            more = fill(5)
            expected.update(more)
        return None

    try:
        wait_for("the cleaner to keep exactly the latest value per key and "
                 "drop the tombstones", compacted, timeout=90)
    except AssertionError:
        print("last seen:", last)
        raise
    records = last["done"]
    produced = 50 + 3 + count[0]
    check(len(records) == len(expected) and len(records) < produced,
          "a consumer from the beginning sees %d records, one per live key, "
          "of the %d produced" % (len(records), produced))
    offsets = [o for o, _, _ in records]
    check(offsets == sorted(offsets) and offsets[-1] == produced - 1,
          "offsets are unchanged: ascending, the last still %d" % (produced - 1))
    got = kcat_all(server.bootstrap(), topic)
    check({m["key"]: m["payload"] for m in got} == expected
          and len(got) == len(expected),
          "kcat from the beginning sees the same %d records" % len(got))
    # A consumer positioned in a hole: the first offset that is gone.
    present = set(offsets)
    hole = next(o for o in range(produced) if o not in present)
    after = min(o for o in offsets if o > hole)
    from_hole = consume_all(server.bootstrap(), topic, start=hole, idle=1.5)
    check(from_hole and from_hole[0][0] == after,
          "a consumer positioned at offset %d, compacted away, continues "
          "with the next record at %d (got %s)"
          % (hole, after, from_hole[0][0] if from_hole else None))
    # No key: a compacted topic refuses it (LogValidator).
    refused = []
    producer.produce(topic, key=None, value="no key",
                     on_delivery=lambda err, msg: refused.append(err))
    producer.flush(30)
    check(refused and refused[0] is not None
          and refused[0].code() == KafkaError.INVALID_RECORD,
          "a record without a key is refused with INVALID_RECORD (%s)"
          % refused)


CASES = {
    "create-with-configs": (case_create_with_configs, (), True),
    "compacted-topic": (
        case_compacted_topic,
        ("log.cleaner.backoff.ms=100", "log.retention.check.interval.ms=200"),
        False),
}


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print(__doc__)
        return 2
    run, overrides, http = CASES[sys.argv[2]]
    server = Server(sys.argv[1], overrides, http)
    failed = True
    try:
        run(server)
        failed = False
    finally:
        server.stop(failed=failed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
