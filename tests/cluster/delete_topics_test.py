#!/usr/bin/python3
"""DeleteTopics, CreatePartitions and ElectLeaders on a ZooKeeper cluster
of three troupe processes, with
confluent-kafka's AdminClient (librdkafka), kcat for each node's metadata
and kazoo for ZooKeeper.

    delete_topics_test.py build/troupe CASE

  delete-topics
      a topic of 3 partitions, 3 replicas, with records on every replica, is
      deleted through a node that is not the controller: Kafka's
      TopicDeletionManager path (/admin/delete_topics/<t>, then /brokers/
      topics/<t> and /config/topics/<t> gone, the request znode removed),
      the topic disappears from every node's metadata, its partition
      directories are removed on every node, a second delete is
      UNKNOWN_TOPIC_OR_PARTITION and the topic can be created again, empty

  delete-topics-node-down
      a node down while its topic is deleted removes its replicas of it when
      it comes back (stray logs); the topic created again holds none of the
      deleted one's records on any node
  delete-topics-session-lost
      a node paused past its ZooKeeper session timeout while its topic is
      deleted removes its replicas of it once it registers again

  create-partitions
      CreatePartitions (validate_only, INVALID_PARTITIONS, then to 4) through
      a node that is not the controller: /brokers/topics/<t> assigns the new
      partitions, every node serves them, records to them are acknowledged

  elect-leaders
      ElectLeaders PREFERRED: ELECTION_NOT_NEEDED while the preferred replica
      leads; after its node was stopped and is back in the ISR, an election
      moves the leadership back with leader epoch + 1, seen by every node

auto.create.topics.enable=false: the producers' metadata requests must not
create the deleted topic again (Kafka would, with its default true).

Observed from outside the nodes only (tests/cluster/cluster_fixture.py).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from confluent_kafka import KafkaError, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient  # noqa: E402

from cluster_fixture import Cluster, check, log, main, read_partition, wait_for  # noqa: E402


def topic_in(node, topic):
    md = node.metadata()
    if md is None:
        return None
    return any(t["topic"] == topic and not t.get("error") for t in md.get("topics", []))


def delete(admin, topic):
    """None or the KafkaError of DeleteTopics for one topic."""
    fs = admin.delete_topics([topic], operation_timeout=30, request_timeout=40)
    try:
        fs[topic].result(timeout=60)
        return None
    except KafkaException as e:
        return e.args[0]


def delete_topics(troupe):
    props = {"offsets.topic.replication.factor": 3, "auto.create.topics.enable": "false"}
    with Cluster(troupe, props=props) as c:
        c.start(3)
        topic = "doomed"
        c.create_topic(topic, 3, 3)
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        failed = []
        for i in range(60):
            producer.produce(topic, key=f"k{i}", value=f"v{i}", partition=i % 3, on_delivery=lambda err, msg: err and failed.append(err))
            producer.poll(0)
        check(producer.flush(60) == 0 and not failed, f"60 records acknowledged with acks=all ({failed})")
        dirs = [(n, n.replica_dir(topic, p)) for n in c.nodes for p in range(3)]
        wait_for("every replica directory to hold records", lambda: all(os.path.isdir(d) and any(f.endswith(".log") and os.path.getsize(os.path.join(d, f)) > 0 for f in os.listdir(d)) for _, d in dirs), 30)
        check(c.zk_get_json(f"/brokers/topics/{topic}") is not None, f"/brokers/topics/{topic} exists")

        controller = c.controller()
        via = next(n for n in c.nodes if n.id != controller)
        log(f"controller is {controller}; DeleteTopics through node {via.id}")
        admin = AdminClient({"bootstrap.servers": via.bootstrap})
        err = delete(admin, topic)
        check(err is None, f"DeleteTopics {topic} through node {via.id} succeeds ({err})")

        zk = c.zk
        wait_for(f"/brokers/topics/{topic} removed", lambda: not zk.exists(f"/brokers/topics/{topic}"), 30)
        wait_for(f"/admin/delete_topics/{topic} removed", lambda: not zk.exists(f"/admin/delete_topics/{topic}"), 30)
        check(not zk.exists(f"/config/topics/{topic}"), f"/config/topics/{topic} is removed")
        for n in c.nodes:
            wait_for(f"node {n.id}'s metadata without {topic}", lambda: topic_in(n, topic) is False, 30)
        log(f"{topic} is gone from the metadata of nodes {[n.id for n in c.nodes]}")
        wait_for(f"no node's metadata listing {topic}, all at once", lambda: all(topic_in(n, topic) is False for n in c.nodes), 15)
        wait_for("every replica directory removed", lambda: not any(os.path.exists(d) for _, d in dirs), 30)
        for n in c.nodes:
            left = [f for f in os.listdir(os.path.join(n.data, f"broker-{n.id}")) if f.startswith(topic + "-")]
            check(not left, f"node {n.id} keeps no directory of {topic} (not even one renamed for deletion): {left}")

        err = delete(admin, topic)
        check(err is not None and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART, f"a second DeleteTopics is UNKNOWN_TOPIC_OR_PARTITION ({err})")

        # The same name again: a new, empty topic.
        c.create_topic(topic, 2, 3)
        check(len(c.topic_partitions(topic)) == 2, f"{topic} is created again with 2 partitions")
        for n in c.nodes:
            wait_for(f"node {n.id}'s metadata listing the new {topic}", lambda: topic_in(n, topic), 30)
        # A new producer: librdkafka's cache of the old one knows the topic as
        # deleted and refuses records to it at once (_UNKNOWN_TOPIC).
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        producer.produce(topic, key="again", value="fresh", partition=0, on_delivery=lambda err, msg: err and failed.append(err))
        check(producer.flush(30) == 0 and not failed, "a record to the new topic is acknowledged")
        records = read_partition(c.bootstrap(), topic, 0)
        values = [v for _, v in records]
        log(f"partition 0 of the new {topic}: {values}")
        check(values == ["fresh"], f"the new topic holds only the new record, nothing of the deleted one: {values}")
        del producer, admin  # librdkafka's clients go before the nodes stop


def delete_topics_node_down(troupe):
    """Kafka's TopicDeletionManager finishes a deletion on a broker that was
    offline with a StopReplica once it is back; a broker finds the logs of
    a deleted topic stray and removes them. Either way a topic created
    again with the name holds none of the old records."""
    props = {"offsets.topic.replication.factor": 3, "auto.create.topics.enable": "false"}
    with Cluster(troupe, props=props) as c:
        c.start(3)
        topic = "doomed"
        c.create_topic(topic, 3, 3)
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        failed = []
        for i in range(30):
            producer.produce(topic, value=f"old{i}", partition=i % 3, on_delivery=lambda err, msg: err and failed.append(err))
        check(producer.flush(60) == 0 and not failed, f"30 records acknowledged with acks=all ({failed})")
        away = c.node(3)
        dirs = [away.replica_dir(topic, p) for p in range(3)]
        wait_for("node 3's replicas to hold the records", lambda: all(os.path.isdir(d) and any(f.endswith(".log") and os.path.getsize(os.path.join(d, f)) > 0 for f in os.listdir(d)) for d in dirs), 30)
        away.stop()
        log("node 3 stopped; DeleteTopics through node 1")
        admin = AdminClient({"bootstrap.servers": c.node(1).bootstrap})
        err = delete(admin, topic)
        check(err is None, f"DeleteTopics {topic} with node 3 down succeeds ({err})")
        for n in (c.node(1), c.node(2)):
            wait_for(f"node {n.id}'s replica directories removed", lambda: not any(os.path.exists(n.replica_dir(topic, p)) for p in range(3)), 30)
        check(all(os.path.isdir(d) for d in dirs), "node 3, down, still has its directories of the deleted topic")
        away.start()
        c.wait_ready([1, 2, 3])
        wait_for("node 3 to remove its replica directories of the deleted topic", lambda: not any(os.path.exists(d) for d in dirs), 30)
        check("stray log" in away.log_text(), "node 3 logs the stray logs it removed")

        c.create_topic(topic, 3, 3)
        # A new producer: librdkafka's cache of the old one knows the topic as
        # deleted and refuses records to it at once (_UNKNOWN_TOPIC).
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        for p in range(3):
            producer.produce(topic, value=f"new{p}", partition=p, on_delivery=lambda err, msg: err and failed.append(err))
        check(producer.flush(60) == 0 and not failed, "a record per partition of the re-created topic acknowledged")
        for p in range(3):
            values = [v for _, v in read_partition(c.bootstrap(), topic, p)]
            check(values == [f"new{p}"], f"partition {p} of the re-created topic holds only its new record: {values}")
            for n in c.nodes:
                batches = wait_for(f"node {n.id}'s replica of {topic}-{p} to hold one record", lambda: (lambda b: b if sum(len(x.records) for x in b) == 1 else None)(n.replica_batches(topic, p)), 30)
                check(batches[0].base_offset == 0, f"node {n.id}'s replica of {topic}-{p} is one record at offset 0")
        del producer, admin


def delete_topics_session_lost(troupe):
    """A node that lost its ZooKeeper session (paused past the session
    timeout) while its topic was deleted stops and deletes its replicas
    when it is back, as Kafka's StopReplica reaches a returning broker."""
    props = {"offsets.topic.replication.factor": 3, "auto.create.topics.enable": "false"}
    with Cluster(troupe, props=props) as c:
        c.start(3)
        topic = "doomed"
        c.create_topic(topic, 2, 3)
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        failed = []
        for i in range(20):
            producer.produce(topic, value=f"old{i}", partition=i % 2, on_delivery=lambda err, msg: err and failed.append(err))
        check(producer.flush(60) == 0 and not failed, f"20 records acknowledged with acks=all ({failed})")
        away = next(n for n in c.nodes if n.id != c.controller())
        dirs = [away.replica_dir(topic, p) for p in range(2)]
        wait_for(f"node {away.id}'s replicas to exist", lambda: all(os.path.isdir(d) for d in dirs), 30)
        away.pause()
        wait_for(f"node {away.id}'s session to expire", lambda: away.id not in c.registered(), 30)
        log(f"node {away.id} paused and out of /brokers/ids; DeleteTopics")
        via = next(n for n in c.nodes if n is not away)
        admin = AdminClient({"bootstrap.servers": via.bootstrap})
        err = delete(admin, topic)
        check(err is None, f"DeleteTopics {topic} while node {away.id} is out succeeds ({err})")
        wait_for("/brokers/topics/doomed removed", lambda: not c.zk.exists(f"/brokers/topics/{topic}"), 30)
        away.cont()
        wait_for(f"node {away.id} registered again", lambda: away.id in c.registered(), 40)
        wait_for(f"node {away.id} to delete its replica directories of the deleted topic", lambda: not any(os.path.exists(d) for d in dirs), 40)
        wait_for(f"node {away.id}'s metadata without {topic}", lambda: topic_in(away, topic) is False, 30)
        c.wait_ready([1, 2, 3])
        c.create_topic(topic, 2, 3, via=c.node(c.controller()))
        # A new producer: librdkafka's cache of the old one knows the topic as
        # deleted and refuses records to it at once (_UNKNOWN_TOPIC).
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0})
        for p in range(2):
            producer.produce(topic, value=f"new{p}", partition=p, on_delivery=lambda err, msg: err and failed.append(err))
        check(producer.flush(60) == 0 and not failed, "a record per partition of the re-created topic acknowledged")
        for p in range(2):
            values = [v for _, v in read_partition(c.bootstrap(), topic, p)]
            check(values == [f"new{p}"], f"partition {p} of the re-created topic holds only its new record: {values}")
        del producer, admin


