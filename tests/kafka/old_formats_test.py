"""Kafka's old message formats through `troupe serve` (issue 22), on a raw
socket with kafka-python 2.0.2's protocol classes and record builders (an
encoder independent of troupe's):

- v2: RecordBatch v2 batches (plain and gzip) produced with Produce v7 read
  back with Fetch v0, v1 (magic 0: offsets, keys, values, no timestamps)
  and v3 (magic 1: with the CreateTime timestamps), the same offsets as
  Fetch v10 answers; a fetch from inside a batch starts at its offset
  (plain) or gives the whole wrapper (gzip); a partition max bytes smaller
  than the first message still gives that message whole;
- legacy: magic 0 sets with Produce v0, magic 1 sets with Produce v1 and
  v2 (plain and gzip) read back with Fetch v10 as v2 batches with the
  log's offsets, the keys, values and timestamps (magic 0: -1);
- refusals: a magic 1 set, no batch or two batches in Produce v3+ are
  INVALID_RECORD, zstd before v7 UNSUPPORTED_COMPRESSION_TYPE (Kafka's
  ProduceRequest.validateRecords); ListOffsets v0 lists the latest and the
  earliest offset.

- admin: OffsetCommit v0 (a simple commit) and v1, OffsetFetch v0,
  DescribeConfigs v0 (IsDefault), OffsetForLeaderEpoch v0, DeleteTopics v0.

    old_formats_test.py <troupe binary> <case: v2|legacy|refusals|admin>
"""

import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from troupe_serve import TroupeServe  # noqa: E402

from kafka.protocol.admin import (DeleteTopicsRequest,  # noqa: E402
                                  DeleteTopicsResponse,
                                  DescribeConfigsRequest,
                                  DescribeConfigsResponse)
from kafka.protocol.api import Request, Response  # noqa: E402
from kafka.protocol.commit import (GroupCoordinatorRequest,  # noqa: E402
                                   GroupCoordinatorResponse,
                                   OffsetCommitRequest, OffsetCommitResponse,
                                   OffsetFetchRequest, OffsetFetchResponse)
from kafka.protocol.fetch import FetchRequest, FetchResponse  # noqa: E402
from kafka.protocol.types import Array, Int16, Int32, Int64, Schema, String  # noqa: E402,E501
from kafka.protocol.metadata import (MetadataRequest,  # noqa: E402
                                     MetadataResponse)
from kafka.protocol.offset import OffsetRequest, OffsetResponse  # noqa: E402
from kafka.protocol.produce import (ProduceRequest,  # noqa: E402
                                    ProduceResponse)
from kafka.record.default_records import \
    DefaultRecordBatchBuilder  # noqa: E402
from kafka.record.legacy_records import \
    LegacyRecordBatchBuilder  # noqa: E402
from kafka.record.memory_records import MemoryRecords  # noqa: E402

NONE, GZIP = 0, 1
TOPIC = "old-formats"


# OffsetForLeaderEpoch v0, which kafka-python lacks, from Kafka's JSON.
class OffsetForLeaderEpochResponse_v0(Response):
    API_KEY = 23
    API_VERSION = 0
    SCHEMA = Schema(
        ("topics", Array(("topic", String("utf-8")),
                         ("partitions", Array(("error_code", Int16),
                                              ("partition", Int32),
                                              ("end_offset", Int64))))))


class OffsetForLeaderEpochRequest_v0(Request):
    API_KEY = 23
    API_VERSION = 0
    RESPONSE_TYPE = OffsetForLeaderEpochResponse_v0
    SCHEMA = Schema(
        ("topics", Array(("topic", String("utf-8")),
                         ("partitions", Array(("partition", Int32),
                                              ("leader_epoch", Int32))))))


class Conn:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), 10)
        self.next_id = 1

    def ask(self, req, response_class):
        cid = self.next_id
        self.next_id += 1
        client = b"old-formats-test"
        header = struct.pack(">hhih", req.API_KEY, req.API_VERSION, cid,
                             len(client)) + client
        body = header + req.encode()
        self.sock.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", self.read(4))[0]
        data = self.read(size)
        got = struct.unpack(">i", data[:4])[0]
        assert got == cid, (got, cid)
        return response_class.decode(data[4:])

    def read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise RuntimeError("connection closed")
            out += chunk
        return out

    def close(self):
        self.sock.close()


def leader_port(srv):
    """Creates the topic (Metadata v1 auto-creates it) and returns the
    Kafka port of its partition 0's leader."""
    deadline = time.time() + 30
    while time.time() < deadline:
        c = Conn(srv.port)
        res = c.ask(MetadataRequest[1](topics=[TOPIC]), MetadataResponse[1])
        c.close()
        brokers = {b[0]: b[2] for b in res.brokers}
        for t in res.topics:
            if t[1] == TOPIC and t[0] == 0:
                for p in t[3]:
                    if p[1] == 0 and p[2] in brokers:
                        return brokers[p[2]]
        time.sleep(0.2)
    raise RuntimeError("no leader for " + TOPIC)


