#!/usr/bin/python3
"""Kafka listeners with TLS and SASL against real clients.

    security_listeners_test.py TROUPE_BINARY CASE [NODE]

Each run starts its own `troupe serve` (the embedded node, three brokers)
with four listeners on free loopback ports: PLAINTEXT, SSL (client
certificates required), SASL_PLAINTEXT and SASL_SSL, certificates made on
the fly (tests/lib/certs.py). PLAIN users come from the listeners' JAAS
configuration; SCRAM users are created with AlterUserScramCredentials
(tests/lib/kafka_wire.py: Debian's confluent-kafka 1.7 has no such admin
call). CASE is one of:

  sasl-ssl-scram     librdkafka (confluent-kafka and kcat) over SASL_SSL with
                     SCRAM-SHA-512: acks=all produce, a consumer group reads
                     every record
  sasl-plain         the same over SASL_PLAINTEXT with PLAIN
  ssl-client-cert    the same over SSL with a client certificate; a client
                     certificate of another CA and no certificate are refused
  scram-256          kafka-python (raw SASL tokens after SaslHandshake v0)
                     and confluent-kafka with SCRAM-SHA-256 over SASL_SSL
  platformatic       @platformatic/kafka with SASL PLAIN and SCRAM-SHA-512
  failures           a wrong password is SASL_AUTHENTICATION_FAILED with
                     Kafka's message and the connection closes; an unknown
                     mechanism is UNSUPPORTED_SASL_MECHANISM with the enabled
                     list; a request before authentication closes the
                     connection; a truncated and a slow TLS handshake neither
                     stop other clients nor stay open past the timeout; 1,000
                     failed authentications in a row and the listener still
                     serves a good client
  cluster            the three librdkafka cases against a 3-node cluster
                     (ZooKeeper mode): each node registers its four
                     listeners in /brokers/ids, a SCRAM user made on one
                     node authenticates on all
  reauth             KIP-368 with connections.max.reauth.ms: SaslAuthenticate
                     v1 tells the session lifetime, a client re-authenticates
                     on the same connection, a re-authentication as another
                     principal fails, an expired session is closed on its
                     next request; a client re-authenticates by itself and
                     goes on producing (@platformatic/kafka: Debian's
                     librdkafka 2.0.2 predates its KIP-368 support)

Every wait is bounded; the server is stopped by pid, also on failure.
"""

import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from certs import make_pki, one_line, pem_text  # noqa: E402
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402
import kafka_wire as kw  # noqa: E402

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
        'username="admin" password="admin-secret" '
        'user_admin="admin-secret" user_alice="alice-secret";')
BROKERS = 3
LISTENERS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what, flush=True)


class Server:
    """`troupe serve` with the four listeners, broker i of each on its
    port + i."""

    def __init__(self, binary, pki, extra=()):
        self.dir = tempfile.mkdtemp(prefix="troupe-sec-")
        base = free_port_range(BROKERS * len(LISTENERS))
        self.ports = {name: base + BROKERS * i
                      for i, name in enumerate(LISTENERS)}
        listeners = ",".join("%s://127.0.0.1:%d" % (n, p)
                             for n, p in self.ports.items())
        props = [
            "log.dirs=" + os.path.join(self.dir, "logs"),
            "port=%d" % base,
            "listeners=" + listeners,
            "group.initial.rebalance.delay.ms=0",
            "num.partitions=3",
            "default.replication.factor=3",
            "min.insync.replicas=2",
            # The SSL listener's keystore as PEM text (KIP-651, one line
            # as a .properties value), SASL_SSL's as a file; one encrypted
            # key for both (ssl.key.password).
            "ssl.keystore.type=PEM",
            "ssl.key.password=" + pki.server_key_password,
            "ssl.truststore.type=PEM",
            "ssl.truststore.location=" + pki.ca_cert,
            "listener.name.ssl.ssl.keystore.certificate.chain="
            + one_line(pem_text(pki.server_chain)),
            "listener.name.ssl.ssl.keystore.key="
            + one_line(pem_text(pki.server_key)),
            "listener.name.ssl.ssl.client.auth=required",
            "listener.name.sasl_ssl.ssl.keystore.location=" + pki.server_pem,
            "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config=" + JAAS,
            "listener.name.sasl_ssl.plain.sasl.jaas.config=" + JAAS,
        ] + list(extra)
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.log = open(self.log_path, "w")
        args = [binary, "serve", "--http-port", "0", "--log-level", "info"]
        for p in props:
            args += ["--override", p]
        self.proc = subprocess.Popen(args, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent())
        ready = "Kafka listeners on %d.." % base
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

    def bootstrap(self, listener):
        return ",".join("127.0.0.1:%d" % (self.ports[listener] + i)
                        for i in range(BROKERS))

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

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
            sys.stdout.write("---- troupe log (last 60 lines) ----\n")
            sys.stdout.write("".join(self.log_text().splitlines(True)[-60:]))
        shutil.rmtree(self.dir, ignore_errors=True)


