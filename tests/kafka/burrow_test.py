#!/usr/bin/python3
"""Burrow 1.2.1 (Debian's `burrow`, LinkedIn's consumer-lag monitor) against
`troupe serve`.

    burrow_test.py TROUPE BURROW KAFKA_VERSION

KAFKA_VERSION is Burrow's client-profile kafka-version (0.10.2 or 2.1.0:
the sarama protocol level; Burrow sends Metadata v1 or v5 and, at every
level, ListOffsets v0 for the end offsets).

The test starts Debian's ZooKeeper (tests/zookeeper/zk_server.sh, for
Burrow's own coordination), troupe on free ports, and Burrow with a TOML
configuration in a temporary directory: one cluster module (class kafka)
on troupe's bootstrap, one consumer module (class kafka) reading
__consumer_offsets, an HTTP server on a free port.

Checks (the issue's requirement):
  1. GET /v3/kafka/troupe/topic lists the topic;
  2. GET /v3/kafka/troupe/topic/<topic> gives each partition's end offset,
     as many as were produced to it, within 30 s;
  3. after more records, the offsets follow.
Reported, not asserted (Burrow's reading of __consumer_offsets belongs to
the offsets-topic format work): whether /v3/kafka/troupe/consumer lists
the group that committed, and its lag.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
from children import die_with_parent  # noqa: E402
from troupe_serve import TroupeServe  # noqa: E402

import confluent_kafka  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

ZK_SH = os.path.join(ROOT, "tests", "zookeeper", "zk_server.sh")
CLUSTER = "troupe"
TOPIC = "burrow-watched"
GROUP = "burrow-watched-group"
COUNTS = [5, 7, 11]  # records produced to partitions 0, 1, 2


def fail(msg):
    raise AssertionError(msg)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class ZooKeeper:
    """zk_server.sh's server in DIR; a reaper process kills it when this
    test dies before its cleanup (the server runs in its own session)."""

    def __init__(self, dir):
        self.dir = dir
        self.reaper = None

    def start(self):
        r = subprocess.run([ZK_SH, "start", self.dir], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=40)
        if r.returncode != 0:
            fail("ZooKeeper did not start: " + r.stderr.strip())
        self.connect = r.stdout.strip().splitlines()[-1]
        with open(os.path.join(self.dir, "zookeeper.pid")) as f:
            pid = int(f.read())
        # Reads its stdin until this process is gone, then kills the server.
        self.reaper = subprocess.Popen(
            [sys.executable, "-c",
             "import os, sys\nsys.stdin.read()\n"
             "try:\n    os.kill(%d, 9)\nexcept OSError:\n    pass\n" % pid],
            stdin=subprocess.PIPE)
        return self.connect

    def stop(self):
        subprocess.run([ZK_SH, "stop", self.dir], timeout=30)
        if self.reaper is not None:
            self.reaper.stdin.close()
            self.reaper.wait(timeout=10)
            self.reaper = None


BURROW_TOML = """\
[general]
pidfile="{dir}/burrow.pid"

[logging]
filename="{dir}/burrow.log"
level="debug"

[zookeeper]
servers=["{zk}"]
timeout=6
root-path="/burrow"

[client-profile.troupe]
client-id="burrow-troupe"
kafka-version="{kafka_version}"

[cluster.{cluster}]
class-name="kafka"
servers=[{servers}]
client-profile="troupe"
topic-refresh=1
offset-refresh=1

[consumer.{cluster}]
class-name="kafka"
cluster="{cluster}"
servers=[{servers}]
client-profile="troupe"
offsets-topic="__consumer_offsets"
start-latest=false
group-whitelist=""

[httpserver.default]
address="127.0.0.1:{http_port}"

