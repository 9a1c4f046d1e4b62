#!/usr/bin/python3
"""The denial table: Kafka's authorization and authentication errors as real
clients see them, each row asserting the error code AND that nothing was
written.

    security_denials_test.py TROUPE_BINARY

One `troupe serve` (the embedded node) with a SASL_PLAINTEXT listener,
PLAIN users admin, alice and bob from the listener's JAAS configuration,
authorizer.class.name=kafka.security.authorizer.AclAuthorizer and
super.users=User:admin. The super user creates the topics and the ACLs
(kafka-python's KafkaAdminClient: Debian's confluent-kafka 1.7 has no ACL
calls); alice, who has

    ALLOW WRITE   TOPIC PREFIXED app-      (WRITE implies DESCRIBE)
    DENY  WRITE   TOPIC LITERAL  app-secret
    ALLOW READ    TOPIC LITERAL  readonly
    ALLOW READ    TOPIC LITERAL  app-orders
    ALLOW READ    GROUP LITERAL  alice-group

then meets each row with confluent-kafka (librdkafka) or hand-written frames
(tests/lib/kafka_wire.py) where the client would hide the code:

  wrong password            SASL_AUTHENTICATION_FAILED (58), connection closed
  unknown mechanism         UNSUPPORTED_SASL_MECHANISM (33), connection closed
  a topic without WRITE     TOPIC_AUTHORIZATION_FAILED (29) from Produce
  a group without READ      GROUP_AUTHORIZATION_FAILED (30) from the group
                            APIs and OffsetCommit; no offset committed;
                            ListGroups does not list it to her
  CreateTopics without      TOPIC_AUTHORIZATION_FAILED (29) for the topic
  CLUSTER CREATE            (Kafka's per-topic answer); nothing created
  a DENY over a PREFIXED    TOPIC_AUTHORIZATION_FAILED (29) on app-secret
  ALLOW                     while app-orders takes the same records
  a topic hidden from       left out of alice's every-topic Metadata,
  Metadata                  TOPIC_AUTHORIZATION_FAILED (29) when named, not
                            auto-created

"Nothing written" is measured on the broker by the super user: the topics'
end offsets, the group's committed offsets and the topic list, before and
after each row. Every wait is bounded; the server is stopped by pid, also
on failure.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402
import kafka_wire as kw  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException  # noqa: E402
from confluent_kafka import Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kafka.admin import (ACL, ACLOperation, ACLPermissionType,  # noqa: E402
                         ACLResourcePatternType, KafkaAdminClient,
                         ResourcePattern, ResourceType)

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_admin="admin-secret" '
        'user_alice="alice-secret" user_bob="bob-secret";')
BROKERS = 3
TOPIC_AUTHORIZATION_FAILED = 29
GROUP_AUTHORIZATION_FAILED = 30
OFFSET_COMMIT = 8


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what, flush=True)


class Server:
    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="troupe-deny-")
        self.port = free_port_range(BROKERS)
        props = [
            "log.dirs=" + os.path.join(self.dir, "logs"),
            "port=%d" % self.port,
            "listeners=SASL_PLAINTEXT://127.0.0.1:%d" % self.port,
            "group.initial.rebalance.delay.ms=0",
            "num.partitions=1",
            "default.replication.factor=1",
            "sasl.enabled.mechanisms=PLAIN",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + JAAS,
            "authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
            "super.users=User:admin",
        ]
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.log = open(self.log_path, "w")
        args = [binary, "serve", "--http-port", "0", "--log-level", "info"]
        for p in props:
            args += ["--override", p]
        self.proc = subprocess.Popen(args, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent())
        ready = "Kafka listeners on %d.." % self.port
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            with open(self.log_path) as f:
                if ready in f.read():
                    return
            time.sleep(0.1)
        self.stop(failed=True)
        raise RuntimeError("troupe serve did not come up")

    def bootstrap(self):
        return ",".join("127.0.0.1:%d" % (self.port + i)
                        for i in range(BROKERS))

    def stop(self, failed=False):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()
        if failed:
            with open(self.log_path) as f:
                sys.stdout.write("---- troupe log (last 60 lines) ----\n")
                sys.stdout.write("".join(f.readlines()[-60:]))
        shutil.rmtree(self.dir, ignore_errors=True)


def conf(server, user, password, **extra):
    c = {"bootstrap.servers": server.bootstrap(),
         "security.protocol": "SASL_PLAINTEXT",
         "sasl.mechanisms": "PLAIN",
         "sasl.username": user,
         "sasl.password": password}
    c.update(extra)
    return c


class Observer:
    """What the broker holds, as the super user sees it."""

    def __init__(self, server):
        self.server = server
        self.admin = AdminClient(conf(server, "admin", "admin-secret"))
        self.consumer = Consumer(conf(server, "admin", "admin-secret",
                                      **{"group.id": "observer",
                                         "enable.auto.commit": False}))

    def topics(self):
        return set(self.admin.list_topics(timeout=10).topics)

    def end_offset(self, topic):
        # Retried while the client's metadata catches up with a new leader.
        deadline = time.time() + 15
        while True:
            try:
                return self.consumer.get_watermark_offsets(
                    TopicPartition(topic, 0), timeout=10)[1]
            except KafkaException:
                if time.time() > deadline:
                    raise
                time.sleep(0.3)

    def committed(self, group, topic):
        c = Consumer(conf(self.server, "admin", "admin-secret",
                          **{"group.id": group, "enable.auto.commit": False}))
        try:
            return c.committed([TopicPartition(topic, 0)], timeout=10)[0].offset
        finally:
            c.close()

    def close(self):
        self.consumer.close()


def produce(server, user, password, topic, n=5):
    """Produces n records with acks=all; the delivery errors' codes."""
    errors = []

    def report(err, _msg):
        if err is not None:
            errors.append(err.code())

    p = Producer(conf(server, user, password,
                      **{"acks": "all", "message.timeout.ms": 8000,
                         "retries": 0}))
    for i in range(n):
        p.produce(topic, value=b"v%d" % i, on_delivery=report)
    left = p.flush(12)
    return errors, left


