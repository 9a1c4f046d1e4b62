#!/usr/bin/env python3
"""End-to-end tests of troupe's HTTP/WebSocket gateway against a real
`troupe serve` (python3 standard library only).

    gateway_e2e.py TROUPE_BINARY CASE

CASE is one of: rest, v2, rebalance, expiry, bad, ws, browser. Each case
starts its own server on free ports with a temporary log.dirs and stops it
after. The servers run with troupe.http.admin.enable=true, except where a
case sets an admin token (bad, browser); expiry's has a short
consumer.instance.timeout.ms.
"""

import base64
import http.client
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402

V2 = "application/vnd.kafka.v2+json"
JSON_V2 = "application/vnd.kafka.json.v2+json"
BINARY_V2 = "application/vnd.kafka.binary.v2+json"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    def __init__(self, binary, token=None, extra=()):
        self.token = token
        self.binary = binary
        admin = (["--override", "troupe.http.admin.token=" + token] if token
                 else ["--override", "troupe.http.admin.enable=true"])
        extra = [*admin, *extra]
        self.dir = tempfile.mkdtemp(prefix="troupe-http-")
        self.port = free_port()
        kafka = free_port_range(3)
        self.log = open(os.path.join(self.dir, "troupe.log"), "w")
        self.proc = subprocess.Popen(
            [binary, "serve", "--http-port", str(self.port),
             "--http-body-limit", "65536",
             "--override", "log.dirs=" + os.path.join(self.dir, "logs"),
             "--override", "port=%d" % kafka,
             "--override", "group.initial.rebalance.delay.ms=0",
             "--log-level", "info", *extra],
            stdout=self.log, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent())
        # Ready means our process answers: it is still running (a server
        # that failed to bind exits) and /healthz on its port says 200.
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                if self.request("GET", "/healthz", timeout=2)[0] == 200:
                    if self.proc.poll() is None:
                        return
                    break
            except OSError:
                time.sleep(0.1)
        rc = self.proc.poll()
        self.log.flush()
        with open(os.path.join(self.dir, "troupe.log")) as f:
            tail = f.read()[-3000:]
        self.stop()
        raise RuntimeError("troupe serve did not come up (%s):\n%s" % (
            "exit code %d" % rc if rc is not None else "no answer in 30 s",
            tail))

    def request(self, method, path, body=None, ctype=V2, raw=None,
                headers=None, timeout=40, token=True, full=False):
        conn = http.client.HTTPConnection("127.0.0.1", self.port,
                                          timeout=timeout)
        data = raw if raw is not None else (
            json.dumps(body) if body is not None else None)
        hdrs = dict(headers or {})
        if data is not None and ctype:
            hdrs["Content-Type"] = ctype
        if self.token and token and "Authorization" not in hdrs:
            hdrs["Authorization"] = "Bearer " + self.token
        conn.request(method, path, body=data, headers=hdrs)
        res = conn.getresponse()
        text = res.read().decode()
        conn.close()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text
        if full:
            return res.status, parsed, res.getheader("Content-Type")
        return res.status, parsed

    def ok(self, method, path, body=None, ctype=V2, expect=(200, 204),
           headers=None):
        status, res = self.request(method, path, body, ctype, headers=headers)
        if status not in expect:
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


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what.split(" -> ")[0] if " -> " in what else what)


def wait_for(what, fn, timeout=40, interval=0.2):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("timed out waiting for " + what + ": " + repr(last))


# -- a tiny WebSocket client -------------------------------------------------------

