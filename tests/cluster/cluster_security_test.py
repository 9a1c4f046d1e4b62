"""Security of the node links and of ZooKeeper, with real processes
(docs/ARCHITECTURE.md §7).

    cluster_security_test.py TROUPE CASE

Cases:
  mutual-tls          three nodes with troupe.cluster.security=ssl replicate
                      a replication-factor-3 topic (acks=all) and serve a
                      consumer group, the clients over SASL_SSL listeners
                      with a SCRAM-SHA-512 user made through one node
  plain-basp-refused  a plain TCP connection speaking BASP, a CAF process
                      with plain links, one with CAF's anonymous ciphers and
                      one with another CA's certificate get nothing from a
                      TLS node's troupe.cluster.port; a certificate of the
                      cluster's CA does (the control)
  other-ca            a node whose certificate another CA signed cannot join
                      two TLS nodes; with the cluster's certificate it joins
  plaintext-refusal   a node whose listener or troupe.cluster.port binds a
                      non-loopback address refuses to start without
                      troupe.cluster.security, and starts with plaintext or
                      ssl said explicitly
  zookeeper-acl       with zookeeper.set.acl and troupe.zookeeper.digest the
                      nodes' znodes carry Kafka's ACLs: world READ (not on
                      /config/users), writes only with the cluster's digest;
                      a node with another digest cannot register

cluster_link_probe (tests/cluster/link_probe.cpp; $TROUPE_LINK_PROBE, else
next to TROUPE) reaches a controller as another node would. Certificates
come from tests/lib/certs.py. Every process is stopped by pid when a case
ends, passed or failed (cluster_fixture.Cluster).
"""

import base64
import hashlib
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

from cluster_fixture import Cluster, check, free_ports, log, main, wait_for  # noqa: E402
from certs import make_pki, pem_text  # noqa: E402
from confluent_kafka import Consumer, Producer  # noqa: E402
from kazoo.client import KazooClient  # noqa: E402
from kazoo.exceptions import NoAuthError  # noqa: E402
from kazoo.security import ACL, Id, Permissions  # noqa: E402
import kafka_wire as kw  # noqa: E402
import ssl  # noqa: E402

# The SASL_SSL listeners' PLAIN users (the admin that makes SCRAM users).
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" user_admin="admin-secret";')


def probe_path(troupe):
    p = os.environ.get("TROUPE_LINK_PROBE") or os.path.join(os.path.dirname(troupe), "cluster_link_probe")
    check(os.access(p, os.X_OK), f"no cluster_link_probe at {p}")
    return p