def offset_commit_v2(server, user, password, group, topic, offset):
    """OffsetCommit v2 by hand, on its own connection (librdkafka answers a
    commit without a coordinator itself: FindCoordinator is refused first).
    The partitions' error codes."""
    c = kw.Conn("127.0.0.1", server.port)
    try:
        error, _, _, _ = c.plain(user, password)
        assert error == 0, error
        body = (kw._string(group) + struct.pack(">i", -1) + kw._string("")
                + struct.pack(">q", -1) + struct.pack(">i", 1)
                + kw._string(topic) + struct.pack(">i", 1)
                + struct.pack(">iq", 0, offset) + kw._string(""))
        res = c.request(OFFSET_COMMIT, 2, body)
    finally:
        c.close()
    (n,) = struct.unpack(">i", res[:4])
    at = 4
    codes = []
    for _ in range(n):
        (size,) = struct.unpack(">h", res[at:at + 2])
        at += 2 + size
        (parts,) = struct.unpack(">i", res[at:at + 4])
        at += 4
        for _ in range(parts):
            _, code = struct.unpack(">ih", res[at:at + 6])
            at += 6
            codes.append(code)
    return codes


def create_acls(server):
    admin = KafkaAdminClient(bootstrap_servers=server.bootstrap(),
                             security_protocol="SASL_PLAINTEXT",
                             sasl_mechanism="PLAIN",
                             sasl_plain_username="admin",
                             sasl_plain_password="admin-secret",
                             request_timeout_ms=10000)

    def acl(op, permission, rtype, name, pattern):
        return ACL(principal="User:alice", host="*", operation=op,
                   permission_type=permission,
                   resource_pattern=ResourcePattern(rtype, name, pattern))

    A, D = ACLPermissionType.ALLOW, ACLPermissionType.DENY
    lit, pre = ACLResourcePatternType.LITERAL, ACLResourcePatternType.PREFIXED
    acls = [acl(ACLOperation.WRITE, A, ResourceType.TOPIC, "app-", pre),
            acl(ACLOperation.WRITE, D, ResourceType.TOPIC, "app-secret", lit),
            acl(ACLOperation.READ, A, ResourceType.TOPIC, "readonly", lit),
            acl(ACLOperation.READ, A, ResourceType.TOPIC, "app-orders", lit),
            acl(ACLOperation.READ, A, ResourceType.GROUP, "alice-group", lit)]
    result = admin.create_acls(acls)
    admin.close()
    check(len(result["succeeded"]) == len(acls) and not result["failed"],
          "the super user creates alice's %d ACLs (%r)"
          % (len(acls), result["failed"]))


