#!/usr/bin/python3
"""ACLs and SCRAM users managed by admin clients on the embedded node
(docs/ARCHITECTURE.md §9), kept in its metadata across a restart.

    security_admin_test.py TROUPE_BINARY

kafka-python's KafkaAdminClient creates, describes and deletes ACLs
(LITERAL and PREFIXED, filters with ANY and MATCH); KIP-554's
AlterUserScramCredentials and DescribeUserScramCredentials go over a socket
(tests/lib/kafka_wire.py): the Python clients on this machine predate
them, and confluent-kafka 1.7 has no ACL API either. The node is restarted
on the same log.dirs: the ACLs and users are still there, and with SASL
SCRAM enabled a confluent-kafka client logs in with the stored user's
password and is refused with a wrong one. Without an authorizer the ACL
APIs answer SECURITY_DISABLED, as Kafka's.

Each `troupe serve` runs on free ports with a temporary log.dirs and is
stopped by pid, also on failure; every wait is bounded.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))

from confluent_kafka.admin import AdminClient  # noqa: E402
from kafka.admin import (ACL, ACLFilter, ACLOperation,  # noqa: E402
                         ACLPermissionType, ACLResourcePatternType,
                         KafkaAdminClient, ResourcePattern,
                         ResourcePatternFilter, ResourceType)
from kafka.errors import SecurityDisabledError  # noqa: E402

import kafka_wire as kw  # noqa: E402
from python_clients_test import check, free_port_range  # noqa: E402

AUTHORIZER = ["authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
              "super.users=User:ANONYMOUS"]


class Node:
    """`troupe serve` on a given log.dirs (kept across restarts)."""

    def __init__(self, binary, data, overrides=()):
        self.port = free_port_range(3)
        self.sasl_port = free_port_range(3)
        self.log_path = os.path.join(data, "troupe-%d.log" % self.port)
        args = [binary, "serve", "--http-port", "0",
                "--override", "log.dirs=" + os.path.join(data, "logs"),
                "--override", "port=%d" % self.port]
        for o in overrides:
            args += ["--override", o.replace("@PORT@", str(self.port))
                     .replace("@SASL@", str(self.sasl_port))]
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(args, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline and self.proc.poll() is None:
            with open(self.log_path) as f:
                if "Kafka listeners on %d.." % self.port in f.read():
                    try:
                        socket.create_connection(("127.0.0.1", self.port),
                                                 1).close()
                        return
                    except OSError:
                        pass
            time.sleep(0.1)
        self.stop(failed=True)
        raise RuntimeError("troupe serve did not come up")

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

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
                sys.stdout.writelines(f.readlines()[-40:])


def admin(node):
    return KafkaAdminClient(bootstrap_servers=node.bootstrap,
                            api_version=(2, 5, 0), request_timeout_ms=20000)


def every_acl():
    return ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                     ResourcePatternFilter(ResourceType.ANY, None,
                                           ACLResourcePatternType.ANY))


def as_tuples(acls):
    return sorted((a.resource_pattern.resource_type.name,
                   a.resource_pattern.resource_name,
                   a.resource_pattern.pattern_type.name, a.principal, a.host,
                   a.operation.name, a.permission_type.name) for a in acls)


def scram_login(node, user, password):
    """Metadata through a SASL_PLAINTEXT SCRAM-SHA-512 connection."""
    client = AdminClient({"bootstrap.servers": "127.0.0.1:%d" % node.sasl_port,
                          "security.protocol": "SASL_PLAINTEXT",
                          "sasl.mechanism": "SCRAM-SHA-512",
                          "sasl.username": user, "sasl.password": password})
    try:
        client.list_topics(timeout=8)
        return True
    except Exception:  # the client's own error for a refused login
        return False


def main(binary):
    data = tempfile.mkdtemp(prefix="troupe-security-admin-")
    node = None
    try:
        # -- without an authorizer: SECURITY_DISABLED, SCRAM works ----------
        node = Node(binary, data)
        try:
            admin(node).describe_acls(every_acl())
            check(False, "DescribeAcls without an authorizer is refused")
        except SecurityDisabledError as e:
            check("No Authorizer is configured on the broker" in str(e),
                  "DescribeAcls without an authorizer answers SECURITY_DISABLED "
                  "with Kafka's message (%s)" % e)
        node.stop()

        # -- with an authorizer ---------------------------------------------
        node = Node(binary, data, AUTHORIZER)
        a = admin(node)
        acls = [
            ACL("User:alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.TOPIC, "orders",
                                ACLResourcePatternType.LITERAL)),
            ACL("User:alice", "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.GROUP, "app-",
                                ACLResourcePatternType.PREFIXED)),
            ACL("User:bob", "10.0.0.1", ACLOperation.WRITE,
                ACLPermissionType.DENY,
                ResourcePattern(ResourceType.TOPIC, "ord",
                                ACLResourcePatternType.PREFIXED)),
        ]
        result = a.create_acls(acls)
        check(len(result["succeeded"]) == 3 and not result["failed"],
              "CreateAcls creates three bindings: %s" % result)
        described, error = a.describe_acls(every_acl())
        check(as_tuples(described) == as_tuples(acls),
              "DescribeAcls with ANY filters lists the three")
        match = ACLFilter(None, None, ACLOperation.ANY, ACLPermissionType.ANY,
                          ResourcePatternFilter(ResourceType.TOPIC, "orders",
                                                ACLResourcePatternType.MATCH))
        described, error = a.describe_acls(match)
        check(as_tuples(described) == as_tuples([acls[0], acls[2]]),
              "a MATCH filter for topic orders finds the LITERAL binding and "
              "the PREFIXED 'ord'")

        res = kw.alter_scram(
            "127.0.0.1", node.port,
            [kw.upsertion("alice", kw.SHA_512, "alice-pw"),
             kw.upsertion("carol", kw.SHA_256, "carol-pw", iterations=8192),
             kw.upsertion("weak", kw.SHA_256, "x", iterations=1000)],
            [kw.deletion("nobody", kw.SHA_512)])
        check(sorted(res) == sorted([
            ("alice", 0, None), ("carol", 0, None),
            ("weak", 93, "Too few iterations"),
            ("nobody", 91,
             "Attempt to delete a user credential that does not exist")]),
            "AlterUserScramCredentials: two users, UNACCEPTABLE_CREDENTIAL "
            "and RESOURCE_NOT_FOUND as Kafka answers (%s)" % res)
        node.stop()

        # -- restarted on the same log.dirs, with SASL SCRAM ---------------
        node = Node(binary, data, AUTHORIZER + [
            "listeners=PLAINTEXT://127.0.0.1:@PORT@,"
            "SASL_PLAINTEXT://127.0.0.1:@SASL@",
            "sasl.enabled.mechanisms=SCRAM-SHA-512",
            "super.users=User:ANONYMOUS;User:alice",
        ])
        check(scram_login(node, "alice", "alice-pw"),
              "after a restart alice logs in with SCRAM-SHA-512 and the "
              "password she was given (confluent-kafka)")
        check(not scram_login(node, "alice", "wrong"),
              "a wrong password is refused")
        described, error = admin(node).describe_acls(every_acl())
        check(as_tuples(described) == as_tuples(acls),
              "after a restart the three ACLs are still there")
        code, message, users = kw.describe_scram("127.0.0.1", node.port)
        check(code == 0 and users == [
            ("alice", 0, None, [(kw.SHA_512, 4096)]),
            ("carol", 0, None, [(kw.SHA_256, 8192)])],
            "after a restart DescribeUserScramCredentials lists alice and "
            "carol with their mechanisms and iterations only: %s" % users)
        deleted = admin(node).delete_acls([ACLFilter(
            "User:bob", None, ACLOperation.ANY, ACLPermissionType.ANY,
            ResourcePatternFilter(ResourceType.ANY, None,
                                  ACLResourcePatternType.ANY))])
        check(as_tuples([m[0] for m in deleted[0][1]]) == as_tuples([acls[2]]),
              "DeleteAcls of User:bob deletes his one binding")
        res = kw.alter_scram("127.0.0.1", node.port, [], [
            kw.deletion("carol", kw.SHA_256)])
        check(res == [("carol", 0, None)], "carol's credential is deleted")
        node.stop()

        node = Node(binary, data, AUTHORIZER)
        described, error = admin(node).describe_acls(every_acl())
        check(as_tuples(described) == as_tuples(acls[:2]),
              "the deletion was stored too: two ACLs after another restart")
        code, message, users = kw.describe_scram(
            "127.0.0.1", node.port, ["alice", "carol"])
        check(users == [
            ("alice", 0, None, [(kw.SHA_512, 4096)]),
            ("carol", 91,
             "Attempt to describe a user credential that does not exist: "
             "carol", [])],
            "carol is gone, alice stays: %s" % users)
        node.stop()
        node = None
        print("PASS")
        return 0
    except BaseException:
        if node:
            node.stop(failed=True)
        raise
    finally:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
