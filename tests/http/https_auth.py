#!/usr/bin/env python3
"""HTTPS, authentication and ACLs on troupe's HTTP gateway against a real
`troupe serve` (python3's urllib/http.client/ssl; kafka-python for ACLs).

    https_auth.py TROUPE_BINARY CASE

CASE is one of: https, unauthenticated, basic, produce_denied, wss,
browser. Each
case makes its certificates (tests/lib/certs.py), starts its own server on
free ports with a temporary log.dirs and stops it after. SCRAM users and
ACLs are made through the Kafka listener (AlterUserScramCredentials,
CreateAcls), where User:ANONYMOUS is a super user; every REST call needs
credentials (troupe.http.auth=basic).
"""

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from certs import make_pki, one_line, pem_text  # noqa: E402
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402
import kafka_wire as kw  # noqa: E402

V2 = "application/vnd.kafka.v2+json"
JSON_V2 = "application/vnd.kafka.json.v2+json"
TOKEN = "s3cret-admin-token"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def basic(user, password):
    return "Basic " + base64.b64encode(
        ("%s:%s" % (user, password)).encode()).decode()


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


class Server:
    """`troupe serve` with HTTPS on the gateway and the given properties."""

    def __init__(self, binary, pki, props, idle_ms=60000):
        self.dir = tempfile.mkdtemp(prefix="troupe-https-")
        self.pki = pki
        self.port = free_port()
        self.kafka = free_port_range(3)
        self.tls = props.get("troupe.http.ssl.enable") == "true"
        props = dict(props)
        props.setdefault("troupe.http.admin.token", TOKEN)
        props["log.dirs"] = os.path.join(self.dir, "logs")
        props["port"] = str(self.kafka)
        props["group.initial.rebalance.delay.ms"] = "0"
        path = os.path.join(self.dir, "server.properties")
        with open(path, "w") as f:
            for k, v in props.items():
                f.write("%s=%s\n" % (k, v))
        self.log = open(os.path.join(self.dir, "troupe.log"), "w")
        self.proc = subprocess.Popen(
            [binary, "serve", "--config", path, "--http-port", str(self.port),
             "--http-idle-timeout-ms", str(idle_ms), "--log-level", "info"],
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent())
        deadline = time.time() + 30
        while time.time() < deadline and self.proc.poll() is None:
            try:
                if self.request("GET", "/healthz", timeout=2)[0] == 200:
                    return
            except (OSError, ssl.SSLError):
                time.sleep(0.1)
        self.log.flush()
        with open(os.path.join(self.dir, "troupe.log")) as f:
            tail = f.read()[-3000:]
        self.stop()
        raise RuntimeError("troupe serve did not come up:\n" + tail)

    def context(self):
        ctx = ssl.create_default_context(cafile=self.pki.ca_cert)
        return ctx

    def connection(self, timeout=20):
        if self.tls:
            return http.client.HTTPSConnection(
                "127.0.0.1", self.port, timeout=timeout,
                context=self.context())
        return http.client.HTTPConnection("127.0.0.1", self.port,
                                          timeout=timeout)

    def request(self, method, path, body=None, ctype=V2, auth=None,
                timeout=20, conn=None):
        own = conn is None
        conn = conn or self.connection(timeout)
        hdrs = {}
        data = json.dumps(body) if body is not None else None
        if data is not None:
            hdrs["Content-Type"] = ctype
        if auth:
            hdrs["Authorization"] = auth
        conn.request(method, path, body=data, headers=hdrs)
        res = conn.getresponse()
        text = res.read().decode()
        if own:
            conn.close()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text
        return res.status, parsed, res

    def admin(self, method, path, body=None, ctype=V2):
        status, res, _ = self.request(method, path, body, ctype,
                                      auth="Bearer " + TOKEN)
        if status >= 300:
            raise AssertionError("%s %s -> %d %s" % (method, path, status,
                                                     res))
        return res

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        if os.environ.get("KEEP_LOGS"):
            print("logs in", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


# -- the Kafka listener's admin APIs ------------------------------------------------

def add_scram_user(port, user, password, mechanism=kw.SHA_256,
                   iterations=4096):
    """AlterUserScramCredentials v0 (KIP-554) over the Kafka listener, which
    may bind a moment after the gateway (tests/lib/kafka_wire.py: as an
    AdminClient sends it, the salted password, never the password)."""
    res = kw.alter_scram("127.0.0.1", port,
                         [kw.upsertion(user, mechanism, password, iterations,
                                       salt=os.urandom(24))],
                         timeout=20, wait=10)
    if res != [(user, 0, None)]:
        raise AssertionError("AlterUserScramCredentials for %s: %r"
                             % (user, res))


def add_acls(port, bindings):
    """CreateAcls through kafka-python's admin client: (resource type,
    name, principal, operation), each ALLOW from any host."""
    from kafka.admin import (ACL, ACLOperation, ACLPermissionType,
                             KafkaAdminClient, ResourcePattern, ResourceType)
    admin = KafkaAdminClient(bootstrap_servers="127.0.0.1:%d" % port,
                             request_timeout_ms=20000)
    try:
        acls = [ACL(principal, "*", getattr(ACLOperation, op),
                    ACLPermissionType.ALLOW,
                    ResourcePattern(getattr(ResourceType, rtype), name))
                for rtype, name, principal, op in bindings]
        res = admin.create_acls(acls)
        if res["failed"]:
            raise AssertionError("CreateAcls failed: %r" % (res["failed"],))
    finally:
        admin.close()


def secured(extra=None):
    """HTTPS with the PEM keystore file, Basic authentication and Kafka's
    AclAuthorizer (User:ANONYMOUS, the PLAINTEXT Kafka listener's
    principal, is the super user that makes users and ACLs)."""
    props = {
        "troupe.http.ssl.enable": "true",
        "troupe.http.ssl.keystore.type": "PEM",
        "troupe.http.auth": "basic",
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:ANONYMOUS",
    }
    props.update(extra or {})
    return props


# -- a WebSocket client over TLS ---------------------------------------------------

class WebSocket:
    def __init__(self, srv, auth=None, path="/v1/ws"):
        raw = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        self.sock = srv.context().wrap_socket(raw, server_hostname="127.0.0.1")
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "Authorization: %s\r\n" % auth if auth else ""
        self.sock.sendall((
            "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
            "Sec-WebSocket-Version: 13\r\n%s\r\n"
            % (path, srv.port, key, extra)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during handshake")
            head += chunk
        self.status = int(head.split(b" ")[1])
        self.head = head.decode()
        self.buf = b""

    def send(self, obj):
        payload = json.dumps(obj).encode()
        n = len(payload)
        header = bytes([0x81])
        header += (bytes([0x80 | n]) if n < 126
                   else bytes([0x80 | 126]) + struct.pack(">H", n))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(
            b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self, timeout):
        self.sock.settimeout(timeout)
        try:
            b0, b1 = self._read(2)
        except (socket.timeout, ssl.SSLError):
            return None
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", self._read(8))[0]
        payload = self._read(n)
        if b0 & 0x0F == 0x8:
            return {"type": "__close__", "reason": payload[2:].decode()}
        return json.loads(payload.decode())

    def events_until(self, fn, timeout=30):
        seen = []
        deadline = time.time() + timeout
        while time.time() < deadline:
            ev = self.recv(1)
            if ev is None:
                self.send({"type": "heartbeat"})
                continue
            seen.append(ev)
            if fn(ev):
                return seen
        raise AssertionError("timed out; saw %r" % seen)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# -- the cases -----------------------------------------------------------------

def case_https(binary, pki):
    srv = Server(binary, pki, {
        "troupe.http.ssl.enable": "true",
        "troupe.http.ssl.keystore.type": "PEM",
        "troupe.http.ssl.keystore.location": pki.server_pem,
        "troupe.http.admin.enable": "true"}, idle_ms=1500)
    try:
        status, body, res = srv.request("GET", "/")
        check(status == 200 and "text/html" in res.getheader("Content-Type")
              and "<html" in body.lower(),
              "the dashboard over HTTPS, its certificate verified against "
              "the test CA")
        srv.admin("POST", "/v1/topics", {"name": "tls", "partitions": 1,
                                         "replication_factor": 1}, "application/json")
        status, topics, _ = srv.request("GET", "/topics")
        check(status == 200 and "tls" in topics,
              "REST Proxy's GET /topics over HTTPS: %r" % (topics,))
        status, out, _ = srv.request(
            "POST", "/topics/tls", {"records": [{"value": {"n": 1}}]},
            JSON_V2)
        check(status == 200 and out["offsets"][0]["offset"] == 0,
              "a REST produce over HTTPS")
        # Keep-alive: two requests on one TLS connection.
        conn = srv.connection()
        a = srv.request("GET", "/v1/brokers", conn=conn)[0]
        b = srv.request("GET", "/topics/tls", conn=conn)[0]
        conn.close()
        check(a == 200 and b == 200, "two requests on one TLS connection")
        # Plain HTTP on the HTTPS port gets no HTTP answer.
        with socket.create_connection(("127.0.0.1", srv.port), 5) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(5)
            try:
                got = s.recv(100)
            except OSError:
                got = b""
        check(not got.startswith(b"HTTP/1.1 200"),
              "plain HTTP on the HTTPS port is not served")
        # A client that connects and never says hello is cut off after
        # the idle timeout (1.5 s here).
        t0 = time.time()
        with socket.create_connection(("127.0.0.1", srv.port), 10) as s:
            s.settimeout(10)
            try:
                closed = s.recv(1) == b""
            except OSError:
                closed = True
        took = time.time() - t0
        check(closed and 1.0 < took < 8,
              "a TLS handshake that never starts is closed after the idle "
              "timeout (%.1f s)" % took)
        # A client that does not trust the server's CA refuses it.
        try:
            ctx = ssl.create_default_context(cafile=pki.other_ca_cert)
            c = http.client.HTTPSConnection("127.0.0.1", srv.port, timeout=5,
                                            context=ctx)
            c.request("GET", "/healthz")
            c.getresponse()
            refused = False
        except ssl.SSLError:
            refused = True
        check(refused, "a client trusting another CA refuses the server")
    finally:
        srv.stop()
    # The same as PEM text (ssl.keystore.certificate.chain/.key) with an
    # encrypted key and its password, and ssl.client.auth=required.
    pwd_dir = os.path.join(pki.dir, "pwd")
    locked = make_pki(pwd_dir, server_key_password="keypass")
    base = locked
    props = {
        "troupe.http.ssl.enable": "true",
        "troupe.http.ssl.keystore.type": "PEM",
        "troupe.http.ssl.keystore.certificate.chain":
            one_line(pem_text(base.server_chain)),
        "troupe.http.ssl.keystore.key": one_line(pem_text(base.server_key)),
        "troupe.http.ssl.key.password": "keypass",
        "troupe.http.ssl.truststore.type": "PEM",
        "troupe.http.ssl.truststore.location": base.ca_cert,
        "troupe.http.ssl.client.auth": "required",
        "troupe.http.ssl.enabled.protocols": "TLSv1.3",
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
        "super.users": "User:ANONYMOUS"}

    class WithClientCert(Server):
        cert = (base.client_cert, base.client_key)

        def context(self):
            ctx = ssl.create_default_context(cafile=base.ca_cert)
            ctx.load_cert_chain(*self.cert)
            return ctx

    srv = WithClientCert(binary, base, props)
    try:
        status, _, _ = srv.request("GET", "/topics")
        check(status == 200, "inline PEM chain and encrypted key with "
              "ssl.key.password; a client certificate of the truststore's CA "
              "is accepted (ssl.client.auth=required)")
        conn = http.client.HTTPSConnection(
            "127.0.0.1", srv.port, timeout=5,
            context=ssl.create_default_context(cafile=base.ca_cert))
        try:
            conn.request("GET", "/topics")
            conn.getresponse()
            refused = False
        except (ssl.SSLError, ConnectionError, OSError):
            refused = True
        check(refused, "without a client certificate the handshake fails "
              "(ssl.client.auth=required)")
        ctx = ssl.create_default_context(cafile=base.ca_cert)
        ctx.maximum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(base.client_cert, base.client_key)
        try:
            c = http.client.HTTPSConnection("127.0.0.1", srv.port, timeout=5,
                                            context=ctx)
            c.request("GET", "/topics")
            c.getresponse()
            refused = False
        except (ssl.SSLError, OSError):
            refused = True
        check(refused, "a TLSv1.2 client is refused with "
              "ssl.enabled.protocols=TLSv1.3")
        # troupe.http.auth=none: the client certificate names the principal,
        # User:CN=client,OU=test,O=troupe, as on Kafka's SSL listeners.
        srv.admin("POST", "/v1/topics", {"name": "certs", "partitions": 1,
                                         "replication_factor": 1},
                  "application/json")
        add_acls(srv.kafka, [("TOPIC", "certs",
                              "User:" + base.client_dn("client"), "WRITE")])
        record = {"records": [{"value": 1}]}
        status, _, _ = srv.request("POST", "/topics/certs", record, JSON_V2)
        check(status == 200, "the client certificate's principal may WRITE")
        srv.cert = base.client("other")
        status, out, _ = srv.request("POST", "/topics/certs", record, JSON_V2)
        check(status == 403 and out["kafka_error_code"] == 29,
              "another client certificate's principal may not: 403")
    finally:
        srv.stop()


def case_unauthenticated(binary, pki):
    srv = Server(binary, pki, secured({
        "troupe.http.ssl.keystore.location": pki.server_pem}))
    try:
        for method, path, body in [("GET", "/topics", None),
                                   ("POST", "/topics/t",
                                    {"records": [{"value": 1}]}),
                                   ("POST", "/consumers/g", {}),
                                   ("GET", "/v1/groups", None),
                                   ("GET", "/", None)]:
            status, out, res = srv.request(method, path, body,
                                           JSON_V2 if body else V2)
            check(status == 401
                  and res.getheader("WWW-Authenticate")
                  == 'Basic realm="troupe"'
                  and out["error_code"] == 40101,
                  "%s %s without credentials: 401, WWW-Authenticate Basic, "
                  "error_code 40101 (%r)" % (method, path, out))
        status, out, _ = srv.request("GET", "/topics",
                                     auth=basic("nobody", "x"))
        check(status == 401 and out["error_code"] == 40101,
              "an unknown user: 401")
        status, _, _ = srv.request("GET", "/topics", auth="Bearer wrong")
        check(status == 401, "a wrong admin token: 401")
        status, _, _ = srv.request("GET", "/topics", auth="Basic !!!")
        check(status == 401, "a malformed Basic header: 401")
        status, _, _ = srv.request("GET", "/healthz")
        check(status == 200, "/healthz stays open")
        ws = WebSocket(srv)
        check(ws.status == 401 and 'Basic realm="troupe"' in ws.head,
              "a WebSocket upgrade without credentials: 401")
        ws.close()
    finally:
        srv.stop()


def case_basic(binary, pki):
    srv = Server(binary, pki, secured({
        "troupe.http.ssl.keystore.location": pki.server_pem,
        "allow.everyone.if.no.acl.found": "true",
        # A PLAIN user of a listener's JAAS config (Kafka's property).
        "listener.name.plaintext.plain.sasl.jaas.config":
            "org.apache.kafka.common.security.plain.PlainLoginModule "
            'required user_dave="dave-secret";'}))
    try:
        add_scram_user(srv.kafka, "alice", "alice-secret", mechanism=1)
        add_scram_user(srv.kafka, "carol", "carol-secret", mechanism=2,
                       iterations=8192)
        for user, pw in [("alice", "alice-secret"), ("carol", "carol-secret")]:
            status, topics, _ = srv.request("GET", "/topics",
                                            auth=basic(user, pw))
            check(status == 200 and isinstance(topics, list),
                  "Basic %s against its SCRAM credential: 200" % user)
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("dave", "dave-secret"))
        check(status == 200, "Basic dave against the listener's PLAIN user")
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("dave", "dave-wrong"))
        check(status == 401, "dave with a wrong password: 401")
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("alice", "wrong"))
        check(status == 401, "alice with a wrong password: 401")
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("alice", "wrong"))
        check(status == 401, "the same wrong password again: 401 (a failure "
              "is never cached as a success)")
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("alice", "alice-secret"))
        check(status == 200, "alice again (a wrong password is not cached)")
        # Keep-alive: the PBKDF2 is paid once, not per request.
        conn = srv.connection()
        t0 = time.time()
        for _ in range(50):
            status = srv.request("GET", "/v1/brokers", conn=conn,
                                 auth=basic("carol", "carol-secret"))[0]
            assert status == 200
        took = time.time() - t0
        conn.close()
        check(took < 5, "50 authenticated keep-alive requests in %.2f s" % took)
        # A changed password takes effect at once.
        add_scram_user(srv.kafka, "alice", "new-secret", mechanism=1)
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("alice", "alice-secret"))
        check(status == 401, "alice's old password after a change: 401")
        status, _, _ = srv.request("GET", "/topics",
                                   auth=basic("alice", "new-secret"))
        check(status == 200, "alice's new password: 200")
        status, _, _ = srv.request("GET", "/topics", auth="Bearer " + TOKEN)
        check(status == 200, "the admin token authenticates too")
        status, body, _ = srv.request("GET", "/",
                                      auth=basic("alice", "new-secret"))
        check(status == 200 and "<html" in body.lower(),
              "the dashboard with Basic credentials")
    finally:
        srv.stop()