def create_partitions(troupe):
    """CreatePartitions through a node that is not the controller: Kafka's
    AdminZkClient.addPartitions writes the new assignment to
    /brokers/topics/<t>; every node serves the new partitions."""
    from confluent_kafka.admin import NewPartitions
    props = {"offsets.topic.replication.factor": 3, "auto.create.topics.enable": "false"}
    with Cluster(troupe, props=props) as c:
        c.start(3)
        topic = "growing"
        c.create_topic(topic, 2, 3)
        controller = c.controller()
        via = next(n for n in c.nodes if n.id != controller)
        admin = AdminClient({"bootstrap.servers": via.bootstrap})

        def grow(count, validate_only=False):
            fs = admin.create_partitions([NewPartitions(topic, count)], validate_only=validate_only, request_timeout=30)
            try:
                fs[topic].result(timeout=60)
                return None
            except KafkaException as e:
                return e.args[0]
        err = grow(4, validate_only=True)
        check(err is None, f"validate_only CreatePartitions to 4 through node {via.id} is accepted ({err})")
        check(c.topic_partitions(topic) == [0, 1], "validate_only wrote nothing to /brokers/topics")
        err = grow(2)
        check(err is not None and err.code() == KafkaError.INVALID_PARTITIONS, f"a count of 2 is INVALID_PARTITIONS ({err})")
        err = grow(4)
        check(err is None, f"CreatePartitions to 4 through node {via.id} succeeds ({err})")
        check(c.topic_partitions(topic) == [0, 1, 2, 3], f"/brokers/topics/{topic} assigns 4 partitions: {c.topic_partitions(topic)}")
        assignment = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"]
        check(all(len(assignment[str(p)]) == 3 for p in range(4)), f"each new partition has 3 replicas: {assignment}")
        wait_for("partitions 2 and 3 led with full ISRs", lambda: all((lambda s: s and s["leader"] >= 0 and len(s["isr"]) == 3)(c.partition_state(topic, p)) for p in (2, 3)), 30)
        for n in c.nodes:
            wait_for(f"node {n.id}'s metadata with 4 led partitions", lambda: any(t["topic"] == topic and len(t["partitions"]) == 4 and all(p["leader"] >= 0 for p in t["partitions"]) for t in (n.metadata() or {}).get("topics", [])), 30)
        producer = Producer({"bootstrap.servers": c.bootstrap(), "acks": "all", "linger.ms": 0, "topic.metadata.refresh.interval.ms": 500})
        failed = []
        for p in (2, 3):
            producer.produce(topic, value=f"new{p}", partition=p, on_delivery=lambda err, msg: err and failed.append(err))
        check(producer.flush(60) == 0 and not failed, f"records to the new partitions acknowledged with acks=all ({failed})")
        for p in (2, 3):
            values = [v for _, v in read_partition(c.bootstrap(), topic, p)]
            check(values == [f"new{p}"], f"partition {p} holds its record: {values}")
        del producer, admin