[storage.default]
class-name="inmemory"
workers=4
intervals=10
expire-group=604800
min-distance=1
"""


def get(port, path):
    """(status, JSON body or text) of an HTTP GET to Burrow."""
    url = "http://127.0.0.1:%d%s" % (port, path)
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            body = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        status = e.code
    except (urllib.error.URLError, OSError) as e:
        return None, str(e)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, body


def await_offsets(port, expected, what, timeout=30):
    path = "/v3/kafka/%s/topic/%s" % (CLUSTER, TOPIC)
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        status, body = get(port, path)
        last = (status, body)
        if status == 200 and isinstance(body, dict) and \
                body.get("offsets") == expected:
            print("ok: %s: GET %s -> offsets %s" % (what, path,
                                                    body["offsets"]))
            return
        time.sleep(0.25)
    fail("%s: GET %s never gave offsets %s within %d s; last answer: %s"
         % (what, path, expected, timeout, last))


def produce(bootstrap, counts, tag):
    p = confluent_kafka.Producer({"bootstrap.servers": bootstrap,
                                  "acks": "all"})
    errors = []

    def report(err, msg):
        if err is not None:
            errors.append(err)
    for part, n in enumerate(counts):
        for i in range(n):
            p.produce(TOPIC, key=b"k%d" % i, value=b"%s-%d-%d" % (
                tag.encode(), part, i), partition=part, on_delivery=report)
    left = p.flush(20)
    if left or errors:
        fail("producing: %d undelivered, errors %s" % (left, errors[:3]))


def commit_group(bootstrap, offsets):
    """A consumer of GROUP commits the given offsets (one per partition)."""
    c = confluent_kafka.Consumer({"bootstrap.servers": bootstrap,
                                  "group.id": GROUP,
                                  "enable.auto.commit": False})
    try:
        tps = [confluent_kafka.TopicPartition(TOPIC, p, o)
               for p, o in enumerate(offsets)]
        c.commit(offsets=tps, asynchronous=False)
    finally:
        c.close()


def show_tail(path, title, lines=40):
    try:
        with open(path, errors="replace") as f:
            tail = f.readlines()[-lines:]
    except OSError:
        return
    print("--- %s (tail)" % title)
    sys.stdout.writelines(tail)
    sys.stdout.flush()


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    troupe, burrow, kafka_version = sys.argv[1:]
    dir = tempfile.mkdtemp(prefix="troupe-burrow-")
    zk = ZooKeeper(os.path.join(dir, "zookeeper"))
    srv = TroupeServe(troupe, prefix="troupe-burrow-serve-")
    burrow_proc = None
    failed = True
    try:
        zk_connect = zk.start()
        print("ok: ZooKeeper for Burrow at %s" % zk_connect)
        srv.start()
        bootstrap = srv.bootstrap()
        admin = AdminClient({"bootstrap.servers": bootstrap})
        fut = admin.create_topics([NewTopic(TOPIC, len(COUNTS), 3)])
        fut[TOPIC].result(20)
        produce(bootstrap, COUNTS, "a")
        commit_group(bootstrap, [2, 3, 4])
        print("ok: produced %s records to partitions 0..2, group %s "
              "committed [2, 3, 4]" % (COUNTS, GROUP))

        http_port = free_port()
        conf_dir = os.path.join(dir, "burrow")
        os.makedirs(conf_dir)
        servers = ",".join('"%s"' % s for s in bootstrap.split(","))
        with open(os.path.join(conf_dir, "burrow.toml"), "w") as f:
            f.write(BURROW_TOML.format(dir=conf_dir, zk=zk_connect,
                                       kafka_version=kafka_version,
                                       cluster=CLUSTER, servers=servers,
                                       http_port=http_port))
        out = open(os.path.join(conf_dir, "burrow.out"), "w")
        burrow_proc = subprocess.Popen([burrow, "-config-dir", conf_dir],
                                       cwd=conf_dir, stdout=out,
                                       stderr=subprocess.STDOUT,
                                       preexec_fn=die_with_parent())
        deadline = time.time() + 20
        while True:
            if burrow_proc.poll() is not None:
                fail("Burrow exited with %d" % burrow_proc.returncode)
            status, body = get(http_port, "/burrow/admin")
            if status == 200:
                break
            if time.time() > deadline:
                fail("Burrow's HTTP server did not answer within 20 s: %s"
                     % body)
            time.sleep(0.2)
        print("ok: Burrow 1.2.1 (kafka-version %s) serves HTTP on %d"
              % (kafka_version, http_port))

        deadline = time.time() + 30
        while True:
            status, body = get(http_port, "/v3/kafka/%s/topic" % CLUSTER)
            if status == 200 and TOPIC in body.get("topics", []):
                print("ok: GET /v3/kafka/%s/topic lists %s" % (CLUSTER,
                                                                TOPIC))
                break
            if time.time() > deadline:
                fail("GET /v3/kafka/%s/topic never listed %s within 30 s: "
                     "%s %s" % (CLUSTER, TOPIC, status, body))
            time.sleep(0.25)
        await_offsets(http_port, COUNTS,
                      "Burrow lists the end offsets from troupe")
        produce(bootstrap, [3, 0, 1], "b")
        await_offsets(http_port, [8, 7, 12],
                      "after 3 and 1 more records, Burrow's offsets follow")

        # Reported only: the group's committed offsets and lag as Burrow
        # read them from __consumer_offsets.
        seen = None
        deadline = time.time() + 10
        while time.time() < deadline:
            status, body = get(http_port, "/v3/kafka/%s/consumer" % CLUSTER)
            if status == 200 and GROUP in body.get("consumers", []):
                seen = body["consumers"]
                break
            time.sleep(0.5)
        if seen is None:
            print("note: Burrow did not list group %s from "
                  "__consumer_offsets within 10 s (last: %s %s)"
                  % (GROUP, status, body))
        else:
            status, body = get(http_port, "/v3/kafka/%s/consumer/%s/lag"
                               % (CLUSTER, GROUP))
            lags = None
            if status == 200 and isinstance(body, dict):
                lags = [(p.get("partition"), (p.get("end") or {}).get(
                    "offset"), p.get("current_lag"))
                    for p in body.get("status", {}).get("partitions", [])]
            print("note: Burrow lists group %s from __consumer_offsets; "
                  "lag per partition (partition, committed, lag): %s"
                  % (GROUP, lags if lags is not None else body))
        failed = False
    except AssertionError as e:
        print("FAIL: %s" % e)
    finally:
        if burrow_proc is not None:
            if burrow_proc.poll() is None:
                burrow_proc.send_signal(signal.SIGTERM)
                try:
                    burrow_proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    burrow_proc.kill()
                    burrow_proc.wait()
            if failed:
                show_tail(os.path.join(dir, "burrow", "burrow.log"),
                          "Burrow's log")
                show_tail(os.path.join(dir, "burrow", "burrow.out"),
                          "Burrow's output", 20)
        srv.cleanup(failed=failed)
        zk.stop()
        if os.environ.get("KEEP_LOGS"):
            print("logs in", dir)
        else:
            shutil.rmtree(dir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