def case_produce_denied(binary, pki):
    srv = Server(binary, pki, secured({
        "troupe.http.ssl.keystore.location": pki.server_pem}))
    try:
        srv.admin("POST", "/v1/topics", {"name": "orders", "partitions": 1,
                                         "replication_factor": 1},
                  "application/json")
        add_scram_user(srv.kafka, "alice", "alice-pw")
        add_scram_user(srv.kafka, "bob", "bob-pw")
        add_acls(srv.kafka, [("TOPIC", "orders", "User:alice", "WRITE"),
                             ("TOPIC", "orders", "User:bob", "DESCRIBE")])
        status, out, _ = srv.request(
            "POST", "/topics/orders", {"records": [{"value": {"n": 1}}]},
            JSON_V2, auth=basic("bob", "bob-pw"))
        check(status == 403 and out["error_code"] == 40301
              and out["kafka_error_code"] == 29
              and out["error_name"] == "TOPIC_AUTHORIZATION_FAILED"
              and "orders" in out["message"],
              "bob's produce without WRITE: 403 TOPIC_AUTHORIZATION_FAILED "
              "(%r)" % (out,))
        off = srv.admin("GET", "/topics/orders/partitions/0/offsets")
        check(off["end_offset"] == 0, "bob's denied produce wrote nothing")
        status, out, _ = srv.request(
            "POST", "/topics/orders", {"records": [{"value": {"n": 2}}]},
            JSON_V2, auth=basic("alice", "alice-pw"))
        check(status == 200 and out["offsets"][0]["offset"] == 0,
              "alice, with WRITE, produces")
        off = srv.admin("GET", "/topics/orders/partitions/0/offsets")
        check(off["end_offset"] == 1, "exactly alice's record is there")
        status, topics, _ = srv.request("GET", "/topics",
                                        auth=basic("bob", "bob-pw"))
        check(status == 200 and topics == ["orders"],
              "GET /topics lists what bob may DESCRIBE")
        srv.admin("POST", "/v1/topics", {"name": "hidden", "partitions": 1,
                                         "replication_factor": 1},
                  "application/json")
        status, topics, _ = srv.request("GET", "/topics",
                                        auth=basic("bob", "bob-pw"))
        check(status == 200 and "hidden" not in topics,
              "a topic bob may not DESCRIBE is left out: %r" % (topics,))
        status, out, _ = srv.request("GET", "/topics/hidden",
                                     auth=basic("bob", "bob-pw"))
        check(status == 403 and out["kafka_error_code"] == 29,
              "GET /topics/hidden: 403")
        status, out, _ = srv.request("GET", "/v1/partitions",
                                     auth=basic("bob", "bob-pw"))
        seen = sorted({p["topic"] for p in out["partitions"]})
        check(status == 200 and seen == ["orders"],
              "GET /v1/partitions hides what bob may not DESCRIBE: %r"
              % (seen,))
        status, out, _ = srv.request("POST", "/consumers/g1", {},
                                     auth=basic("alice", "alice-pw"))
        check(status == 403 and out["kafka_error_code"] == 30
              and out["error_name"] == "GROUP_AUTHORIZATION_FAILED",
              "a consumer instance without READ on the group: 403 "
              "GROUP_AUTHORIZATION_FAILED")
        status, out, _ = srv.request(
            "POST", "/v1/topics", {"name": "x", "partitions": 1},
            "application/json", auth=basic("alice", "alice-pw"))
        check(status == 403 and out["kafka_error_code"] == 29,
              "creating a topic without CREATE: 403")
        status, out, _ = srv.request("POST", "/v1/brokers/1/stop", None,
                                     auth=basic("alice", "alice-pw"))
        check(status == 403 and out["kafka_error_code"] == 31,
              "stopping a broker without CLUSTER ALTER: 403 "
              "CLUSTER_AUTHORIZATION_FAILED")
    finally:
        srv.stop()