def main():
    binary = sys.argv[1]
    started = time.time()
    server = Server(binary)
    try:
        obs = Observer(server)
        futures = obs.admin.create_topics(
            [NewTopic(t, 1, 1) for t in
             ("app-orders", "app-secret", "readonly", "hidden-topic")])
        for t, f in futures.items():
            f.result(15)
        create_acls(server)

        # -- wrong password ---------------------------------------------------
        c = kw.Conn("127.0.0.1", server.port)
        error, message, _, _ = c.plain("alice", "wrong")
        check(error == kw.SASL_AUTHENTICATION_FAILED and message,
              "wrong password: SASL_AUTHENTICATION_FAILED (%s)" % message)
        check(c.closed_by_peer(), "wrong password: the connection is closed")
        c.close()
        before = obs.end_offset("app-orders")
        errors, left = produce(server, "alice", "wrong", "app-orders", 3)
        check(obs.end_offset("app-orders") == before and (errors or left),
              "wrong password: librdkafka's records are not written "
              "(end offset stays %d; %r)" % (before, errors or left))

        # -- unknown mechanism ------------------------------------------------
        c = kw.Conn("127.0.0.1", server.port)
        error, mechs = c.sasl_handshake("NOT-A-MECHANISM")
        check(error == kw.UNSUPPORTED_SASL_MECHANISM and mechs == ["PLAIN"],
              "unknown mechanism: UNSUPPORTED_SASL_MECHANISM listing %r"
              % mechs)
        check(c.closed_by_peer(),
              "unknown mechanism: the connection is closed")
        c.close()
        check(obs.end_offset("app-orders") == before,
              "unknown mechanism: nothing written")

        # -- a topic without WRITE ----------------------------------------------
        errors, left = produce(server, "alice", "alice-secret", "readonly")
        check(errors == [TOPIC_AUTHORIZATION_FAILED] * 5 and left == 0,
              "a topic without WRITE: TOPIC_AUTHORIZATION_FAILED for every "
              "record (%r)" % errors)
        check(obs.end_offset("readonly") == 0,
              "a topic without WRITE: nothing written")

        # -- a DENY that overrides a prefixed ALLOW ---------------------------
        errors, left = produce(server, "alice", "alice-secret", "app-secret")
        check(errors == [TOPIC_AUTHORIZATION_FAILED] * 5 and left == 0,
              "a DENY on app-secret overrides the PREFIXED ALLOW on app-: "
              "TOPIC_AUTHORIZATION_FAILED (%r)" % errors)
        check(obs.end_offset("app-secret") == 0,
              "the DENY: nothing written to app-secret")
        errors, left = produce(server, "alice", "alice-secret", "app-orders")
        check(not errors and left == 0
              and obs.end_offset("app-orders") == before + 5,
              "the PREFIXED ALLOW still lets alice write app-orders")

        # -- a group without READ -----------------------------------------------
        group_error = None
        c = Consumer(conf(server, "alice", "alice-secret",
                          **{"group.id": "not-alices",
                             "auto.offset.reset": "earliest",
                             "enable.auto.commit": False}))
        c.subscribe(["app-orders"])
        deadline = time.time() + 15
        while time.time() < deadline and group_error is None:
            m = c.poll(0.5)
            if m is not None and m.error():
                group_error = m.error().code()
        c.close()
        check(group_error == GROUP_AUTHORIZATION_FAILED,
              "a group without READ: the consumer gets "
              "GROUP_AUTHORIZATION_FAILED (%r)" % group_error)
        codes = offset_commit_v2(server, "alice", "alice-secret", "not-alices",
                                 "app-orders", 2)
        check(codes == [GROUP_AUTHORIZATION_FAILED],
              "a group without READ: OffsetCommit is "
              "GROUP_AUTHORIZATION_FAILED (%r)" % codes)
        codes = offset_commit_v2(server, "alice", "alice-secret",
                                 "alice-group", "hidden-topic", 2)
        check(codes == [TOPIC_AUTHORIZATION_FAILED],
              "OffsetCommit to her group for a topic without READ: "
              "TOPIC_AUTHORIZATION_FAILED (%r)" % codes)
        check(obs.committed("alice-group", "hidden-topic") < 0,
              "and nothing committed for it")
        check(obs.committed("not-alices", "app-orders") < 0,
              "a group without READ: no offset committed")
        # The same consumer in her own group reads and commits.
        c = Consumer(conf(server, "alice", "alice-secret",
                          **{"group.id": "alice-group",
                             "auto.offset.reset": "earliest",
                             "enable.auto.commit": False}))
        c.subscribe(["app-orders"])
        got = 0
        deadline = time.time() + 20
        while time.time() < deadline and got < 5:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got += 1
        c.commit(asynchronous=False)
        c.close()
        check(got == 5 and obs.committed("alice-group", "app-orders") == 5,
              "with READ on alice-group she reads 5 records and commits")

        # ListGroups (librdkafka's list_groups, then DescribeGroups): the
        # groups alice may not DESCRIBE are not listed to her.
        c = Consumer(conf(server, "admin", "admin-secret",
                          **{"group.id": "admins-group",
                             "enable.auto.commit": False}))
        c.commit(offsets=[TopicPartition("app-orders", 0, 1)],
                 asynchronous=False)
        c.close()
        alice_admin = AdminClient(conf(server, "alice", "alice-secret"))
        everyone = {g.id for g in obs.admin.list_groups(timeout=10)}
        hers = {g.id for g in alice_admin.list_groups(timeout=10)}
        check({"alice-group", "admins-group"} <= everyone
              and "alice-group" in hers and "admins-group" not in hers,
              "ListGroups lists to alice only the groups she may DESCRIBE "
              "(%s of %s)" % (sorted(hers), sorted(everyone)))

        # -- CreateTopics without CLUSTER CREATE --------------------------------
        code = None
        try:
            alice_admin.create_topics([NewTopic("app-new", 1, 1)])[
                "app-new"].result(15)
        except KafkaException as e:
            code = e.args[0].code()
        check(code == KafkaError.TOPIC_AUTHORIZATION_FAILED,
              "CreateTopics without CREATE on the cluster or topic: "
              "TOPIC_AUTHORIZATION_FAILED (%r)" % code)
        check("app-new" not in obs.topics(),
              "CreateTopics without CREATE: nothing created")

        # -- a topic hidden from Metadata ---------------------------------------
        seen = set(alice_admin.list_topics(timeout=10).topics)
        check("hidden-topic" in obs.topics() and "hidden-topic" not in seen
              and {"app-orders", "app-secret", "readonly"} <= seen,
              "every-topic Metadata leaves out the topic alice may not "
              "DESCRIBE (%s)" % sorted(seen))
        md = alice_admin.list_topics(topic="hidden-topic", timeout=10)
        err = md.topics["hidden-topic"].error
        check(err is not None and err.code() == TOPIC_AUTHORIZATION_FAILED
              and not md.topics["hidden-topic"].partitions,
              "Metadata naming the hidden topic: TOPIC_AUTHORIZATION_FAILED "
              "and no partitions (%r)" % err)
        md = alice_admin.list_topics(topic="hidden-new", timeout=10)
        err = md.topics["hidden-new"].error
        check(err is not None and err.code() == TOPIC_AUTHORIZATION_FAILED
              and "hidden-new" not in obs.topics(),
              "Metadata naming a new topic alice may not DESCRIBE: "
              "TOPIC_AUTHORIZATION_FAILED, and it is not auto-created")
        obs.close()
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()
    print("denial table passed in %.1f s" % (time.time() - started))


if __name__ == "__main__":
    main()