def v2_batch(records, codec=NONE):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=codec,
                                  is_transactional=False, producer_id=-1,
                                  producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 20)
    for i, (ts, k, v) in enumerate(records):
        b.append(i, timestamp=ts, key=k, value=v, headers=[])
    return bytes(b.build())


def legacy_set(magic, records, codec=NONE):
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=codec,
                                 batch_size=1 << 20)
    for i, (ts, k, v) in enumerate(records):
        b.append(i, timestamp=ts if magic else None, key=k, value=v)
    return bytes(b.build())


def produce(conn, version, records):
    if version >= 3:
        req = ProduceRequest[version](transactional_id=None, required_acks=-1,
                                      timeout=10000,
                                      topics=[(TOPIC, [(0, records)])])
    else:
        req = ProduceRequest[version](required_acks=-1, timeout=10000,
                                      topics=[(TOPIC, [(0, records)])])
    # A new topic's leader may still be taking over: retry
    # LEADER_NOT_AVAILABLE and NOT_LEADER_OR_FOLLOWER for a while.
    deadline = time.time() + 10
    while True:
        res = conn.ask(req, ProduceResponse[version])
        part = res.topics[0][1][0]
        if part[1] not in (5, 6) or time.time() > deadline:
            return part[1], part[2]  # error, base offset
        time.sleep(0.2)


def fetch(conn, version, offset, max_bytes=1 << 20):
    parts = [(0, offset, max_bytes)]
    if version >= 9:
        parts = [(0, -1, offset, -1, max_bytes)]
    elif version >= 5:
        parts = [(0, offset, -1, max_bytes)]
    if version >= 7:
        req = FetchRequest[version](replica_id=-1, max_wait_time=100,
                                    min_bytes=0, max_bytes=1 << 24,
                                    isolation_level=0, session_id=0,
                                    session_epoch=-1,
                                    topics=[(TOPIC, parts)],
                                    forgotten_topics_data=[])
    elif version >= 4:
        req = FetchRequest[version](replica_id=-1, max_wait_time=100,
                                    min_bytes=0, max_bytes=1 << 24,
                                    isolation_level=0,
                                    topics=[(TOPIC, parts)])
    elif version == 3:
        req = FetchRequest[version](replica_id=-1, max_wait_time=100,
                                    min_bytes=0, max_bytes=1 << 24,
                                    topics=[(TOPIC, parts)])
    else:
        req = FetchRequest[version](replica_id=-1, max_wait_time=100,
                                    min_bytes=0, topics=[(TOPIC, parts)])
    res = conn.ask(req, FetchResponse[version])
    part = res.topics[0][1][0]
    error, records = part[1], part[-1]
    return error, records


def fetch_all(conn, version, end, start=0):
    """Every message from `start` to `end` as a consumer reads them: fetch
    after fetch from the offset after the last one read (a down-converted
    answer may stop short of what the batches read would give: Kafka sizes
    it by the batches read, or the first converted batch when larger)."""
    out = []
    offset = start
    for _ in range(20):
        if offset >= end:
            break
        err, records = fetch(conn, version, offset)
        check(err == 0, ("fetch v%d from %d" % (version, offset), err))
        got = [m for m in messages(records) if m[1] >= offset]
        check(got, ("fetch v%d from %d made no progress" % (version, offset)))
        out += got
        offset = got[-1][1] + 1
    return out


def messages(records):
    """(magic, offset, timestamp, key, value) of every record."""
    out = []
    mr = MemoryRecords(records)
    while True:
        batch = mr.next_batch()
        if batch is None:
            break
        magic = getattr(batch, "magic", None)
        if magic is None:
            magic = batch._magic
        for r in batch:
            out.append((magic, r.offset, r.timestamp, r.key, r.value))
    return out


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# -- cases ----------------------------------------------------------------------


