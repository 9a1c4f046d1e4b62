"""The broker's side of `troupe groups --describe`: DescribeGroups v0 for
one group on a raw socket to its coordinator, timed from the send to the
last byte of the response, which is counted but not decoded (so the time
is the broker's and the loopback's, not a client's). One connection, one
untimed request first, then TRIALS timed ones; prints the median and max
in ms and the response size.

    describe_groups_rtt.py HOST:PORT GROUP [TRIALS]

scripts/bench_groups_describe.sh runs it (BENCH_PERF=1).
"""

import socket
import statistics
import struct
import sys
import time


def main():
    host, port = sys.argv[1].rsplit(":", 1)
    group = sys.argv[2].encode()
    trials = int(sys.argv[3]) if len(sys.argv) > 3 else 21
    sock = socket.create_connection((host, int(port)), 10)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    client = b"describe-groups-rtt"
    buf = bytearray(1 << 16)

    def ask(cid):
        # Request header v1: api key 15, version 0, correlation id,
        # client id; body: groups (array of one string).
        body = (struct.pack(">hhih", 15, 0, cid, len(client)) + client
                + struct.pack(">ih", 1, len(group)) + group)
        t0 = time.perf_counter()
        sock.sendall(struct.pack(">i", len(body)) + body)
        head = b""
        while len(head) < 8:
            chunk = sock.recv(8 - len(head))
            if not chunk:
                raise RuntimeError("connection closed")
            head += chunk
        size, got = struct.unpack(">ii", head)
        assert got == cid, (got, cid)
        left = size - 4
        while left > 0:
            n = sock.recv_into(buf, min(left, len(buf)))
            if n == 0:
                raise RuntimeError("connection closed")
            left -= n
        return (time.perf_counter() - t0) * 1000, size + 4

    ask(1)
    times = []
    size = 0
    for i in range(trials):
        ms, size = ask(i + 2)
        times.append(ms)
    sock.close()
    print("%.2f\t%.2f\t%d" % (statistics.median(times), max(times), size))


if __name__ == "__main__":
    main()