class WebSocket:
    def __init__(self, port, path="/v1/ws"):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((
            "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n" % (path, port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("closed during handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(head.decode())
        self.buf = b""
        self.closed = None  # (code, reason) once a close frame arrived

    def send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send(self, obj):
        text = obj if isinstance(obj, str) else json.dumps(obj)
        self.send_frame(0x1, text.encode())

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("socket closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self, timeout):
        """Next text message as JSON, or None after `timeout` seconds."""
        self.sock.settimeout(timeout)
        try:
            while True:
                b0, b1 = self._read(2)
                opcode, n = b0 & 0x0F, b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", self._read(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self._read(8))[0]
                payload = self._read(n)
                if opcode == 0x9:
                    self.send_frame(0xA, payload)
                elif opcode == 0x8:
                    code = struct.unpack(">H", payload[:2])[0] if n >= 2 else 0
                    self.closed = (code, payload[2:].decode(errors="replace"))
                    return None
                elif opcode == 0x1:
                    return json.loads(payload.decode())
        except socket.timeout:
            return None

    def close(self):
        try:
            self.send_frame(0x8, struct.pack(">H", 1000))
        except OSError:
            pass
        self.sock.close()


class Member:
    """A WebSocket group member that heartbeats while it waits."""

    def __init__(self, port, group, topics, name, session_timeout_ms=10000):
        self.ws = WebSocket(port)
        self.events = []
        self.ws.send({"type": "join", "group": group, "topics": topics,
                      "session_timeout_ms": session_timeout_ms,
                      "client_id": name})
        self.last_beat = time.time()

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if time.time() - self.last_beat > 1:
                self.ws.send({"type": "heartbeat"})
                self.last_beat = time.time()
            ev = self.ws.recv(0.2)
            if ev:
                self.events.append(ev)

    def wait(self, what, fn, timeout=40, others=()):
        end = time.time() + timeout
        while time.time() < end:
            self.pump(0.2)
            for o in others:
                o.pump(0.05)
            if fn(self.events):
                return
        raise AssertionError("timed out waiting for " + what + ": "
                             + json.dumps(self.events))


def partitions_of(ev):
    return sorted((t["topic"], p) for t in ev.get("partitions", [])
                  for p in t.get("partitions", []))


# -- cases ----------------------------------------------------------------------------

def setup_topic(srv, name, partitions=4, records=0):
    srv.ok("POST", "/v1/topics",
           {"name": name, "partitions": partitions,
            "replication_factor": 3}, expect=(201,))
    if records:
        res = srv.ok("POST", "/topics/" + name,
                     {"records": [{"key": "k%d" % i, "value": {"n": i}}
                                  for i in range(records)]},
                     ctype=JSON_V2)
        check(len(res["offsets"]) == records
              and all(o["error_code"] is None and o["offset"] >= 0
                      for o in res["offsets"]),
              "produce returns one offset per record")


def new_instance(srv, group, name, **props):
    body = {"name": name, "format": "json", "auto.offset.reset": "earliest",
            "auto.commit.enable": "false", "session.timeout.ms": "6000",
            "heartbeat.interval.ms": "1000"}
    body.update(props)
    res = srv.ok("POST", "/consumers/" + group, body)
    check(res["instance_id"] == name and res["base_uri"].endswith(
        "/consumers/%s/instances/%s" % (group, name)),
        "create consumer instance %s in %s" % (name, group))
    base = "/consumers/%s/instances/%s" % (group, name)
    srv.ok("POST", base + "/subscription", {"topics": ["orders"]})
    return base


def assigned(srv, base):
    res = srv.ok("GET", base + "/assignments")
    return sorted(p["partition"] for p in res["partitions"])


def case_rest(srv):
    setup_topic(srv, "orders", 4, 20)
    topics = srv.ok("GET", "/topics")
    check("orders" in topics, "GET /topics lists the topic")
    parts = srv.ok("GET", "/topics/orders/partitions")
    check(len(parts) == 4 and all(len(p["replicas"]) == 3 for p in parts),
          "GET /topics/orders/partitions shows 4 partitions x 3 replicas")
    topic = srv.ok("GET", "/topics/orders")
    configs = topic.get("configs", {})
    check(topic["name"] == "orders" and len(topic["partitions"]) == 4
          and configs.get("cleanup.policy") == "delete"
          and configs.get("retention.ms") == "604800000"
          and configs.get("segment.bytes") == "1073741824",
          "GET /topics/orders shows the topic's configs (the broker's "
          "defaults without overrides) and its partitions -> %s" % configs)
    base = new_instance(srv, "g1", "c1")
    got = {}

    def poll():
        for r in srv.ok("GET", base + "/records?timeout=1000"):
            got[(r["partition"], r["offset"])] = r
        return len(got) >= 20
    wait_for("20 records through the consumer instance", poll, 60, 0)
    check(sorted(r["value"]["n"] for r in got.values()) == list(range(20)),
          "every produced record is consumed once, values intact")
    check(all(r["key"].startswith("k") for r in got.values()),
          "keys come back")
    last = {}
    for (p, o) in got:
        last[p] = max(last.get(p, -1), o)
    srv.ok("POST", base + "/offsets",
           {"offsets": [{"topic": "orders", "partition": p, "offset": o}
                        for p, o in last.items()]})
    g = srv.ok("GET", "/v1/groups/g1")
    check(g["state"] == "Stable" and len(g["members"]) == 1
          and g["generation"] >= 1, "GET /v1/groups/g1 describes the group")
    lag = {l["partition"]: l for l in g["lag"]}
    check(all(lag[p]["committed"] == o + 1 and lag[p]["lag"] == 0
              for p, o in last.items()),
          "commit stores offset + 1; lag is 0 after the commit")
    groups = srv.ok("GET", "/v1/groups")
    check(any(x["group_id"] == "g1" for x in groups["groups"]),
          "GET /v1/groups lists g1")
    # More records arrive while a poll waits (long-poll).
    srv.ok("POST", "/topics/orders", {"records": [{"value": "late"}]},
           ctype=JSON_V2)
    recs = wait_for("the late record", lambda: srv.ok(
        "GET", base + "/records?timeout=2000"), 20, 0)
    check(recs[0]["value"] == "late", "a later record is polled")
    srv.ok("DELETE", base)
    status, body = srv.request("GET", base + "/records")
    check(status == 404 and body["error_code"] == 40403,
          "a deleted instance is gone (40403)")
    parts = srv.ok("GET", "/v1/partitions?topic=orders")["partitions"]
    check(sum(p["high_watermark"] for p in parts) == 21
          and all(sorted(p["isr"]) == [0, 1, 2] for p in parts),
          "GET /v1/partitions shows HW and ISR")
    brokers = srv.ok("GET", "/v1/brokers")["brokers"]
    check(len(brokers) == 3 and all(b["alive"] for b in brokers),
          "GET /v1/brokers shows three live brokers")
    metrics = srv.request("GET", "/metrics")[1]
    check("troupe_rebalances_total" in metrics
          and 'troupe_http_requests_total{route="GET /topics/{topic}/'
          'partitions"' in metrics, "/metrics in Prometheus text format")


def case_rebalance(srv):
    setup_topic(srv, "orders", 4)
    a = new_instance(srv, "g2", "a")
    b = new_instance(srv, "g2", "b")

    def split():
        srv.request("GET", a + "/records?timeout=100")
        srv.request("GET", b + "/records?timeout=100")
        x, y = assigned(srv, a), assigned(srv, b)
        return x and y and sorted(x + y) == [0, 1, 2, 3] and (x, y)
    x, y = wait_for("two instances to split the partitions", split, 60)
    check(len(x) == 2 and len(y) == 2,
          "two instances split 4 partitions 2/2: %s %s" % (x, y))
    srv.ok("DELETE", a)
    wait_for("b to take over every partition", lambda: (
        srv.request("GET", b + "/records?timeout=100"),
        assigned(srv, b) == [0, 1, 2, 3])[1], 60)
    check(True, "the remaining instance takes over when the other is "
                "deleted")
    # Stops polling: its consumer leaves after max.poll.interval.ms, as the
    # Java consumer does; the instance stays (consumer.instance.timeout.ms
    # is 5 minutes here).
    c = new_instance(srv, "g2", "c", **{"max.poll.interval.ms": "6000"})
    wait_for("c to get partitions", lambda: (
        srv.request("GET", b + "/records?timeout=100"),
        srv.request("GET", c + "/records?timeout=100"),
        assigned(srv, c))[2], 60)
    t0 = time.time()
    wait_for("b to take over after c stops polling", lambda: (
        srv.request("GET", b + "/records?timeout=200"),
        assigned(srv, b) == [0, 1, 2, 3])[1], 60)
    check(time.time() - t0 >= 4,
          "an instance not polled within max.poll.interval.ms leaves "
          "(after %.1f s)" % (time.time() - t0))
    check(assigned(srv, c) == [],
          "the instance that left is still there and owns nothing")
    wait_for("c to rejoin", lambda: (
        srv.request("GET", b + "/records?timeout=100"),
        srv.request("GET", c + "/records?timeout=100"),
        assigned(srv, c))[2], 60)
    check(len(assigned(srv, b)) < 4, "its next poll rejoins the group")


INSTANCE_TIMEOUT_MS = 4000


def case_expiry(srv):
    """consumer.instance.timeout.ms=4000, set with --override: an instance
    that gets no request for 4 s leaves its group and is deleted; requests
    2 s apart keep it."""
    bad = subprocess.run(
        [srv.binary, "serve", "--http-port", "0",
         "--override", "log.dirs=" + os.path.join(srv.dir, "refused"),
         "--override", "port=%d" % free_port_range(3),
         "--override", "consumer.instance.timeout.ms=0"],
        capture_output=True, text=True, timeout=30)
    check(bad.returncode == 2 and "invalid value '0' for "
          "consumer.instance.timeout.ms" in bad.stderr,
          "consumer.instance.timeout.ms=0 is refused at start-up -> %d %s"
          % (bad.returncode, bad.stderr))
    setup_topic(srv, "orders", 2)
    # A session of 20 s: a member that did not leave would still be there
    # long after the instance timed out.
    base = new_instance(srv, "g5", "e", **{"session.timeout.ms": "20000"})
    wait_for("e to get partitions", lambda: (
        srv.request("GET", base + "/records?timeout=100"),
        assigned(srv, base))[1], 60)
    t0 = time.time()
    for route in ("/subscription", "/assignments", "/subscription",
                  "/assignments"):
        time.sleep(INSTANCE_TIMEOUT_MS / 2000)
        status, _ = srv.request("GET", base + route)
        check(status == 200, "GET %s %.1f s after the last poll, 2 s "
              "after the last request, finds it" % (route, time.time() - t0))
    check(len(srv.ok("GET", "/v1/groups/g5").get("members", [])) == 1,
          "it is still a member of g5")
    time.sleep(INSTANCE_TIMEOUT_MS * 1.5 / 1000)
    members = srv.ok("GET", "/v1/groups/g5").get("members", [])
    check(members == [], "after %d ms without a request it left g5 at once "
          "(LeaveGroup, not the 20 s session timeout): %s"
          % (INSTANCE_TIMEOUT_MS, members))
    status, body = srv.request("GET", base + "/records")
    check(status == 404 and body["error_code"] == 40403,
          "and the instance is gone (404, 40403)")


def case_bad(srv):
    """Every error as REST Proxy (or, on /v1, troupe) answers it, each row
    named after the behaviour it checks. The server has an admin token."""
    setup_topic(srv, "orders", 2)
    srv.ok("POST", "/consumers/gb", {"name": "x"})
    inst = "/consumers/gb/instances/x"
    srv.ok("POST", "/consumers/gb", {"name": "j", "format": "json"})
    jinst = "/consumers/gb/instances/j"
    srv.ok("POST", jinst + "/subscription", {"topics": ["orders"]})
    srv.ok("POST", "/consumers/gb", {"name": "asg"})
    asg = "/consumers/gb/instances/asg"
    srv.ok("POST", asg + "/assignments",
           {"partitions": [{"topic": "orders", "partition": 0}]})
    tp0 = '{"partitions": [{"topic": "orders", "partition": 0}]}'
    table = [
        # (behaviour, method, path, raw body, content type, extra headers,
        #  status, error_code)
        ("malformed JSON is 400", "POST", "/topics/orders", "{not json",
         JSON_V2, {}, 400, None),
        ("records that are not a list are 400", "POST", "/topics/orders",
         '{"records": 5}', JSON_V2, {}, 400, None),
        ("an unknown field is 400", "POST", "/topics/orders",
         '{"records": [{"value": 1}], "x": 1}', JSON_V2, {}, 400, None),
        ("a partition that is not a number is 400", "POST", "/topics/orders",
         '{"records": [{"partition": "a"}]}', JSON_V2, {}, 400, None),
        ("a produce without records is 422", "POST", "/topics/orders", "{}",
         JSON_V2, {}, 422, 422),
        ("a produce with an empty records list is 422", "POST",
         "/topics/orders", '{"records": []}', JSON_V2, {}, 422, 422),
        ("a produce Content-Type naming no embedded format is 415", "POST",
         "/topics/orders", '{"records": [{"value": 1}]}', V2, {}, 415, 415),
        ("a produce as text/plain is 415", "POST", "/topics/orders",
         '{"records": [{"value": 1}]}', "text/plain", {}, 415, 415),
        ("a produce in avro (no schema registry) is 415", "POST",
         "/topics/orders", '{"records": [{"value": 1}]}',
         "application/vnd.kafka.avro.v2+json", {}, 415, 415),
        ("binary data that is not a base64 string is 400", "POST",
         "/topics/orders", '{"records": [{"value": {"n": 1}}]}', BINARY_V2,
         {}, 400, None),
        ("binary data that is not valid base64 is 400", "POST",
         "/topics/orders", '{"records": [{"value": "@@@"}]}', BINARY_V2, {},
         400, None),
        ("a produce to an unknown partition is 40402", "POST",
         "/topics/orders", '{"records": [{"value": 1, "partition": 9}]}',
         JSON_V2, {}, 404, 40402),
        ("a produce to an unknown partition by URL is 40402", "POST",
         "/topics/orders/partitions/9", '{"records": [{"value": 1}]}',
         JSON_V2, {}, 404, 40402),
        ("a produce to a topic that cannot exist is 40401", "POST",
         "/topics/nope-" + "x" * 300, '{"records": [{"value": 1}]}', JSON_V2,
         {}, 404, 40401),
        ("an unknown topic is 40401", "GET", "/topics/unknown-topic", None,
         None, {}, 404, 40401),
        ("an unknown partition is 40402", "GET", "/topics/orders/partitions/9",
         None, None, {}, 404, 40402),
        ("offsets of an unknown partition are 40402", "GET",
         "/topics/orders/partitions/9/offsets", None, None, {}, 404, 40402),
        ("an Accept with no v2 type is 406", "GET", "/topics", None, None,
         {"Accept": "text/html"}, 406, 406),
        ("a second instance of one name is 40902", "POST", "/consumers/gb",
         '{"name": "x"}', V2, {}, 409, 40902),
        ("an invalid auto.offset.reset is 42204", "POST", "/consumers/gb",
         '{"auto.offset.reset": "sideways"}', V2, {}, 422, 42204),
        ("an invalid embedded format is 422", "POST", "/consumers/gb",
         '{"format": "xml"}', V2, {}, 422, 422),
        ("a name that is not a string is 400", "POST", "/consumers/gb",
         '{"name": 7}', V2, {}, 400, None),
        ("a misspelt field is 400", "POST", "/consumers/gb", '{"nmae": "y"}',
         V2, {}, 400, None),
        ("a subscription without a body is 422", "POST",
         inst + "/subscription", "", V2, {}, 422, 422),
        ("topics that are not a list are 400", "POST", inst + "/subscription",
         '{"topics": "orders"}', V2, {}, 400, None),
        ("an invalid topic_pattern is 400", "POST", inst + "/subscription",
         '{"topic_pattern": "("}', V2, {}, 400, None),
        ("subscribing while manually assigned is 409 (40903)", "POST",
         asg + "/subscription", '{"topics": ["orders"]}', V2, {}, 409, 40903),
        ("assigning while subscribed is 409 (40903)", "POST",
         jinst + "/assignments", tp0, V2, {}, 409, 40903),
        ("seeking a partition not assigned is 409 (40903)", "POST",
         asg + "/positions",
         '{"offsets": [{"topic": "orders", "partition": 1, "offset": 0}]}',
         V2, {}, 409, 40903),
        ("seeking to the end of a partition not assigned is 409 (40903)",
         "POST", inst + "/positions/end", tp0, V2, {}, 409, 40903),
        ("reading records of an unsubscribed instance is 409 (40903)", "GET",
         inst + "/records", None, None, {}, 409, 40903),
        ("a json instance read as binary is 406 (40601)", "GET",
         jinst + "/records?timeout=10", None, None, {"Accept": BINARY_V2},
         406, 40601),
        ("a binary instance read as json is 406 (40601)", "GET",
         asg + "/records?timeout=10", None, None, {"Accept": JSON_V2}, 406,
         40601),
        ("an offset without its partition is 422", "POST", inst + "/offsets",
         '{"offsets": [{"topic": "orders"}]}', V2, {}, 422, 422),
        ("committed offsets without a partition list are 40402", "GET",
         asg + "/offsets", None, None, {}, 404, 40402),
        ("an unknown instance is 40403", "GET",
         "/consumers/gb/instances/nobody/records", None, None, {}, 404, 40403),
        ("an unknown instance's assignments are 40403", "GET",
         "/consumers/gb/instances/nobody/assignments", None, None, {}, 404,
         40403),
        ("a v1 heartbeat without generation is 400", "POST",
         "/v1/groups/gb/heartbeat", '{"member_id": "m"}', V2, {}, 400, None),
        ("a v1 join without protocols is 400", "POST", "/v1/groups/gb/join",
         '{"session_timeout_ms": 6000}', V2, {}, 400, None),
        ("a v1 sync that is not an object is 400", "POST",
         "/v1/groups/gb/sync", "[]", V2, {}, 400, None),
        ("an unknown route is 404", "GET", "/no/such/route", None, None, {},
         404, 404),
        ("a method a route lacks is 405", "DELETE", "/topics", None, None, {},
         405, 405),
        ("PUT on join is 405", "PUT", "/v1/groups/gb/join", "{}", V2, {},
         405, 405),
        ("GET on join is 405", "GET", "/v1/groups/gb/join", None, None, {},
         405, 405),
        ("a body above the limit is 413", "POST", "/topics/orders",
         '{"records": [{"value": "%s"}]}' % ("x" * 70000), JSON_V2, {}, 413,
         None),
        ("stopping a broker with a wrong token is 401", "POST",
         "/v1/brokers/1/stop", None, None, {"Authorization": "Bearer nope"},
         401, 401),
        ("creating a topic without the token is 401", "POST", "/v1/topics",
         '{"name": "t2"}', V2, {"Authorization": ""}, 401, 401),
    ]
    for what, method, path, raw, ctype, hdrs, status, code in table:
        got, body = srv.request(method, path, raw=raw, ctype=ctype,
                                headers=hdrs or None)
        ok = (got == status and isinstance(body, dict)
              and {"error_code", "error_name", "message"} <= body.keys()
              and (code is None or body["error_code"] == code))
        check(ok, "%s -> %d (%s)" % (what, got, body) if not ok
              else "%s (%s %s => %d)" % (what, method, path[:40], status))
    # Kafka error codes on /v1: a heartbeat from a stranger.
    res = wait_for("the coordinator to load", lambda: (lambda r: r[
        "error_code"] != 14 and r)(srv.ok(
            "POST", "/v1/groups/gb/heartbeat",
            {"generation_id": 1, "member_id": "stranger"})), 20)
    check(res["error_code"] == 25 and res["error_name"] == "UNKNOWN_MEMBER_ID",
          "v1 answers carry Kafka's code and name: %s" % res)
    # A WebSocket that sends garbage is closed with a reason.
    ws = WebSocket(srv.port)
    ws.send("this is not json")
    ev = ws.recv(5)
    check(ev and ev["type"] == "error", "garbage on /v1/ws gets an error "
                                        "event")
    ws.recv(5)
    check(ws.closed is not None and "malformed" in ws.closed[1],
          "... and the socket is closed with a reason: %s" % (ws.closed,))
    ws.sock.close()
    check(srv.request("GET", "/healthz", token=False)[0] == 200,
          "the server lives on; /healthz needs no token")


def case_v2(srv):
    """REST Proxy v2's routes end to end: media types, brokers, partitions,
    both embedded formats, manual assignment and seeks, committed offsets,
    unsubscribe and topic_pattern."""
    setup_topic(srv, "orders", 2)
    status, brokers, ctype = srv.request("GET", "/brokers", full=True)
    check(status == 200 and brokers == {"brokers": [0, 1, 2]}
          and ctype == V2, "GET /brokers lists broker ids as %s" % V2)
    part = srv.ok("GET", "/topics/orders/partitions/1")
    check(part["partition"] == 1 and len(part["replicas"]) == 3
          and sum(r["leader"] for r in part["replicas"]) == 1,
          "GET /topics/{t}/partitions/{p} describes one partition")
    # Binary: base64 keys and values, produced to a partition by URL.
    status, res, ctype = srv.request(
        "POST", "/topics/orders/partitions/0", full=True, ctype=BINARY_V2,
        body={"records": [{"key": "a2V5", "value": "aGVsbG8="},
                          {"value": "d29ybGQ="}]})
    check(status == 200 and ctype == V2
          and [o["partition"] for o in res["offsets"]] == [0, 0]
          and res["key_schema_id"] is None
          and res["value_schema_id"] is None,
          "binary produce answers offsets and null schema ids: %s" % res)
    offs = srv.ok("GET", "/topics/orders/partitions/0/offsets")
    check(offs == {"beginning_offset": 0, "end_offset": 2},
          "partition offsets: beginning and end: %s" % offs)
    srv.ok("POST", "/topics/orders/partitions/1",
           {"records": [{"key": {"id": 1}, "value": {"n": 1}}]},
           ctype=JSON_V2)
    # A binary instance (REST Proxy's default format), manually assigned.
    srv.ok("POST", "/consumers/v2g", {"name": "b",
                                      "auto.offset.reset": "earliest"})
    b = "/consumers/v2g/instances/b"
    srv.ok("POST", b + "/assignments",
           {"partitions": [{"topic": "orders", "partition": 0}]})
    got = srv.ok("GET", b + "/assignments")
    check(got == {"partitions": [{"topic": "orders", "partition": 0}]},
          "GET assignments shows the manual assignment")

    def read(base, accept, n):
        out = []

        def more():
            status, recs, ctype = srv.request(
                "GET", base + "/records?timeout=1000",
                headers={"Accept": accept}, full=True)
            assert status == 200 and ctype == accept, (status, recs, ctype)
            out.extend(recs)
            return len(out) >= n
        wait_for("%d records" % n, more, 30, 0)
        return out
    recs = read(b, BINARY_V2, 2)
    check(recs[0]["key"] == "a2V5" and recs[0]["value"] == "aGVsbG8="
          and recs[1]["key"] is None,
          "binary records round-trip as base64 (%s)" % BINARY_V2)
    srv.ok("POST", b + "/positions",
           {"offsets": [{"topic": "orders", "partition": 0, "offset": 1}]})
    recs = read(b, BINARY_V2, 1)
    check(recs[0]["offset"] == 1, "a seek moves the next read to offset 1")
    srv.ok("POST", b + "/positions/beginning",
           {"partitions": [{"topic": "orders", "partition": 0}]})
    recs = read(b, BINARY_V2, 1)
    check(recs[0]["offset"] == 0, "positions/beginning reads from 0 again")
    srv.ok("POST", b + "/positions/end",
           {"partitions": [{"topic": "orders", "partition": 0}]})
    check(srv.ok("GET", b + "/records?timeout=300",
                 headers={"Accept": BINARY_V2}) == [],
          "positions/end leaves nothing to read")
    res = srv.ok("POST", b + "/offsets",
                 {"offsets": [{"topic": "orders", "partition": 0,
                               "offset": 1}]})
    check(res == [], "a commit answers REST Proxy's empty list")
    status, res = srv.request(
        "GET", b + "/offsets",
        raw='{"partitions": [{"topic": "orders", "partition": 0}]}')
    check(status == 200 and res["offsets"][0]["offset"] == 2,
          "GET offsets with a partition list: committed offset + 1: %s" % res)
    srv.ok("DELETE", b + "/subscription")
    check(srv.ok("GET", b + "/assignments") == {"partitions": []},
          "DELETE subscription drops the assignment too")
    # A json instance subscribed by pattern.
    srv.ok("POST", "/consumers/v2j", {"name": "j", "format": "json",
                                      "auto.offset.reset": "earliest"})
    j = "/consumers/v2j/instances/j"
    srv.ok("POST", j + "/subscription", {"topic_pattern": "ord.*"})
    check(srv.ok("GET", j + "/subscription") == {"topics": ["orders"]},
          "a topic_pattern subscription lists the topics it matches")
    recs = read(j, JSON_V2, 3)
    keyed = [r for r in recs if r["key"] is not None]
    check(any(r["key"] == {"id": 1} and r["value"] == {"n": 1}
              for r in keyed),
          "json records round-trip as JSON (%s)" % JSON_V2)
    srv.ok("DELETE", j)
    srv.ok("DELETE", "/consumers/v2g/instances/b")


def case_ws(srv):
    setup_topic(srv, "orders", 4)
    watcher = WebSocket(srv.port)
    watcher.send({"type": "watch"})
    m1 = Member(srv.port, "w1", ["orders"], "m1")
    m1.wait("m1's first assignment",
            lambda evs: any(e["type"] == "assignment" for e in evs))
    types = [e["type"] for e in m1.events]
    check(types[:2] == ["joined", "assignment"]
          and m1.events[0]["generation"] == 1,
          "a member sees joined(gen 1) then its assignment")
    check(partitions_of(m1.events[1]) == [("orders", p) for p in range(4)],
          "alone, it owns all four partitions")
    m1.events.clear()
    m2 = Member(srv.port, "w1", ["orders"], "m2", session_timeout_ms=30000)
    m1.wait("m1's second assignment",
            lambda evs: any(e["type"] == "assignment" for e in evs),
            others=[m2])
    m2.wait("m2's assignment",
            lambda evs: any(e["type"] == "assignment" for e in evs),
            others=[m1])
    types = [e["type"] for e in m1.events]
    check(types[:3] == ["rebalance", "joined", "assignment"]
          and m1.events[1]["generation"] == 2,
          "a join makes the first member see rebalance, joined(gen 2), "
          "assignment in that order: %s" % types)
    split = partitions_of(m1.events[2]) + partitions_of(
        [e for e in m2.events if e["type"] == "assignment"][-1])
    check(sorted(split) == [("orders", p) for p in range(4)],
          "the two members split the partitions")
    m1.events.clear()
    # m2's session is 30 s: only a LeaveGroup on close lets m1 own
    # everything within the 12 s allowed here (m1 hears of the rebalance
    # with its next heartbeat, a third of its 10 s session).
    t0 = time.time()
    m2.ws.close()
    m1.wait("m1 to own everything again",
            lambda evs: any(e["type"] == "assignment"
                            and len(partitions_of(e)) == 4 for e in evs),
            timeout=12)
    gen3 = [e for e in m1.events if e["type"] == "joined"][-1]["generation"]
    check(gen3 == 3, "closing a socket leaves at once: generation 3 after "
          "%.1f s, m2's session.timeout.ms being 30 s" % (time.time() - t0))
    seen = []
    while True:
        ev = watcher.recv(0.5)
        if not ev:
            break
        seen.append(ev)
    gens = [e["generation"] for e in seen if e["type"] == "group"
            and e["group"] == "w1" and e["to"] == "CompletingRebalance"]
    check(gens == [1, 2, 3], "a watcher sees every generation of w1 in "
                             "order: %s" % gens)
    m1.ws.send({"type": "leave"})
    m1.wait("left", lambda evs: any(e["type"] == "left" for e in evs), 20)
    check(True, "leave over the socket")
    m1.ws.close()
    watcher.close()


def case_browser(srv):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    # configure requires chromium (scripts/setup.sh installs it): a machine
    # without it fails here rather than passing a test it did not run.
    check(chromium is not None, "chromium is installed (Debian: chromium)")
    setup_topic(srv, "orders", 4, 8)
    a = new_instance(srv, "dash", "a")
    wait_for("a to be assigned", lambda: (
        srv.request("GET", a + "/records?timeout=100"), assigned(srv, a))[1])
    profile = tempfile.mkdtemp(prefix="troupe-chromium-")
    devtools = free_port()
    browser = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync",
         "--user-data-dir=" + profile, "--window-size=1400,1000",
         "--remote-debugging-port=%d" % devtools,
         # The admin token in the fragment: the page sends it on its
         # stop/start buttons (and never to the server in the URL).
         "http://127.0.0.1:%d/#token=%s" % (srv.port, srv.token)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent())
    try:
        def page_ws():
            try:
                with urllib.request.urlopen(
                        "http://127.0.0.1:%d/json/list" % devtools,
                        timeout=2) as r:
                    for t in json.load(r):
                        if t.get("type") == "page":
                            return t["webSocketDebuggerUrl"]
            except OSError:
                return None
        url = wait_for("chromium's DevTools endpoint", page_ws, 30)
        path = url.split("/", 3)[3]
        cdp = WebSocket(devtools, "/" + path)
        ids = [0]

        def call(method, **params):
            ids[0] += 1
            cdp.send({"id": ids[0], "method": method, "params": params})
            while True:
                msg = cdp.recv(30)
                if msg is None:
                    raise AssertionError("no answer to " + method)
                if msg.get("id") == ids[0]:
                    return msg.get("result", {})

        def dom_generation():
            res = call("Runtime.evaluate", expression=(
                "(() => { const g = document.querySelector("
                "'[data-group=\"dash\"]'); return g ? "
                "g.dataset.generation + '/' + g.dataset.state : ''; })()"),
                returnByValue=True)
            return res.get("result", {}).get("value", "")
        first = wait_for("the dashboard to show group dash",
                         lambda: dom_generation().endswith("/Stable")
                         and dom_generation(), 30)
        check(first.startswith("1/"),
              "the dashboard shows generation 1: %s" % first)
        b = new_instance(srv, "dash", "b")  # a rebalance, while it watches

        def keep_polling():
            srv.request("GET", a + "/records?timeout=100")
            srv.request("GET", b + "/records?timeout=100")
            v = dom_generation()
            return v.startswith("2/") and v.endswith("/Stable") and v
        second = wait_for("the dashboard to show generation 2", keep_polling,
                          40, 0)
        check(second.startswith("2/"), "after the rebalance the DOM shows "
                                       "generation 2 (live): %s" % second)
        text = call("Runtime.evaluate",
                    expression="document.body.innerText",
                    returnByValue=True)["result"]["value"]
        check("broker 0" in text and "orders" in text
              and "PreparingRebalance" in text,
              "brokers, partitions and the rebalance's transitions are on "
              "the page")
        # The topic view lists the topic's configs (GET /topics/{topic}).
        shown = call("Runtime.evaluate", expression=(
            "(() => { const t = document.querySelector('[data-topic=\"orders\"]');"
            " if (!t) return ''; const c = t.querySelector("
            "'[data-config=\"cleanup.policy\"]'); const r = t.querySelector("
            "'[data-config=\"retention.ms\"]'); return c && r ? "
            "c.textContent + '/' + r.textContent : ''; })()"),
            returnByValue=True)["result"].get("value", "")
        check(shown == "delete/604800000",
              "the dashboard's topic view shows orders' configs "
              "cleanup.policy and retention.ms: %s" % shown)

        def evaluate(js):
            return call("Runtime.evaluate", expression=js,
                        returnByValue=True).get("result", {}).get("value")
        # Stop broker 1 with the page's own button (an admin route: the
        # page sends the token from its URL fragment).
        evaluate("document.querySelector('[data-broker=\"1\"] button')"
                 ".click()")

        def stopped():
            srv.request("GET", a + "/records?timeout=100")
            srv.request("GET", b + "/records?timeout=100")
            return evaluate(
                "(() => { const b = document.querySelector("
                "'.broker[data-broker=\"1\"]'); const off = "
                "document.querySelectorAll('#partitions .replica.offline"
                "[data-broker=\"1\"]').length; const rows = "
                "document.querySelectorAll('#partitions tbody tr').length; "
                "return b && b.classList.contains('dead') && off > 0 "
                "&& off + '/' + rows; })()")
        marked = wait_for("the page to show broker 1 stopped", stopped, 30, 0)
        check(True, "the stop button (with the admin token) stopped broker "
                    "1; %s partition rows mark its replica offline" % marked)
        brokers = srv.ok("GET", "/v1/brokers")["brokers"]
        check([x["alive"] for x in brokers] == [True, False, True],
              "the API agrees: broker 1 is stopped")
        parts = srv.ok("GET", "/v1/partitions?topic=orders")["partitions"]
        check(all(len(p["replicas"]) == 3 for p in parts)
              and all(any(r["broker"] == 1 and r["offline"]
                          for r in p["replicas"]) for p in parts),
              "GET /v1/partitions keeps the full assignment, broker 1's "
              "replicas offline")
        shot = call("Page.captureScreenshot", format="png")
        out = os.environ.get("SCREENSHOT", os.path.join(
            os.getcwd(), "dashboard.png"))
        with open(out, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        check(os.path.getsize(out) > 10000, "screenshot saved to " + out)
        cdp.close()
    finally:
        browser.terminate()
        try:
            browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


CASES = {"rest": case_rest, "v2": case_v2, "rebalance": case_rebalance,
         "expiry": case_expiry, "bad": case_bad, "ws": case_ws,
         "browser": case_browser}

# Cases whose server has an admin token (the others enable admin routes).
TOKENS = {"bad": "s3cret", "browser": "s3cret"}

# Further --override options of a case's server.
OVERRIDES = {"expiry": ["consumer.instance.timeout.ms=%d"
                        % INSTANCE_TIMEOUT_MS]}


def main():
    binary, case = sys.argv[1], sys.argv[2]
    fn = CASES[case]
    extra = [a for o in OVERRIDES.get(case, []) for a in ("--override", o)]
    srv = Server(binary, token=TOKENS.get(case), extra=extra)
    try:
        rc = fn(srv) or 0
    except Exception:
        srv.log.flush()
        with open(os.path.join(srv.dir, "troupe.log")) as f:
            tail = f.read()[-4000:]
        print("---- troupe log tail ----\n" + tail)
        srv.stop()
        raise
    srv.stop()
    return rc


if __name__ == "__main__":
    sys.exit(main())
