#!/usr/bin/python3
"""ACLs and SCRAM credentials on a ZooKeeper cluster of three troupe nodes
(docs/ARCHITECTURE.md §9), with real clients: kafka-python's
KafkaAdminClient for CreateAcls and DeleteAcls, confluent-kafka for
Metadata, kazoo for what ZooKeeper holds; DescribeAcls and the SCRAM APIs
asked of one node at a time over a socket (tests/lib/kafka_wire.py: an
admin client picks its node itself, and the Python clients here predate
KIP-554).

    security_store_cluster_test.py build/troupe CASE

  acl-propagation
      an ACL created through one node is in every node's DescribeAcls and
      enforced by every node (a DENY of DESCRIBE hides the topic from
      Metadata on another node), and its deletion through a third node is
      too, without a restart
  znodes
      CreateAcls and AlterUserScramCredentials write Kafka's znodes:
      /kafka-acl/Topic/<t> and /kafka-acl-extended/prefixed/Group/<g> in
      AclAuthorizer's JSON, the /kafka-acl-changes and
      /kafka-acl-extended-changes notifications, /config/users/<u> with the
      SCRAM entry and its /config/changes notification; what Kafka's
      tools would write directly to ZooKeeper (an ACL znode and its
      notification, a user's credential and its notification) reaches every
      node; a node restarted later reads them all back

Observed from outside the nodes only (tests/cluster/cluster_fixture.py).
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))

from confluent_kafka.admin import AdminClient  # noqa: E402
from kafka.admin import (ACL, ACLFilter, ACLOperation,  # noqa: E402
                         ACLPermissionType, ACLResourcePatternType,
                         KafkaAdminClient, ResourcePattern,
                         ResourcePatternFilter, ResourceType)

import kafka_wire as kw  # noqa: E402
from cluster_fixture import Cluster, check, log, main, wait_for  # noqa: E402

AUTHORIZER = {
    "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
    # Every resource without an ACL stays open to User:ANONYMOUS, so the
    # test's admin calls need no super user; an ACL on a resource decides.
    "allow.everyone.if.no.acl.found": "true",
}


def host_port(node):
    h, p = node.bootstrap.rsplit(":", 1)
    return h, int(p)


def admin_via(node):
    # api_version pins the protocol versions kafka-python speaks (no probe).
    return KafkaAdminClient(bootstrap_servers=node.bootstrap,
                            api_version=(2, 5, 0), request_timeout_ms=30000)


def acls_of(node):
    """Every binding in the node's DescribeAcls, as comparable tuples."""
    error, message, resources = kw.describe_acls(*host_port(node))
    check(error == 0, f"node {node.id}: DescribeAcls answers NONE ({error} {message})")
    return sorted((t, n, p, principal, h, op, perm)
                  for t, n, p, acls in resources
                  for principal, h, op, perm in acls)


def topic_error(node, topic):
    """The Metadata error of one topic as this node's broker answers it."""
    md = AdminClient({"bootstrap.servers": node.bootstrap}).list_topics(topic=topic, timeout=10)
    t = md.topics.get(topic)
    return None if t is None or t.error is None else t.error.code()


TOPIC, PATTERN_LITERAL, PATTERN_PREFIXED = 2, 3, 4
GROUP = 3
READ, WRITE, DESCRIBE = 3, 4, 8
DENY, ALLOW = 2, 3