def case_wss(binary, pki):
    srv = Server(binary, pki, secured({
        "troupe.http.ssl.keystore.location": pki.server_pem}))
    try:
        srv.admin("POST", "/v1/topics", {"name": "events", "partitions": 2,
                                         "replication_factor": 1},
                  "application/json")
        add_scram_user(srv.kafka, "alice", "alice-pw")
        add_scram_user(srv.kafka, "bob", "bob-pw")
        add_acls(srv.kafka, [("GROUP", "wg", "User:alice", "READ"),
                             ("TOPIC", "events", "User:alice", "READ"),
                             ("TOPIC", "events", "User:bob", "READ")])
        ws = WebSocket(srv, auth=basic("alice", "alice-pw"))
        check(ws.status == 101, "wss upgrade with alice's Basic credentials")
        ws.send({"type": "join", "group": "wg", "topics": ["events"]})
        evs = ws.events_until(lambda e: e["type"] == "assignment")
        check(any(e["type"] == "joined" for e in evs),
              "alice joins group wg over wss and gets her assignment")
        ws.close()
        ws = WebSocket(srv, auth=basic("bob", "bob-pw"))
        ws.send({"type": "join", "group": "wg", "topics": ["events"]})
        evs = ws.events_until(lambda e: e["type"] in ("error", "__close__"))
        check(evs[-1].get("error_name") == "GROUP_AUTHORIZATION_FAILED",
              "bob, without READ on wg, is refused: %r" % (evs[-1],))
        ws.close()
        ws = WebSocket(srv, auth=basic("alice", "nope"))
        check(ws.status == 401, "a wss upgrade with a wrong password: 401")
        ws.close()
    finally:
        srv.stop()