def add_scram(server, user, password, mechanism, pki):
    """A SCRAM user, created over the SASL_SSL listener as admin (PLAIN)."""
    tls = ssl.create_default_context(cafile=pki.ca_cert)
    res = kw.upsert_scram("127.0.0.1", server.ports["SASL_SSL"], user,
                          password, mechanism, 4096, tls=tls,
                          sasl=("PLAIN", "admin", "admin-secret"))
    check(res == [(user, 0, None)],
          "AlterUserScramCredentials creates %s's %s credential (%r)"
          % (user, mechanism, res))


# -- librdkafka ----------------------------------------------------------------

def librdkafka_roundtrip(server, listener, security, label, records=200):
    """confluent-kafka produces with acks=all and a group consumes it all;
    then kcat produces and a kcat group consumer reads."""
    from confluent_kafka import Consumer, Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    topic = "sec-%s-%s" % (label, uuid.uuid4().hex[:8])
    conf = dict(security, **{"bootstrap.servers": server.bootstrap(listener)})
    # CreateTopics over the same listener (the admin client authenticates
    # too), three partitions on all three brokers.
    admin = AdminClient(conf)
    futures = admin.create_topics(
        [NewTopic(topic, num_partitions=3, replication_factor=3)],
        request_timeout=30)
    futures[topic].result(timeout=40)
    p = Producer(dict(conf, **{"acks": "all", "linger.ms": 5}))
    acked = []
    errors = []

    def on_delivery(err, msg):
        (errors if err else acked).append(err or msg.offset())

    for i in range(records):
        p.produce(topic, key=b"k%d" % (i % 7), value=b"v%d" % i,
                  on_delivery=on_delivery)
        p.poll(0)
    left = p.flush(30)
    check(left == 0 and not errors and len(acked) == records,
          "%s: %d records acknowledged with acks=all (errors: %s)"
          % (label, len(acked), errors[:3]))
    c = Consumer(dict(conf, **{"group.id": "g-" + topic,
                               "auto.offset.reset": "earliest",
                               "session.timeout.ms": 10000}))
    c.subscribe([topic])
    got = set()
    deadline = time.time() + 40
    while len(got) < records and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            # Internal events (partition EOF) are negative codes.
            if m.error().code() >= 0:
                raise AssertionError("%s: consumer error %s"
                                     % (label, m.error()))
            continue
        got.add(m.value())
    c.close()
    check(len(got) == records,
          "%s: a consumer group read every record (%d)" % (label, len(got)))
    # kcat: the same librdkafka with its own configuration path.
    kconf = []
    for k, v in security.items():
        kconf += ["-X", "%s=%s" % (k, v)]
    kcat = shutil.which("kcat")
    lines = "\n".join("kcat-%d" % i for i in range(20)) + "\n"
    out = subprocess.run([kcat, "-P", "-b", server.bootstrap(listener), "-t",
                          topic, "-X", "acks=all"] + kconf,
                         input=lines.encode(), capture_output=True,
                         timeout=60)
    check(out.returncode == 0,
          "%s: kcat produces (%s)" % (label, out.stderr.decode()[-300:]))
    out = subprocess.run([kcat, "-G", "kg-" + topic, "-b",
                          server.bootstrap(listener), "-X",
                          "auto.offset.reset=earliest", "-o", "beginning",
                          "-c", str(records + 20), "-e", "-q"] + kconf
                         + [topic],
                         capture_output=True, timeout=60)
    values = out.stdout.decode().split()
    check(sum(1 for v in values if v.startswith("kcat-")) == 20
          and len(values) == records + 20,
          "%s: a kcat group consumer reads all %d records (%d, %s)"
          % (label, records + 20, len(values), out.stderr.decode()[-300:]))


def tls_conf(pki):
    return {"ssl.ca.location": pki.ca_cert,
            "ssl.endpoint.identification.algorithm": "https"}