def probe(troupe, port, *tls):
    """(exit status, output) of cluster_link_probe against 127.0.0.1:port."""
    r = subprocess.run([probe_path(troupe), "127.0.0.1", str(port), *tls], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
    log(f"probe {'TLS ' + os.path.basename(tls[0]) if len(tls) > 1 else (tls[0] if tls else 'plain')}: rc {r.returncode}: {r.stdout.strip()}")
    return r.returncode, r.stdout


def tls_props(pki, keystore=None, truststore=None):
    return {
        "troupe.cluster.security": "ssl",
        "troupe.cluster.ssl.keystore.location": keystore or pki.server_pem,
        "troupe.cluster.ssl.truststore.location": truststore or pki.ca_cert,
    }


def keystore(pki, name, cert, key):
    """A PEM keystore file (chain and key) for ssl.keystore.location."""
    path = os.path.join(pki.dir, name)
    with open(path, "w") as f:
        f.write(pem_text(cert) + pem_text(key))
    return path


def wait_started(node, timeout=20):
    wait_for(f"node {node.id}'s ready line", lambda: f"troupe: broker {node.id} of the cluster" in node.log_text(), timeout)


def linked(node, peer):
    return f"cluster: connected to broker {peer}" in node.log_text()


# -- mutual-tls ----------------------------------------------------------------------


def case_mutual_tls(troupe):
    with Cluster(troupe) as c:
        pki = make_pki(os.path.join(c.dir, "pki"))
        c.props.update(tls_props(pki))
        c.props.update({"sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512", "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS, "listener.name.sasl_ssl.ssl.keystore.location": pki.server_pem})
        c.start_zookeeper()
        sasl_ports = {}
        for i in (1, 2, 3):
            n = c.add_node(i)
            sasl_ports[i] = free_ports(1)[0]
            # PLAINTEXT for the fixture's probes; the clients below use SASL_SSL.
            n.start({"listeners": f"PLAINTEXT://127.0.0.1:{n.kafka_port},SASL_SSL://127.0.0.1:{sasl_ports[i]}"})
        c.wait_ready([1, 2, 3])
        # A SCRAM-SHA-512 user made through node 1 (AlterUserScramCredentials
        # as admin over PLAIN; Debian's librdkafka has no such admin call).
        tls = ssl.create_default_context(cafile=pki.ca_cert)
        res = kw.upsert_scram("127.0.0.1", sasl_ports[1], "carol", "carol-secret", "SCRAM-SHA-512", 4096, tls=tls, sasl=("PLAIN", "admin", "admin-secret"))
        check(res == [("carol", 0, None)], f"AlterUserScramCredentials answered {res}")
        secured = {"bootstrap.servers": ",".join(f"127.0.0.1:{p}" for p in sasl_ports.values()), "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512", "sasl.username": "carol", "sasl.password": "carol-secret", "ssl.ca.location": pki.ca_cert}

        def scram_everywhere():
            for p in sasl_ports.values():
                probe_client = Producer(dict(secured, **{"bootstrap.servers": f"127.0.0.1:{p}"}))
                try:
                    probe_client.list_topics(timeout=3)
                finally:
                    probe_client.flush(0)
            return True

        wait_for("carol authenticating on every node", scram_everywhere, 30, interval=0.5)
        for n in c.nodes:
            for p in c.nodes:
                if p is not n:
                    check(linked(n, p.id), f"node {n.id} did not log its TLS link to broker {p.id}")
        topic = c.create_topic("tls-replicated", 3, 3)
        sent = 300
        producer = Producer(dict(secured, **{"acks": "all", "linger.ms": 5}))
        acked, failed = [], []
        for i in range(sent):
            producer.produce(topic, f"r{i}".encode(), key=str(i).encode(), on_delivery=lambda err, m: (failed if err else acked).append(err or m))
            producer.poll(0)
        check(producer.flush(30) == 0, "records left unacknowledged")
        check(not failed and len(acked) == sent, f"{len(failed)} failed deliveries: {failed[:3]}")
        for p in range(3):
            s = c.partition_state(topic, p)
            check(len(s["isr"]) == 3, f"{topic}-{p} ISR {s['isr']}: a replica fell out")
        # Each record is in each replica's segment files: it crossed the TLS
        # links to both followers.
        for n in c.nodes:
            stored = sum(len(n.replica_log(topic, p)) for p in range(3))
            wait_for(f"node {n.id}'s replicas holding all {sent} records", lambda: sum(len(n.replica_log(topic, p)) for p in range(3)) == sent, 20)
            log(f"node {n.id}: {stored} records in its replicas")
        consumers = [Consumer(dict(secured, **{"group.id": "tls-group", "auto.offset.reset": "earliest", "session.timeout.ms": 6000})) for _ in range(2)]
        seen = set()
        try:
            for k in consumers:
                k.subscribe([topic])
            deadline = time.monotonic() + 40
            while len(seen) < sent and time.monotonic() < deadline:
                for k in consumers:
                    m = k.poll(0.2)
                    if m is not None and not m.error():
                        seen.add(m.value().decode())
        finally:
            for k in consumers:
                k.close()
        check(len(seen) == sent, f"the group read {len(seen)} of {sent} records")
        log(f"the consumer group read all {sent} records")


# -- plain-basp-refused ---------------------------------------------------------------


def read_some(port, send=b"", wait=3.0):
    """Bytes a connection to troupe.cluster.port receives within `wait`
    seconds (after sending `send`), and whether the node closed it."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        if send:
            s.sendall(send)
        s.settimeout(0.2)
        got, closed, deadline = b"", False, time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            got += chunk
        return got, closed
    finally:
        s.close()


def case_plain_basp_refused(troupe):
    with Cluster(troupe) as c:
        pki = make_pki(os.path.join(c.dir, "pki"))
        c.start_zookeeper()
        tls = c.add_node(1).start(tls_props(pki))
        plain = c.add_node(2).start({"troupe.cluster.security": "plaintext"})
        wait_started(tls)
        wait_started(plain)
        # The control: a plain node's port greets any TCP client with BASP's
        # server handshake (its node id and the published controller).
        basp, _ = read_some(plain.cluster_port, wait=2)
        check(len(basp) > 0, "the plaintext node sent no BASP handshake: the probe below would prove nothing")
        log(f"plaintext node: {len(basp)} bytes of BASP handshake to an unauthenticated client")
        # The same BASP bytes written to the TLS node: no BASP comes back,
        # the node closes the connection (at most a TLS alert, 0x15).
        got, closed = read_some(tls.cluster_port, send=basp + basp, wait=5)
        check(closed, "the TLS node kept a connection that spoke BASP open")
        check(got[:1] in (b"", b"\x15") and basp[:16] not in got, f"the TLS node answered BASP with {got[:32]!r}")
        log(f"TLS node: closed the BASP connection, answered {got[:8]!r}")
        # A CAF process with plain links (the middleman's BASP).
        rc, out = probe(troupe, tls.cluster_port)
        check(rc == 3, f"a plain BASP peer got the TLS node's controller: {out}")
        rc, out = probe(troupe, plain.cluster_port)
        check(rc == 0, f"the control probe reached no plaintext controller: {out}")
        # CAF's OpenSSL module without a certificate: anonymous ciphers.
        rc, out = probe(troupe, tls.cluster_port, "anonymous")
        check(rc == 3, f"an anonymous-cipher TLS peer got the controller: {out}")
        # A certificate from another CA.
        rc, out = probe(troupe, tls.cluster_port, pki.other_client_cert, pki.other_client_key, pki.ca_cert)
        check(rc == 3, f"a peer with another CA's certificate got the controller: {out}")
        # The control: a certificate of the cluster's CA reaches it.
        rc, out = probe(troupe, tls.cluster_port, pki.server_cert, pki.server_key, pki.ca_cert)
        check(rc == 0 and "broker 1 answered" in out, f"a peer with the cluster's certificate did not reach the controller: {out}")
        check(tls.alive(), "the TLS node died")


# -- other-ca -------------------------------------------------------------------------


def case_other_ca(troupe):
    with Cluster(troupe) as c:
        pki = make_pki(os.path.join(c.dir, "pki"))
        c.props.update(tls_props(pki))
        c.start(2)
        # Node 3's certificate is signed by another CA; it trusts both CAs,
        # so it starts and tries to link with the others in both directions.
        both = os.path.join(pki.dir, "both-cas.pem")
        with open(both, "w") as f:
            f.write(pem_text(pki.ca_cert) + pem_text(pki.other_ca_cert))
        intruder = keystore(pki, "intruder-keystore.pem", pki.other_client_cert, pki.other_client_key)
        bad = c.add_node(3).start(tls_props(pki, keystore=intruder, truststore=both))
        wait_started(bad)
        wait_for("broker 3 registered in ZooKeeper", lambda: 3 in c.registered(), 20)
        # With TLS the higher broker.id dials (cluster_controller.cpp
        # connect_peer): node 3 tries both, and both refuse its certificate.
        for p in (1, 2):
            wait_for(f"node 3 failing to reach broker {p}", lambda: f"cannot reach broker {p}" in bad.log_text(), 20)
        time.sleep(3)
        for n in c.nodes[:2]:
            check(not linked(n, 3), f"node {n.id} linked with the other CA's node")
        check(not linked(bad, 1) and not linked(bad, 2), "the other CA's node linked with the cluster")
        md = bad.metadata() or {}
        check(sorted(b["id"] for b in md.get("brokers", [])) != [1, 2, 3], f"the other CA's node learned the cluster's metadata: {md.get('brokers')}")
        log("the node with another CA's certificate reached no peer, and no peer reached it")
        # The control: the same node with the cluster's certificate joins.
        bad.restart(tls_props(pki))
        c.wait_ready([1, 2, 3])
        check(linked(c.node(1), 3) or linked(c.node(2), 3), "node 3 did not join with the cluster's certificate")


# -- plaintext-refusal ----------------------------------------------------------------


def local_address():
    """A non-loopback IPv4 address of this machine, or None."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        addr = s.getsockname()[0]
        return None if addr.startswith("127.") else addr
    except OSError:
        return None
    finally:
        s.close()


def case_plaintext_refusal(troupe):
    with Cluster(troupe) as c:
        pki = make_pki(os.path.join(c.dir, "pki"))
        c.start_zookeeper()
        n = c.add_node(1)
        everywhere = {"listeners": f"PLAINTEXT://0.0.0.0:{n.kafka_port}", "advertised.listeners": f"PLAINTEXT://127.0.0.1:{n.kafka_port}"}
        n.start(everywhere)
        rc = n.wait_exit(20)
        text = n.log_text()
        check(rc != 0, "a node with its listener on every interface and plain links started")
        lines = [line for line in text.splitlines() if "refusing to start" in line]
        check(len(lines) == 1 and "troupe.cluster.security" in lines[0] and "all interfaces" in lines[0], f"no one line saying why: {text[-600:]}")
        check(1 not in c.registered(), "the refused node registered")
        log(f"refused (exit {rc}): {lines[0][:160]}...")
        addr = local_address()
        if addr:
            # The cluster port on the advertised host, a non-loopback address.
            n.start({"listeners": f"PLAINTEXT://127.0.0.1:{n.kafka_port}", "advertised.listeners": f"PLAINTEXT://{addr}:{n.kafka_port}"})
            rc = n.wait_exit(20)
            check(rc != 0 and f"troupe.cluster.port on {addr}" in n.log_text(), f"a node with troupe.cluster.port on {addr} started with plain links")
            log(f"refused: troupe.cluster.port on {addr}")
        else:
            log("no non-loopback IPv4 address here: the troupe.cluster.port case is skipped")
        # Said explicitly: plain links start, and so does mutual TLS.
        for extra in ({"troupe.cluster.security": "plaintext"}, tls_props(pki)):
            n.start(dict(everywhere, **extra))
            wait_started(n)
            wait_for("broker 1 registered", lambda: 1 in c.registered(), 20)
            log(f"started with troupe.cluster.security={extra['troupe.cluster.security']}")
            n.stop()
            wait_for("broker 1 gone", lambda: 1 not in c.registered(), 20)


# -- zookeeper-acl --------------------------------------------------------------------


def digest_id(user_password):
    user = user_password.split(":", 1)[0]
    return f"{user}:{base64.b64encode(hashlib.sha1(user_password.encode()).digest()).decode()}"


def case_zookeeper_acl(troupe):
    secret = "troupe:zk-s3cret"
    with Cluster(troupe, props={"zookeeper.set.acl": "true", "troupe.zookeeper.digest": secret, "offsets.topic.replication.factor": 2}) as c:
        c.start(2)
        c.create_topic("acl-topic", 1, 2)
        mine = Id("digest", digest_id(secret))
        world_read = [ACL(Permissions.ALL, mine), ACL(Permissions.READ, Id("world", "anyone"))]
        paths = ("/brokers", "/brokers/ids", "/brokers/ids/1", "/brokers/topics/acl-topic", "/brokers/topics/acl-topic/partitions/0/state", "/controller", "/controller_epoch", "/config/topics")
        # The ACLs as the cluster's identity reads them (ZooKeeper 3.7+ masks
        # a digest's hash as "user:x" to clients without ADMIN).
        ops = KazooClient(hosts=c.zk_connect, timeout=10, auth_data=[("digest", secret)])
        ops.start(timeout=15)
        try:
            for path in paths:
                acls, _ = ops.get_acls(path)
                check(sorted(acls, key=str) == sorted(world_read, key=str), f"{path}: ACL {acls}, not creator ALL + world READ")
            acls, _ = ops.get_acls("/config/users")
            check(acls == [ACL(Permissions.ALL, mine)], f"/config/users: ACL {acls}, not the creator's only")
        finally:
            ops.stop()
            ops.close()
        anon = KazooClient(hosts=c.zk_connect, timeout=10)
        anon.start(timeout=15)
        try:
            for path in paths:
                anon.get(path)  # world-readable
            try:
                anon.get("/config/users")
                check(False, "an anonymous client read /config/users")
            except NoAuthError:
                pass
            for what, write in (
                ("set /brokers/topics/acl-topic", lambda: anon.set("/brokers/topics/acl-topic", b"{}")),
                ("create /brokers/topics/evil", lambda: anon.create("/brokers/topics/evil", b"{}")),
                ("create /admin/delete_topics/acl-topic", lambda: anon.create("/admin/delete_topics/acl-topic")),
                # (A top-level znode such as /controller sits under the
                # root, which ZooKeeper leaves open: deleting it takes DELETE
                # on "/", as in Kafka, unless a chroot is used.)
                ("delete /brokers/ids/1", lambda: anon.delete("/brokers/ids/1")),
                ("delete /brokers/topics/acl-topic/partitions/0/state", lambda: anon.delete("/brokers/topics/acl-topic/partitions/0/state")),
                ("set /brokers/topics/acl-topic/partitions/0/state", lambda: anon.set("/brokers/topics/acl-topic/partitions/0/state", b"{}")),
            ):
                try:
                    write()
                    check(False, f"an anonymous client could {what}")
                except NoAuthError:
                    log(f"anonymous {what}: NOAUTH")
        finally:
            anon.stop()
            anon.close()
        # The cluster's identity can write (as an operator with the digest).
        ops = KazooClient(hosts=c.zk_connect, timeout=10, auth_data=[("digest", secret)])
        ops.start(timeout=15)
        try:
            ops.create("/admin/probe-by-cluster-identity", b"x")
            ops.delete("/admin/probe-by-cluster-identity")
            ops.get("/config/users")
        finally:
            ops.stop()
            ops.close()
        # A node with another digest cannot register among them.
        bad = c.add_node(3).start({"troupe.zookeeper.digest": "troupe:guessed"})
        wait_started(bad)
        time.sleep(4)
        check(3 not in c.registered(), "a node with the wrong digest registered in /brokers/ids")
        check(c.partition_state("acl-topic", 0)["leader"] in (1, 2), "the topic lost its leader")
        log("a node with another digest is not registered")


CASES = {
    "mutual-tls": (case_mutual_tls, 90),
    "plain-basp-refused": (case_plain_basp_refused, 90),
    "other-ca": (case_other_ca, 90),
    "plaintext-refusal": (case_plaintext_refusal, 90),
    "zookeeper-acl": (case_zookeeper_acl, 90),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