def case_browser(binary, pki):
    """The dashboard over HTTPS in headless Chromium with Basic credentials
    (in the URL, as a user would type them at the browser's prompt): the
    page's calls and its wss socket carry them."""
    import urllib.request
    from gateway_e2e import WebSocket as PlainWebSocket
    srv = Server(binary, pki, {
        "troupe.http.ssl.enable": "true",
        "troupe.http.ssl.keystore.type": "PEM",
        "troupe.http.ssl.keystore.location": pki.server_pem,
        "troupe.http.auth": "basic"})
    profile = tempfile.mkdtemp(prefix="troupe-chromium-")
    browser = None
    try:
        add_scram_user(srv.kafka, "alice", "alice-pw")
        devtools = free_port()
        browser = subprocess.Popen(
            [shutil.which("chromium"), "--headless", "--no-sandbox",
             "--disable-gpu", "--no-first-run", "--user-data-dir=" + profile,
             # The test CA is not in Chromium's store.
             "--ignore-certificate-errors",
             "--remote-debugging-port=%d" % devtools,
             "https://alice:alice-pw@127.0.0.1:%d/" % srv.port],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=die_with_parent())
        url = None
        deadline = time.time() + 30
        while not url and time.time() < deadline:
            try:
                with urllib.request.urlopen(
                        "http://127.0.0.1:%d/json/list" % devtools,
                        timeout=2) as r:
                    url = next((t["webSocketDebuggerUrl"] for t in json.load(r)
                                if t.get("type") == "page"), None)
            except OSError:
                time.sleep(0.2)
        check(url is not None, "chromium's DevTools endpoint")
        cdp = PlainWebSocket(devtools, "/" + url.split("/", 3)[3])
        state = None
        deadline = time.time() + 30
        n = 0
        while time.time() < deadline and state != "live":
            n += 1
            cdp.send({"id": n, "method": "Runtime.evaluate", "params": {
                "expression": "(document.querySelector('#conn') || {})"
                              ".textContent || ''", "returnByValue": True}})
            msg = cdp.recv(5)
            while msg and msg.get("id") != n:
                msg = cdp.recv(5)
            state = msg and msg["result"]["result"].get("value")
            time.sleep(0.3)
        check(state == "live", "the dashboard's wss socket is open with the "
              "page's Basic credentials (%r)" % state)
        cdp.close()
    finally:
        if browser:
            browser.kill()
            browser.wait()
        shutil.rmtree(profile, ignore_errors=True)
        srv.stop()


CASES = {
    "https": case_https,
    "unauthenticated": case_unauthenticated,
    "basic": case_basic,
    "produce_denied": case_produce_denied,
    "wss": case_wss,
    "browser": case_browser,
}


def main():
    binary, case = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="troupe-https-pki-")
    try:
        pki = make_pki(work)
        CASES[case](binary, pki)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("passed:", case)


if __name__ == "__main__":
    main()
