#!/usr/bin/python3
"""Per-topic configs on a ZooKeeper cluster of three troupe nodes, with real
clients: confluent-kafka (librdkafka) for CreateTopics and produce,
@platformatic/kafka (tests/kafka/platformatic/configs_tool.mjs) for
IncrementalAlterConfigs and for DescribeConfigs asked of one broker at a
time, kazoo for what ZooKeeper holds.

    topic_configs_cluster_test.py build/troupe CASE

  incremental-alter-configs
      CreateTopics with configs stores them in /config/topics/<t> in Kafka's
      JSON; IncrementalAlterConfigs (SET, APPEND, SUBTRACT, DELETE) sent to a
      node that is not the controller changes retention.ms and
      cleanup.policy, and every node applies it: DescribeConfigs is answered
      the same by every broker, a small retention.ms deletes the old
      segments on every replica, cleanup.policy=compact makes the leader
      refuse a record without a key (INVALID_RECORD)

Observed from outside the nodes only (tests/cluster/cluster_fixture.py).
"""

import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import KafkaError, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from cluster_fixture import ROOT, Cluster, check, log, main, wait_for  # noqa: E402

TOOL = os.path.join(ROOT, "tests", "kafka", "platformatic", "configs_tool.mjs")
TOPIC_CONFIG = 1
DEFAULT_CONFIG = 5


def node_js():
    node = shutil.which("node") or shutil.which("nodejs")
    check(node is not None, "node is installed (Debian: nodejs)")
    return node