def case_sasl_ssl_scram(binary, pki, node):
    server = Server(binary, pki)
    try:
        add_scram(server, "carol", "carol-secret", "SCRAM-SHA-512", pki)
        librdkafka_roundtrip(server, "SASL_SSL", dict(tls_conf(pki), **{
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": "carol", "sasl.password": "carol-secret"}),
            "sasl-ssl-scram-sha-512")
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


def case_sasl_plain(binary, pki, node):
    server = Server(binary, pki)
    try:
        librdkafka_roundtrip(server, "SASL_PLAINTEXT", {
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
            "sasl.username": "alice", "sasl.password": "alice-secret"},
            "sasl-plaintext-plain")
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


def tls_refused(port, pki, cert=None):
    """True when the SSL listener refuses a client (another CA's
    certificate, or none): the handshake fails or the first request finds
    the connection closed."""
    ctx = ssl.create_default_context(cafile=pki.ca_cert)
    if cert:
        ctx.load_cert_chain(*cert)
    try:
        conn = kw.Conn("127.0.0.1", port, tls=ctx, timeout=10)
    except (ssl.SSLError, ConnectionResetError, BrokenPipeError, OSError):
        return True
    try:
        return conn.metadata() is None
    except (ssl.SSLError, OSError):
        return True
    finally:
        conn.close()


def case_ssl_client_cert(binary, pki, node):
    server = Server(binary, pki)
    try:
        librdkafka_roundtrip(server, "SSL", dict(tls_conf(pki), **{
            "security.protocol": "SSL",
            "ssl.certificate.location": pki.client_cert,
            "ssl.key.location": pki.client_key}), "ssl-client-cert")
        port = server.ports["SSL"]
        check(tls_refused(port, pki, (pki.other_client_cert,
                                      pki.other_client_key)),
              "a client certificate signed by another CA is refused")
        check(tls_refused(port, pki),
              "a client without a certificate is refused "
              "(ssl.client.auth=required)")
        ctx = ssl.create_default_context(cafile=pki.ca_cert)
        ctx.load_cert_chain(pki.client_cert, pki.client_key)
        conn = kw.Conn("127.0.0.1", port, tls=ctx)
        check(conn.metadata() is not None,
              "the CA's own client certificate is served")
        conn.close()
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()
    # The certificate's subject is the principal (ssl.principal.mapping.rules
    # DEFAULT: the RFC 2253 DN): a super user by its DN writes, another
    # client of the same CA is denied.
    server = Server(binary, pki, [
        "authorizer.class.name=kafka.security.authorizer.AclAuthorizer",
        "super.users=User:" + pki.client_dn("client")])
    try:
        from confluent_kafka import Producer
        for cn, want in (("client", None), ("alice", 29)):
            cert, key = pki.client(cn)
            p = Producer(dict(tls_conf(pki), **{
                "bootstrap.servers": server.bootstrap("SSL"),
                "security.protocol": "SSL", "ssl.certificate.location": cert,
                "ssl.key.location": key, "acks": "all",
                "message.timeout.ms": 10000}))
            res = []
            p.produce("sec-principal", b"x",
                      on_delivery=lambda e, m: res.append(e))
            p.flush(15)
            got = res[0].code() if res and res[0] else None
            check(len(res) == 1 and got == want,
                  "the client certificate CN=%s maps to User:%s (%s)"
                  % (cn, pki.client_dn(cn), res))
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


# -- other clients ---------------------------------------------------------------

def case_scram_256(binary, pki, node):
    server = Server(binary, pki)
    try:
        add_scram(server, "dave", "dave-secret", "SCRAM-SHA-256", pki)
        from kafka import KafkaConsumer, KafkaProducer
        topic = "sec-kp-" + uuid.uuid4().hex[:8]
        kconf = dict(bootstrap_servers=server.bootstrap("SASL_SSL"),
                     security_protocol="SASL_SSL", ssl_cafile=pki.ca_cert,
                     sasl_mechanism="SCRAM-SHA-256",
                     sasl_plain_username="dave",
                     sasl_plain_password="dave-secret",
                     api_version=(2, 5, 0))
        # A topic auto-created by the first Metadata has no leader for a
        # moment: kafka-python retries NOT_LEADER like any client.
        p = KafkaProducer(acks="all", retries=10, **kconf)
        futures = [p.send(topic, b"kp-%d" % i) for i in range(100)]
        offsets = [f.get(timeout=30).offset for f in futures]
        p.close(10)
        check(len(offsets) == 100,
              "kafka-python produces with SCRAM-SHA-256 over SASL_SSL")
        c = KafkaConsumer(topic, group_id="g-" + topic,
                          auto_offset_reset="earliest",
                          consumer_timeout_ms=15000, **kconf)
        got = set()
        for m in c:
            got.add(m.value)
            if len(got) == 100:
                break
        c.close()
        check(len(got) == 100,
              "kafka-python's consumer group reads every record")
        librdkafka_roundtrip(server, "SASL_SSL", dict(tls_conf(pki), **{
            "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-256",
            "sasl.username": "dave", "sasl.password": "dave-secret"}),
            "confluent-scram-sha-256", records=100)
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


def case_platformatic(binary, pki, node):
    server = Server(binary, pki)
    try:
        add_scram(server, "erin", "erin-secret", "SCRAM-SHA-512", pki)
        script = os.path.join(HERE, "platformatic", "sasl_test.mjs")
        for mech, user, pw in (("PLAIN", "alice", "alice-secret"),
                               ("SCRAM-SHA-512", "erin", "erin-secret")):
            out = subprocess.run([node, script,
                                  server.bootstrap("SASL_PLAINTEXT"), mech,
                                  user, pw], capture_output=True, timeout=90)
            sys.stdout.write(out.stdout.decode())
            check(out.returncode == 0,
                  "@platformatic/kafka with SASL %s produces and consumes in "
                  "a group (%s)" % (mech, out.stderr.decode()[-400:]))
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


# -- failures --------------------------------------------------------------------

def case_failures(binary, pki, node):
    server = Server(binary, pki)
    try:
        add_scram(server, "frank", "frank-secret", "SCRAM-SHA-512", pki)
        port = server.ports["SASL_PLAINTEXT"]
        c = kw.Conn("127.0.0.1", port)
        error, message, _, _ = c.plain("alice", "wrong")
        check(error == kw.SASL_AUTHENTICATION_FAILED and message,
              "a wrong PLAIN password is SASL_AUTHENTICATION_FAILED (%s)"
              % message)
        check(c.closed_by_peer(), "and the connection is closed")
        c.close()
        c = kw.Conn("127.0.0.1", port)
        error, message, _ = c.scram("SCRAM-SHA-512", "frank", "wrong")
        check(error == kw.SASL_AUTHENTICATION_FAILED and message,
              "a wrong SCRAM password is SASL_AUTHENTICATION_FAILED (%s)"
              % message)
        check(c.closed_by_peer(), "and the connection is closed")
        c.close()
        c = kw.Conn("127.0.0.1", port)
        error, mechs = c.sasl_handshake("GSSAPI-NOT")
        check(error == kw.UNSUPPORTED_SASL_MECHANISM
              and mechs == ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"],
              "an unknown mechanism is UNSUPPORTED_SASL_MECHANISM with the "
              "enabled list (%r)" % mechs)
        check(c.closed_by_peer(), "and the connection is closed")
        c.close()
        c = kw.Conn("127.0.0.1", port)
        check(c.metadata() is None,
              "a request before authentication closes the connection")
        c.close()

        # A truncated handshake (half a ClientHello) and a slow one (a byte
        # every half second) on the SASL_SSL listener; others are served
        # meanwhile, and both end by the 10 s authentication timeout.
        tls_port = server.ports["SASL_SSL"]
        hello = client_hello(pki)
        stalled_at = time.time()
        truncated = socket.create_connection(("127.0.0.1", tls_port), 5)
        truncated.sendall(hello[:len(hello) // 2])
        slow = socket.create_connection(("127.0.0.1", tls_port), 5)
        closed_after = {}

        def trickle():
            for b in hello:
                try:
                    slow.sendall(bytes([b]))
                except OSError:
                    break
                time.sleep(0.5)
                if time.time() - stalled_at > 16:
                    break
            closed_after["slow"] = wait_closed(slow, stalled_at + 16)

        trickler = threading.Thread(target=trickle, daemon=True)
        trickler.start()
        tls = ssl.create_default_context(cafile=pki.ca_cert)
        t0 = time.time()
        good = kw.Conn("127.0.0.1", tls_port, tls=tls)
        error, _, _ = good.scram("SCRAM-SHA-512", "frank", "frank-secret")
        check(error == 0 and good.metadata() is not None
              and time.time() - t0 < 3,
              "with a truncated and a slow TLS handshake open, another "
              "client authenticates and is served at once")
        good.close()

        # 1,000 failed authentications in a row, then a good client.
        t0 = time.time()
        for i in range(1000):
            bad = kw.Conn("127.0.0.1", port)
            error, _, _, _ = bad.plain("alice", "wrong-%d" % i)
            assert error == kw.SASL_AUTHENTICATION_FAILED, error
            bad.close()
        took = time.time() - t0
        good = kw.Conn("127.0.0.1", port)
        error, _, _, _ = good.plain("alice", "alice-secret")
        check(error == 0 and good.metadata() is not None,
              "after 1,000 failed authentications in a row (%.1f s) the "
              "listener serves a good client" % took)
        good.close()
        t = wait_closed(truncated, stalled_at + 16) - stalled_at
        check(9 <= t <= 14, "the truncated TLS handshake is closed by the "
              "timeout (after %s)" % ("%.1f s" % t if t < 1e8 else "never"))
        trickler.join(20)
        t = closed_after.get("slow", 1e9) - stalled_at
        check(9 <= t <= 14, "the slow TLS handshake is closed by the timeout "
              "(after %s)" % ("%.1f s" % t if t < 1e8 else "never"))
        truncated.close()
        slow.close()
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


def wait_closed(sock, until):
    """When the peer closed `sock` (time.time()), or `until` at the latest;
    data the peer sends before closing is skipped."""
    while time.time() < until:
        sock.settimeout(max(0.05, until - time.time()))
        try:
            if sock.recv(4096) == b"":
                return time.time()
        except socket.timeout:
            break
        except OSError:
            return time.time()
    return 1e9


def client_hello(pki):
    """The bytes a Python TLS client sends first (its ClientHello)."""
    ctx = ssl.create_default_context(cafile=pki.ca_cert)
    incoming = ssl.MemoryBIO()
    outgoing = ssl.MemoryBIO()
    obj = ctx.wrap_bio(incoming, outgoing, server_hostname="127.0.0.1")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


# -- KIP-368 ----------------------------------------------------------------------

def case_reauth(binary, pki, node):
    server = Server(binary, pki, ["connections.max.reauth.ms=3000"])
    try:
        add_scram(server, "gina", "gina-secret", "SCRAM-SHA-512", pki)
        port = server.ports["SASL_PLAINTEXT"]
        c = kw.Conn("127.0.0.1", port)
        error, _, _, lifetime = c.plain("alice", "alice-secret")
        check(error == 0 and lifetime == 3000,
              "SaslAuthenticate v1 tells the session lifetime "
              "(connections.max.reauth.ms, %d)" % lifetime)
        time.sleep(1.5)
        error, _, lifetime = c.scram("SCRAM-SHA-512", "gina", "gina-secret")
        check(error == kw.SASL_AUTHENTICATION_FAILED,
              "a re-authentication may not change the mechanism")
        c.close()
        c = kw.Conn("127.0.0.1", port)
        c.plain("alice", "alice-secret")
        time.sleep(2)
        error, _, _, lifetime = c.plain("alice", "alice-secret")
        check(error == 0 and lifetime == 3000,
              "the client re-authenticates on the same connection")
        time.sleep(2)
        check(c.metadata() is not None,
              "past the first session's end, the renewed session serves")
        error, message, _, _ = c.plain("admin", "admin-secret")
        check(error == kw.SASL_AUTHENTICATION_FAILED,
              "a re-authentication as another principal fails (%s)" % message)
        check(c.closed_by_peer(), "and the connection is closed")
        c.close()
        c = kw.Conn("127.0.0.1", port)
        c.plain("alice", "alice-secret")
        check(c.metadata() is not None, "a fresh session serves")
        time.sleep(3.5)
        check(c.metadata() is None,
              "an expired session's next request closes the connection")
        c.close()

        # A client that honours the session lifetime (@platformatic/kafka;
        # Debian's librdkafka 2.0.2 predates KIP-368 in librdkafka 2.2 and
        # sends SaslAuthenticate v0, which is told no lifetime) re-
        # authenticates its connections and goes on producing.
        script = os.path.join(HERE, "platformatic", "sasl_test.mjs")
        out = subprocess.run([node, script, server.bootstrap("SASL_PLAINTEXT"),
                              "SCRAM-SHA-512", "gina", "gina-secret", "7000"],
                             capture_output=True, timeout=90)
        reauths = server.log_text().count("re-authenticated as User:gina")
        check(out.returncode == 0 and reauths >= 2,
              "@platformatic/kafka re-authenticates (%d times) and goes on "
              "producing and consuming (%s)"
              % (reauths, out.stderr.decode()[-300:]))
    except BaseException:
        server.stop(failed=True)
        raise
    server.stop()


# -- a 3-node cluster ----------------------------------------------------------

class ClusterListeners:
    """The four listeners of every node of a cluster, for
    librdkafka_roundtrip: bootstrap(listener) lists every node's."""

    def __init__(self, nodes, ports):
        self.nodes = nodes
        self.ports = ports  # node id -> {listener: port}

    def bootstrap(self, listener):
        return ",".join("127.0.0.1:%d" % self.ports[n.id][listener]
                        for n in self.nodes)


def case_cluster(binary, pki, node):
    sys.path.insert(0, os.path.join(HERE, "..", "cluster"))
    import json
    from cluster_fixture import Cluster, free_ports
    props = {
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": pki.server_pem,
        "ssl.key.password": pki.server_key_password,
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": pki.ca_cert,
        "listener.name.ssl.ssl.client.auth": "required",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "listener.name.sasl_ssl.plain.sasl.jaas.config": JAAS,
    }
    with Cluster(binary, props=props) as c:
        c.start_zookeeper()
        ports = {}
        for _ in range(3):
            n = c.add_node()
            extra = free_ports(3)
            ports[n.id] = dict(zip(LISTENERS, [n.kafka_port] + extra))
            n.start({"listeners": ",".join(
                "%s://127.0.0.1:%d" % (l, p) for l, p in ports[n.id].items())})
        c.wait_ready([n.id for n in c.nodes])
        # /brokers/ids/<id>: every listener with its protocol, as Kafka.
        for n in c.nodes:
            reg = c.zk_get_json("/brokers/ids/%d" % n.id)
            want = ["%s://127.0.0.1:%d" % (l, p)
                    for l, p in ports[n.id].items()]
            check(all(e in reg["endpoints"] for e in want)
                  and all(reg["listener_security_protocol_map"].get(l) == l
                          for l in LISTENERS),
                  "node %d registers its four listeners in /brokers/ids (%s)"
                  % (n.id, json.dumps(reg["endpoints"])))
        view = ClusterListeners(c.nodes, ports)
        n0 = c.nodes[0]
        res = kw.upsert_scram("127.0.0.1", n0.kafka_port, "carol",
                              "carol-secret", "SCRAM-SHA-512", 4096)
        check(res == [("carol", 0, None)],
              "AlterUserScramCredentials on the cluster (%r)" % (res,))
        # Every node learns the credential through ZooKeeper.
        deadline = time.time() + 20
        ready = set()
        while len(ready) < 3 and time.time() < deadline:
            for n in c.nodes:
                conn = kw.Conn("127.0.0.1", ports[n.id]["SASL_PLAINTEXT"])
                if conn.scram("SCRAM-SHA-512", "carol", "carol-secret")[0] == 0:
                    ready.add(n.id)
                conn.close()
            time.sleep(0.2)
        check(len(ready) == 3, "every node authenticates the new SCRAM user")
        librdkafka_roundtrip(view, "SASL_SSL", dict(tls_conf(pki), **{
            "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
            "sasl.username": "carol", "sasl.password": "carol-secret"}),
            "cluster-sasl-ssl-scram-sha-512")
        librdkafka_roundtrip(view, "SASL_PLAINTEXT", {
            "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
            "sasl.username": "alice", "sasl.password": "alice-secret"},
            "cluster-sasl-plaintext-plain")
        librdkafka_roundtrip(view, "SSL", dict(tls_conf(pki), **{
            "security.protocol": "SSL",
            "ssl.certificate.location": pki.client_cert,
            "ssl.key.location": pki.client_key}), "cluster-ssl-client-cert")


CASES = {
    "cluster": case_cluster,
    "sasl-ssl-scram": case_sasl_ssl_scram,
    "sasl-plain": case_sasl_plain,
    "ssl-client-cert": case_ssl_client_cert,
    "scram-256": case_scram_256,
    "platformatic": case_platformatic,
    "failures": case_failures,
    "reauth": case_reauth,
}


def main():
    binary, case = sys.argv[1], sys.argv[2]
    node = sys.argv[3] if len(sys.argv) > 3 else "node"
    d = tempfile.mkdtemp(prefix="troupe-pki-")
    try:
        pki = make_pki(d, server_key_password="key-secret")
        t0 = time.time()
        CASES[case](binary, pki, node)
        print("PASS %s (%.1f s)" % (case, time.time() - t0))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