def elect_leaders(troupe):
    """ElectLeaders PREFERRED on a cluster (Kafka's controller
    onReplicaElection): once the preferred replica's node is back in the
    ISR, an election moves the leadership back to it with leader epoch + 1;
    asked again it is ELECTION_NOT_NEEDED."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kafka"))
    import admin_api_test as wire
    props = {"offsets.topic.replication.factor": 3, "auto.create.topics.enable": "false"}
    with Cluster(troupe, props=props) as c:
        c.start(3)
        topic = "elected"
        c.create_topic(topic, 1, 3)
        assignment = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"]["0"]
        preferred = assignment[0]
        state = c.partition_state(topic, 0)
        check(state["leader"] == preferred, f"the preferred replica {preferred} leads first: {state}")
        ctl = c.node(c.controller())
        top, res = wire.elect_leaders(ctl.kafka_port, topic, [0])
        check(top == 0 and res.get(0, (None,))[0] == wire.ELECTION_NOT_NEEDED, f"ElectLeaders while the preferred replica leads is ELECTION_NOT_NEEDED ({top}, {res})")
        node = c.node(preferred)
        node.stop()
        moved = wait_for("another replica to lead", lambda: (lambda s: s if s and s["leader"] not in (-1, preferred) else None)(c.partition_state(topic, 0)), 30)
        log(f"node {preferred} stopped; {topic}-0 now {moved}")
        node.start()
        c.wait_ready([1, 2, 3])
        c.wait_isr(topic, 0, assignment, 30)
        before = c.partition_state(topic, 0)
        check(before["leader"] != preferred, f"the preferred replica is back in the ISR but does not lead: {before}")
        ctl = c.node(c.controller())
        top, res = wire.elect_leaders(ctl.kafka_port, topic, [0])
        check(top == 0 and res.get(0, (None,))[0] == 0, f"ElectLeaders PREFERRED succeeds ({top}, {res})")
        after = wait_for("the preferred replica to lead again", lambda: (lambda s: s if s and s["leader"] == preferred else None)(c.partition_state(topic, 0)), 30)
        check(after["leader_epoch"] > before["leader_epoch"], f"the leader epoch grew: {before} -> {after}")
        for n in c.nodes:
            wait_for(f"node {n.id}'s metadata naming {preferred} leader", lambda: any(t["topic"] == topic and t["partitions"][0]["leader"] == preferred for t in (n.metadata() or {}).get("topics", [])), 30)
        top, res = wire.elect_leaders(ctl.kafka_port, topic, [0])
        check(res.get(0, (None,))[0] == wire.ELECTION_NOT_NEEDED, f"asked again it is ELECTION_NOT_NEEDED ({res})")
        other = next(n for n in c.nodes if n.id != c.controller())
        top, res = wire.elect_leaders(other.kafka_port, topic, [0])
        log(f"ElectLeaders to node {other.id}, not the controller: {top}, {res}")


CASES = {
    "elect-leaders": (elect_leaders, 160),
    "create-partitions": (create_partitions, 160),
    "delete-topics-session-lost": (delete_topics_session_lost, 160),
    "delete-topics": (delete_topics, 160),
    "delete-topics-node-down": (delete_topics_node_down, 160),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