def tool(*args):
    r = subprocess.run([node_js(), TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=40)
    if r.returncode != 0:
        raise AssertionError(f"configs_tool {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def describe(node, topic):
    """DescribeConfigs asked of this node's broker only."""
    answer = tool("describe", node.bootstrap, topic)
    check(answer["error"] == 0, f"node {node.id}: DescribeConfigs {topic} answered error {answer['error']}")
    return answer["configs"]


def alter(bootstrap, topic, *ops):
    return tool("alter", bootstrap, topic, *ops)


def same_everywhere(c, topic, want):
    """Every node's DescribeConfigs has each name of `want` at its (value,
    source); the answers of all nodes, when they do."""
    answers = {}
    for n in c.live_nodes():
        configs = describe(n, topic)
        for name, (value, source) in want.items():
            got = configs.get(name, {})
            if (got.get("value"), got.get("source")) != (value, source):
                return None
        answers[n.id] = configs
    return answers


def segment_files(node, topic, partition):
    d = node.replica_dir(topic, partition)
    return sorted(f for f in os.listdir(d) if f.endswith(".log")) if os.path.isdir(d) else []


def incremental_alter_configs(troupe):
    props = {"log.retention.check.interval.ms": 300, "offsets.topic.replication.factor": 3}
    with Cluster(troupe, props=props) as c:
        c.start(3)
        topic = "configs"
        admin = AdminClient({"bootstrap.servers": c.bootstrap()})
        futures = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=3, config={"retention.ms": "3600000", "segment.bytes": "4096"})], request_timeout=30)
        futures[topic].result(timeout=60)
        wait_for(f"topic {topic} led with a full ISR", lambda: c.topic_led(topic, isr_size=3), 30)

        # Kafka's layout: /config/topics/<t> holds {"version":1,"config":{...}}.
        stored = c.zk_get_json(f"/config/topics/{topic}")
        log(f"/config/topics/{topic}: {stored}")
        check(stored is not None and stored.get("version") == 1 and stored.get("config") == {"retention.ms": "3600000", "segment.bytes": "4096"}, f"CreateTopics' configs are stored in /config/topics/{topic} in Kafka's JSON: {stored}")
        answers = wait_for("every broker to describe the created topic's configs", lambda: same_everywhere(c, topic, {"retention.ms": ("3600000", TOPIC_CONFIG), "segment.bytes": ("4096", TOPIC_CONFIG), "cleanup.policy": ("delete", DEFAULT_CONFIG)}), 30)
        check(len(answers) == 3, f"DescribeConfigs on each of the 3 brokers: retention.ms and segment.bytes from TOPIC_CONFIG, cleanup.policy the DEFAULT_CONFIG delete (brokers {sorted(answers)})")

        # Enough records for a dozen 4 KiB segments on every replica.
        # Small batches: a batch larger than segment.bytes gets a segment of
        # its own, so only small ones fill several segments.
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0, "batch.size": 1024})
        failed = []
        for i in range(120):
            producer.produce(topic, key=f"k{i % 10}", value=f"record-{i}-" + "x" * 400, on_delivery=lambda err, msg: err and failed.append(err))
            producer.poll(0)
        check(producer.flush(60) == 0 and not failed, f"120 records acknowledged with acks=all ({failed})")
        wait_for("every replica to hold several segments", lambda: all(len(segment_files(n, topic, 0)) >= 5 for n in c.nodes), 30)
        before = {n.id: segment_files(n, topic, 0) for n in c.nodes}
        log(f"segments before: { {k: len(v) for k, v in before.items()} }")
        check(all(v[0] == "00000000000000000000.log" for v in before.values()), f"every replica's log starts at offset 0: {before}")

        # IncrementalAlterConfigs to a node that is not the controller: the
        # change goes to the controller, which stores it and tells every node.
        controller = c.controller()
        via = next(n for n in c.nodes if n.id != controller)
        log(f"controller is {controller}; IncrementalAlterConfigs through node {via.id}")
        answer = alter(via.bootstrap, topic, "SET:retention.ms=1000", "--validate-only")
        check(answer["error"] == 0, f"IncrementalAlterConfigs validate_only SET retention.ms=1000 is accepted: {answer}")
        time.sleep(1)
        check(c.zk_get_json(f"/config/topics/{topic}")["config"].get("retention.ms") == "3600000", "validate_only stored nothing: retention.ms is still 3600000 in ZooKeeper")
        answer = alter(via.bootstrap, topic, "APPEND:retention.ms=5")
        check(answer["error"] == KafkaError.INVALID_CONFIG, f"APPEND to retention.ms, not a list, is INVALID_CONFIG: {answer}")
        answer = alter(via.bootstrap, "no-such-topic", "SET:retention.ms=1000")
        check(answer["error"] == KafkaError.UNKNOWN_TOPIC_OR_PART, f"IncrementalAlterConfigs of an unknown topic is UNKNOWN_TOPIC_OR_PARTITION: {answer}")
        answer = alter(via.bootstrap, topic, "SET:retention.ms=1000")
        check(answer["error"] == 0, f"IncrementalAlterConfigs SET retention.ms=1000 succeeds: {answer}")
        check(c.zk_get_json(f"/config/topics/{topic}")["config"].get("retention.ms") == "1000", "retention.ms=1000 is stored in /config/topics")
        wait_for("every broker to describe retention.ms=1000", lambda: same_everywhere(c, topic, {"retention.ms": ("1000", TOPIC_CONFIG)}), 30)

        # Retention on every replica: the old segments go, the active stays.
        def trimmed():
            now = {n.id: segment_files(n, topic, 0) for n in c.nodes}
            return now if all(v and v[0] != "00000000000000000000.log" and len(v) < len(before[i]) for i, v in now.items()) else None
        after = wait_for("retention.ms=1000 to delete the old segments on every replica", trimmed, 40)
        log(f"segments after: { {k: v for k, v in after.items()} }")
        check(len(after) == 3, "every replica (3 nodes) deleted its old segments once retention.ms was 1000")

        # cleanup.policy: APPEND then SUBTRACT, as kafka-configs --add-config
        # / --delete-config of list values do.
        answer = alter(via.bootstrap, topic, "APPEND:cleanup.policy=compact")
        check(answer["error"] == 0, f"APPEND cleanup.policy=compact succeeds: {answer}")
        wait_for("every broker to describe cleanup.policy=delete,compact", lambda: same_everywhere(c, topic, {"cleanup.policy": ("delete,compact", TOPIC_CONFIG)}), 30)
        answer = alter(via.bootstrap, topic, "SUBTRACT:cleanup.policy=delete", "DELETE:retention.ms")
        check(answer["error"] == 0, f"SUBTRACT cleanup.policy=delete and DELETE retention.ms succeed: {answer}")
        stored = c.zk_get_json(f"/config/topics/{topic}")["config"]
        check(stored == {"cleanup.policy": "compact", "segment.bytes": "4096"}, f"/config/topics/{topic} holds cleanup.policy=compact, no retention.ms: {stored}")
        answers = wait_for("every broker to describe cleanup.policy=compact and retention.ms back to the default", lambda: same_everywhere(c, topic, {"cleanup.policy": ("compact", TOPIC_CONFIG), "retention.ms": ("604800000", DEFAULT_CONFIG)}), 30)
        check(len({json.dumps(a, sort_keys=True) for a in answers.values()}) == 1, "the three brokers answer DescribeConfigs identically")

        # The leader applies cleanup.policy=compact: a record without a key
        # is refused (Kafka's LogValidator), one with a key is written.
        reports = []
        for key in (None, "k1"):
            producer.produce(topic, key=key, value="after-compact", on_delivery=lambda err, msg: reports.append(err))
            producer.flush(30)
        check(len(reports) == 2 and reports[0] is not None and reports[0].code() == KafkaError.INVALID_RECORD, f"a record without a key to the now compacted topic is refused with INVALID_RECORD: {reports}")
        check(reports[1] is None, f"a record with a key is written: {reports[1]}")


CASES = {
    "incremental-alter-configs": (incremental_alter_configs, 170),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