def acl_propagation(troupe):
    with Cluster(troupe, props=AUTHORIZER) as c:
        c.start_zookeeper()
        c.start(3)
        n0, n1, n2 = c.nodes
        c.create_topic("guarded", 1, 3)
        wait_for("node 2 to describe topic guarded", lambda: topic_error(n2, "guarded") is None, 30)

        deny = ACL("User:ANONYMOUS", "*", ACLOperation.DESCRIBE, ACLPermissionType.DENY,
                   ResourcePattern(ResourceType.TOPIC, "guarded", ACLResourcePatternType.LITERAL))
        t0 = time.monotonic()
        result = admin_via(n0).create_acls([deny])
        check(not result["failed"], f"CreateAcls through node 0 succeeds: {result}")
        want = [(TOPIC, "guarded", PATTERN_LITERAL, "User:ANONYMOUS", "*", DESCRIBE, DENY)]
        for n in c.nodes:
            wait_for(f"node {n.id} to describe the new ACL", lambda n=n: acls_of(n) == want, 20)
        # TOPIC_AUTHORIZATION_FAILED (29): node 2 enforces what node 0 stored.
        wait_for("node 2 to refuse topic guarded in Metadata", lambda: topic_error(n2, "guarded") == 29, 20)
        log(f"the ACL took effect on every node {time.monotonic() - t0:.2f} s after CreateAcls")

        flt = ACLFilter("User:ANONYMOUS", None, ACLOperation.ANY, ACLPermissionType.ANY,
                        ResourcePatternFilter(ResourceType.TOPIC, "guarded", ACLResourcePatternType.ANY))
        deleted = admin_via(n1).delete_acls([flt])
        matched = deleted[0][1]
        check(len(matched) == 1 and matched[0][0].operation == ACLOperation.DESCRIBE,
              f"DeleteAcls through node 1 deletes the one binding: {deleted}")
        for n in c.nodes:
            wait_for(f"node {n.id} to describe no ACL", lambda n=n: acls_of(n) == [], 20)
        wait_for("node 2 to describe topic guarded again", lambda: topic_error(n2, "guarded") is None, 20)
        check(c.zk.exists("/kafka-acl/Topic/guarded") is None,
              "the deletion of the last binding removed /kafka-acl/Topic/guarded")


