#!/usr/bin/python3
"""The same coordinator takeover through a real `troupe serve`.

    takeover_serve.py TROUPE_BINARY BENCH_BINARY [BENCH OPTIONS...]

Runs offsets_takeover_bench with --dir (it leaves DIR/uncompacted/,
DIR/compacted/ and DIR/ideal/, each a __consumer_offsets-0 after 1,000,000
commits by 10,000 groups), then, for each, starts `troupe serve` (one
broker, offsets.topic.num.partitions=1) on a log.dirs whose
__consumer_offsets-0 is that directory, and measures from the process start
and from its ready line (listeners bound) until an OffsetFetch of the last
group (group-09999, topic-99 partition 9) is answered with its committed
offset (909) instead of COORDINATOR_LOAD_IN_PROGRESS: the log opened, the
replica leading, the partition replayed (actors/groups/offsets_load.cpp)
and 10,000 group coordinators spawned (finish_load). One raw OffsetFetch v1
every 2 ms on one connection. Prints a table; everything it made is deleted.
"""

import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "lib"))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402

GROUP, TOPIC, PARTITION, EXPECTED = "group-09999", "topic-99", 9, 909


def start(binary, logs, port, log_path):
    return subprocess.Popen(
        [binary, "serve", "--http-port", "0", "--log-level", "info",
         "--override", "troupe.brokers=1",
         "--override", "offsets.topic.num.partitions=1",
         "--override", "log.dirs=" + logs,
         "--override", "port=%d" % port],
        stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
        preexec_fn=die_with_parent())


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def offset_fetch(sock, correlation):
    """OffsetFetch v1 for GROUP's one partition: (error, offset)."""
    body = (struct.pack(">hhi", 9, 1, correlation) + string("takeover")
            + string(GROUP) + struct.pack(">i", 1) + string(TOPIC)
            + struct.pack(">ii", 1, PARTITION))
    sock.sendall(struct.pack(">i", len(body)) + body)
    size = struct.unpack(">i", recv(sock, 4))[0]
    data = recv(sock, size)
    pos = 4 + 4  # correlation id, topics count
    n = struct.unpack(">h", data[pos:pos + 2])[0]
    pos += 2 + n + 4  # topic name, partitions count
    _, offset = struct.unpack(">iq", data[pos:pos + 12])
    pos += 12
    m = struct.unpack(">h", data[pos:pos + 2])[0]
    pos += 2 + max(m, 0)
    error = struct.unpack(">h", data[pos:pos + 2])[0]
    return error, offset


def recv(sock, n):
    out = b""
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed")
        out += chunk
    return out


def takeover(binary, metadata, partition_dir, work):
    logs = os.path.join(work, "logs")
    shutil.rmtree(logs, ignore_errors=True)
    shutil.copytree(metadata, os.path.join(logs, "__cluster_metadata"))
    shutil.copytree(partition_dir,
                    os.path.join(logs, "broker-0", "__consumer_offsets-0"))
    port = free_port_range(1)
    log_path = os.path.join(work, "troupe.log")
    t0 = time.monotonic()
    proc = start(binary, logs, port, log_path)
    ready = None
    sock = None
    try:
        correlation = 0
        deadline = t0 + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError("troupe exited: " + open(log_path).read())
            if ready is None:
                if "Kafka listeners on" in open(log_path).read():
                    ready = time.monotonic()
                else:
                    time.sleep(0.002)
                    continue
            try:
                if sock is None:
                    sock = socket.create_connection(("127.0.0.1", port), 5)
                correlation += 1
                error, offset = offset_fetch(sock, correlation)
            except OSError:
                sock = None
                time.sleep(0.002)
                continue
            if error == 0:
                served = time.monotonic()
                if offset != EXPECTED:
                    raise RuntimeError("%s answered offset %d, committed %d" %
                                       (GROUP, offset, EXPECTED))
                return ready - t0, served - t0, served - ready
            time.sleep(0.002)
        raise RuntimeError("not served within 120 s")
    finally:
        if sock:
            sock.close()
        stop(proc)


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def main():
    troupe, bench = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="troupe-takeover-serve-")
    try:
        data = os.path.join(work, "data")
        subprocess.run([bench, "--dir", data] + sys.argv[3:], check=True)
        # The controller's metadata of a one-broker node with one offsets
        # partition, from a first start on an empty log.dirs.
        boot = os.path.join(work, "boot")
        port = free_port_range(1)
        proc = start(troupe, boot, port, os.path.join(work, "boot.log"))
        deadline = time.time() + 30
        while "Kafka listeners on" not in open(os.path.join(work,
                                                            "boot.log")).read():
            if time.time() > deadline or proc.poll() is not None:
                raise RuntimeError("troupe did not start")
            time.sleep(0.05)
        stop(proc)
        metadata = os.path.join(boot, "__cluster_metadata")
        print("\n| log (troupe serve) | disk bytes | start → ready s | start → "
              "served s | ready → served s |\n|---|---:|---:|---:|---:|")
        for name in ("uncompacted", "compacted", "ideal"):
            part = os.path.join(data, name, "__consumer_offsets-0")
            ready, served, takeover_s = takeover(troupe, metadata, part, work)
            print("| %s | %d | %.2f | %.2f | %.2f |" %
                  (name, dir_bytes(part), ready, served, takeover_s),
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