def case_v2(conn):
    plain = [(1700000000000 + i, b"k%d" % i, b"value-%d" % i)
             for i in range(3)]
    # Values that compress: kafka-python's builders keep a batch plain
    # when compressing would not make it smaller.
    zipped = [(1700000001000 + i, None if i == 1 else b"z%d" % i,
               b"zipped-%d " % i * 20) for i in range(3)]
    err, base = produce(conn, 7, v2_batch(plain))
    check(err == 0 and base == 0, ("plain produce", err, base))
    batch = v2_batch(zipped, GZIP)
    check(batch[22] & 7 == GZIP, "the test's batch is gzip")
    err, base = produce(conn, 7, batch)
    check(err == 0 and base == 3, ("gzip produce", err, base))
    expected = [(i, ts, k, v) for i, (ts, k, v) in enumerate(plain + zipped)]
    err, records = fetch(conn, 10, 0)
    got = messages(records)
    check(err == 0 and [(o, t, k, v) for _, o, t, k, v in got] == expected,
          ("fetch v10", err, got))
    for version, magic in ((0, 0), (1, 0), (3, 1)):
        got = fetch_all(conn, version, len(expected))
        check(all(m == magic for m, *_ in got),
              ("fetch v%d magic" % version, got))
        want = [(o, t if magic else None, k, v) for o, t, k, v in expected]
        check([(o, t, k, v) for _, o, t, k, v in got] == want,
              ("fetch v%d" % version, got, want))
        # From inside the plain batch: its records from the offset on.
        err, records = fetch(conn, version, 1)
        got = [o for _, o, *_ in messages(records)]
        check(err == 0 and got[:2] == [1, 2], ("from 1", version, got))
        # From inside the gzip batch: the whole wrapper (the consumer skips
        # what is below its offset).
        err, records = fetch(conn, version, 4)
        got = [o for _, o, *_ in messages(records)]
        check(err == 0 and got == [3, 4, 5], ("from 4", version, got))
        # A partition max bytes below the first message: still that message.
        err, records = fetch(conn, version, 0, max_bytes=10)
        got = [o for _, o, *_ in messages(records)]
        check(err == 0 and got and got[0] == 0, ("small max", version, got))
    print("v2 batches read by Fetch v0, v1 and v3: ok")


def case_legacy(conn):
    m0 = [(None, b"a", b"magic0-a"), (None, None, b"magic0-b")]
    m1 = [(1700000002000, b"c", b"magic1-c"), (1700000002001, b"d", None)]
    m1z = [(1700000003000 + i, b"g%d" % i, b"gzip-%d " % i * 20)
           for i in range(3)]
    m0z = [(None, b"h%d" % i, b"gzip0-%d " % i * 20) for i in range(2)]
    err, base = produce(conn, 0, legacy_set(0, m0))
    check(err == 0 and base == 0, ("produce v0", err, base))
    err, base = produce(conn, 1, legacy_set(1, m1))
    check(err == 0 and base == 2, ("produce v1", err, base))
    zipped = legacy_set(1, m1z, GZIP)
    check(zipped[17] & 7 == GZIP, "the test's magic 1 set is gzip")
    err, base = produce(conn, 2, zipped)
    check(err == 0 and base == 4, ("produce v2 gzip", err, base))
    zipped = legacy_set(0, m0z, GZIP)
    check(zipped[17] & 7 == GZIP, "the test's magic 0 set is gzip")
    err, base = produce(conn, 0, zipped)
    check(err == 0 and base == 7, ("produce v0 gzip", err, base))
    # A magic 1 set in a v2 request after a magic 0 one: Kafka checks no
    # magic against v0-2.
    err, base = produce(conn, 2, legacy_set(0, [(None, b"x", b"y")]))
    check(err == 0 and base == 9, ("magic 0 in v2", err, base))
    want = [(ts if ts is not None else -1, k, v)
            for ts, k, v in m0 + m1 + m1z + m0z + [(None, b"x", b"y")]]
    err, records = fetch(conn, 10, 0)
    got = messages(records)
    check(err == 0 and all(m == 2 for m, *_ in got), ("fetch v10", err, got))
    check([o for _, o, *_ in got] == list(range(len(want))), ("offsets", got))
    check([(t, k, v) for _, _, t, k, v in got] == want, ("records", got, want))
    # And back down: Fetch v3 reads them as magic 1 with the same fields.
    got = fetch_all(conn, 3, len(want))
    check([(o, t, k, v) for _, o, t, k, v in got]
          == [(i,) + w for i, w in enumerate(want)], ("fetch v3", got))
    print("magic 0 and 1 sets produced with Produce v0-2 read by Fetch v10 "
          "and v3: ok")


def as_zstd(batch):
    """The batch with its codec bits saying zstd (and its CRC right)."""
    from kafka.record._crc32c import crc as crc32c
    b = bytearray(batch)
    b[22] = (b[22] & ~7) | 4
    struct.pack_into(">I", b, 17, crc32c(bytes(b[21:])))
    return bytes(b)