def znodes(troupe):
    with Cluster(troupe, props=AUTHORIZER) as c:
        c.start_zookeeper()
        c.start(3)
        n0, n1, n2 = c.nodes
        zk = c.zk

        read = ACL("User:alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                   ResourcePattern(ResourceType.TOPIC, "orders", ACLResourcePatternType.LITERAL))
        write = ACL("User:alice", "10.0.0.1", ACLOperation.WRITE, ACLPermissionType.ALLOW,
                    ResourcePattern(ResourceType.TOPIC, "orders", ACLResourcePatternType.LITERAL))
        group = ACL("User:bob", "*", ACLOperation.READ, ACLPermissionType.DENY,
                    ResourcePattern(ResourceType.GROUP, "app-", ACLResourcePatternType.PREFIXED))
        result = admin_via(n1).create_acls([read, write, group])
        check(not result["failed"], f"CreateAcls of three bindings through node 1: {result}")

        data, _ = zk.get("/kafka-acl/Topic/orders")
        entries = json.loads(data)["acls"]
        # Kafka 3.9's AclEntry: java.util.HashMap key order.
        expected_entries = [
            '{"principal":"User:alice","permissionType":"Allow","host":"*","operation":"Read"}',
            '{"principal":"User:alice","permissionType":"Allow","host":"10.0.0.1","operation":"Write"}']
        check(data.decode() == '{"acls":[' + ",".join(expected_entries) + '],"version":1}',
              f"/kafka-acl/Topic/orders holds AclAuthorizer's JSON, byte for byte: {data.decode()}")
        check(len(entries) == 2, "both bindings of topic orders are in its znode")
        data, _ = zk.get("/kafka-acl-extended/prefixed/Group/app-")
        check(data.decode() == '{"acls":[{"principal":"User:bob","permissionType":"Deny","host":"*","operation":"Read"}],"version":1}',
              f"/kafka-acl-extended/prefixed/Group/app- holds the PREFIXED binding: {data.decode()}")
        changes = sorted(zk.get_children("/kafka-acl-changes"))
        check(changes and all(x.startswith("acl_changes_") and len(x) == len("acl_changes_") + 10 for x in changes),
              f"/kafka-acl-changes holds acl_changes_<10 digits> notifications: {changes}")
        check({zk.get("/kafka-acl-changes/" + x)[0].decode() for x in changes} == {"TOPIC:orders"},
              "each literal notification names TOPIC:orders")
        ext = sorted(zk.get_children("/kafka-acl-extended-changes"))
        check([json.loads(zk.get("/kafka-acl-extended-changes/" + x)[0]) for x in ext]
              == [{"version": 1, "resourceType": "GROUP", "name": "app-", "patternType": "PREFIXED"}],
              "the extended notification is ExtendedAclChangeEvent's JSON")

        # SCRAM credentials through node 2.
        h, p = host_port(n2)
        res = kw.alter_scram(h, p, [kw.upsertion("alice", kw.SHA_512, "alice-secret", 8192)])
        check(res == [("alice", 0, None)], f"AlterUserScramCredentials through node 2: {res}")
        data, _ = zk.get("/config/users/alice")
        stored = json.loads(data)
        check(list(stored) == ["version", "config"] and stored["version"] == 1
              and list(stored["config"]) == ["SCRAM-SHA-512"], f"/config/users/alice: {data.decode()}")
        fields = dict(kv.split("=", 1) for kv in stored["config"]["SCRAM-SHA-512"].split(","))
        check(list(fields) == ["salt", "stored_key", "server_key", "iterations"] and fields["iterations"] == "8192",
              "the credential is ScramCredentialUtils' salt=...,stored_key=...,server_key=...,iterations=8192")
        notes = [json.loads(zk.get("/config/changes/" + x)[0]) for x in zk.get_children("/config/changes")]
        check({"version": 2, "entity_path": "users/alice"} in notes,
              f"/config/changes holds the users/alice notification: {notes}")
        for n in c.nodes:
            wait_for(f"node {n.id} to describe alice's credential",
                     lambda n=n: kw.describe_scram(*host_port(n), ["alice"])[2]
                     == [("alice", 0, None, [(kw.SHA_512, 8192)])], 20)

        # What Kafka's own tools write straight to ZooKeeper reaches every
        # node: an ACL znode with its notification (in the key order Kafka
        # 3.0-3.6's Scala AclEntry wrote), a user with its.
        zk.create("/kafka-acl/Topic/payments",
                  b'{"version":1,"acls":[{"principal":"User:carol","permissionType":"Allow","operation":"Describe","host":"*"}]}',
                  makepath=True)
        zk.create("/kafka-acl-changes/acl_changes_", b"TOPIC:payments", sequence=True)
        carol = kw.upsertion("carol", kw.SHA_256, "pw", 4096)
        zk.create("/config/users/carol", b'{"version":1,"config":{"SCRAM-SHA-256":"salt=c2FsdA==,stored_key=AAAA,server_key=AAAA,iterations=4096"}}')
        zk.create("/config/changes/config_change_", b'{"version":2,"entity_path":"users/carol"}', sequence=True)
        del carol
        for n in c.nodes:
            wait_for(f"node {n.id} to describe the ACL written to ZooKeeper",
                     lambda n=n: (TOPIC, "payments", PATTERN_LITERAL, "User:carol", "*", DESCRIBE, ALLOW) in acls_of(n), 20)
            wait_for(f"node {n.id} to describe carol's credential written to ZooKeeper",
                     lambda n=n: kw.describe_scram(*host_port(n), ["carol"])[2]
                     == [("carol", 0, None, [(kw.SHA_256, 4096)])], 20)

        # A node restarted later reads everything back.
        before = acls_of(n0)
        n0.restart()
        c.wait_ready([n.id for n in c.nodes])
        wait_for("restarted node 0 to describe every ACL", lambda: acls_of(n0) == before, 30)
        code, _, users = kw.describe_scram(*host_port(n0))
        check(code == 0 and [u[0] for u in users] == ["alice", "carol"],
              f"restarted node 0 describes alice and carol: {users}")


CASES = {
    "acl-propagation": (acl_propagation, 90),
    "znodes": (znodes, 100),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