def case_refusals(conn):
    # ProduceRequest.validateRecords for v3+.
    err, _ = produce(conn, 3, legacy_set(1, [(1, b"k", b"v")]))
    check(err == 87, ("magic 1 in Produce v3", err))
    err, _ = produce(conn, 3, b"")
    check(err == 87, ("no batch in Produce v3", err))
    one = v2_batch([(5, b"k", b"v")])
    err, _ = produce(conn, 7, one + one)
    check(err == 87, ("two batches in Produce v7", err))
    err, _ = produce(conn, 6, as_zstd(one))
    check(err == 76, ("zstd in Produce v6", err))
    err, base = produce(conn, 7, v2_batch([(5, b"k", b"v")] * 2))
    check(err == 0 and base == 0, ("produce", err, base))
    for ts, want in ((-1, [2]), (-2, [0])):
        res = conn.ask(OffsetRequest[0](replica_id=-1,
                                        topics=[(TOPIC, [(0, ts, 1)])]),
                       OffsetResponse[0])
        part = res.topics[0][1][0]
        check(part[1] == 0 and list(part[2]) == want,
              ("ListOffsets v0", ts, part))
    print("Produce v3+ refuses magic 1, no batch, two batches and zstd "
          "before v7; ListOffsets v0 lists offsets: ok")


def case_admin(conn, srv):
    """OffsetCommit v0 (no generation, no member: a simple commit) and v1,
    OffsetFetch v0, DescribeConfigs v0, OffsetForLeaderEpoch v0 and
    DeleteTopics v0."""
    err, _ = produce(conn, 7, v2_batch([(5, b"k", b"v")] * 3))
    check(err == 0, ("produce", err))
    c = Conn(srv.port)
    found = c.ask(GroupCoordinatorRequest[0](consumer_group="old-group"),
                  GroupCoordinatorResponse[0])
    c.close()
    check(found.error_code == 0, ("FindCoordinator v0", found))
    coord = Conn(found.port)
    res = coord.ask(OffsetCommitRequest[0](consumer_group="old-group",
                                           topics=[(TOPIC, [(0, 2, "m0")])]),
                    OffsetCommitResponse[0])
    check(res.topics[0][1][0][1] == 0, ("OffsetCommit v0", res.topics))
    res = coord.ask(OffsetFetchRequest[0](consumer_group="old-group",
                                          topics=[(TOPIC, [0])]),
                    OffsetFetchResponse[0])
    check(tuple(res.topics[0][1][0]) == (0, 2, "m0", 0),
          ("OffsetFetch v0", res.topics))
    res = coord.ask(OffsetCommitRequest[1](
        consumer_group="old-group", consumer_group_generation_id=-1,
        consumer_id="", topics=[(TOPIC, [(0, 3, 1700000000000, "m1")])]),
        OffsetCommitResponse[1])
    check(res.topics[0][1][0][1] == 0, ("OffsetCommit v1", res.topics))
    res = coord.ask(OffsetFetchRequest[1](consumer_group="old-group",
                                          topics=[(TOPIC, [0])]),
                    OffsetFetchResponse[1])
    check(tuple(res.topics[0][1][0]) == (0, 3, "m1", 0),
          ("OffsetFetch v1 after v1", res.topics))
    coord.close()
    # DescribeConfigs v0: IsDefault for an unset config.
    res = conn.ask(DescribeConfigsRequest[0](
        resources=[(2, TOPIC, ["retention.ms", "cleanup.policy"])]),
        DescribeConfigsResponse[0])
    r = res.resources[0]
    check(r[0] == 0 and len(r[4]) == 2, ("DescribeConfigs v0", r))
    for name, value, read_only, is_default, sensitive in r[4]:
        check(is_default, ("DescribeConfigs v0 IsDefault", name, is_default))
    # OffsetForLeaderEpoch v0: epoch 0 ends at the log end.
    res = conn.ask(OffsetForLeaderEpochRequest_v0(topics=[(TOPIC, [(0, 0)])]),
                   OffsetForLeaderEpochResponse_v0)
    check(tuple(res.topics[0][1][0]) == (0, 0, 3),
          ("OffsetForLeaderEpoch v0", res.topics))
    # DeleteTopics v0 (no throttle time in the answer).
    res = conn.ask(DeleteTopicsRequest[0](topics=[TOPIC], timeout=10000),
                   DeleteTopicsResponse[0])
    check(list(res.topic_error_codes) == [(TOPIC, 0)],
          ("DeleteTopics v0", res.topic_error_codes))
    print("OffsetCommit v0/v1, OffsetFetch v0, DescribeConfigs v0, "
          "OffsetForLeaderEpoch v0 and DeleteTopics v0: ok")


def main():
    binary, case = sys.argv[1], sys.argv[2]
    cases = {"v2": case_v2, "legacy": case_legacy, "refusals": case_refusals,
             "admin": lambda conn: case_admin(conn, srv)}
    with TroupeServe(binary, overrides=["num.partitions=1",
                                        "default.replication.factor=1"]) as srv:
        conn = Conn(leader_port(srv))
        try:
            cases[case](conn)
        finally:
            conn.close()


if __name__ == "__main__":
    main()
