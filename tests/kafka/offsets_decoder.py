"""An independent decoder of __consumer_offsets records, written from Kafka
3.9's JSON schemas (apache/kafka group-coordinator/src/main/resources/
common/message/*.json) and Kafka's RecordBatch v2 format, not from troupe's
C++. The tests use it to check that troupe's offsets topic is what Kafka's
tools read.

    decode_key(bytes)            -> (record_type, name, dict)
    decode_value(type, bytes)    -> (version, name, dict)
    read_segment_files(dir)      -> [(offset, key bytes, value bytes|None)]
    record_set(bytes)            -> the same for a record set (a fetch)

The schemas below are the JSON files' field lists as Python: each field is
(name, type, versions, extra), where versions is the JSON "versions" string
("0+", "3+", "1", "2") and extra holds "nullableVersions",
"taggedVersions"/"tag" where the JSON has them. Types: int8/16/32/64,
string, bytes, uuid, []T for arrays, and a nested list of fields for a
struct. A message's "flexibleVersions" decides compact encodings and tagged
fields, as in Kafka's generated readers.
"""

import struct

# -- the schemas (Kafka 3.9) --------------------------------------------------------

NONE = None  # "flexibleVersions": "none"

OFFSET_COMMIT_KEY = ("OffsetCommitKey", "0-1", NONE, [
    ("group", "string", "0-1", {}),
    ("topic", "string", "0-1", {}),
    ("partition", "int32", "0-1", {}),
])
OFFSET_COMMIT_VALUE = ("OffsetCommitValue", "0-4", "4+", [
    ("offset", "int64", "0+", {}),
    ("leaderEpoch", "int32", "3+", {}),
    ("metadata", "string", "0+", {}),
    ("commitTimestamp", "int64", "0+", {}),
    ("expireTimestamp", "int64", "1", {}),
])
GROUP_METADATA_KEY = ("GroupMetadataKey", "2", NONE, [
    ("group", "string", "2", {}),
])
MEMBER_METADATA = [
    ("memberId", "string", "0+", {}),
    ("groupInstanceId", "string", "3+", {"nullableVersions": "3+"}),
    ("clientId", "string", "0+", {}),
    ("clientHost", "string", "0+", {}),
    ("rebalanceTimeout", "int32", "1+", {}),
    ("sessionTimeout", "int32", "0+", {}),
    ("subscription", "bytes", "0+", {}),
    ("assignment", "bytes", "0+", {}),
]
GROUP_METADATA_VALUE = ("GroupMetadataValue", "0-4", "4+", [
    ("protocolType", "string", "0+", {}),
    ("generation", "int32", "0+", {}),
    ("protocol", "string", "0+", {"nullableVersions": "0+"}),
    ("leader", "string", "0+", {"nullableVersions": "0+"}),
    ("currentStateTimestamp", "int64", "2+", {}),
    ("members", ("[]", MEMBER_METADATA), "0+", {}),
])


def _group_key(name, version):
    return (name, version, NONE, [("GroupId", "string", version, {})])


def _member_key(name, version):
    return (name, version, NONE, [("GroupId", "string", version, {}),
                                  ("MemberId", "string", version, {})])


TOPIC_PARTITIONS = [
    ("TopicId", "uuid", "0+", {}),
    ("Partitions", ("[]", "int32"), "0+", {}),
]
CONSUMER_GROUP_METADATA_VALUE = ("ConsumerGroupMetadataValue", "0", "0+", [
    ("Epoch", "int32", "0+", {}),
])
CONSUMER_GROUP_PARTITION_METADATA_VALUE = (
    "ConsumerGroupPartitionMetadataValue", "0", "0+", [
        ("Topics", ("[]", [
            ("TopicId", "uuid", "0+", {}),
            ("TopicName", "string", "0+", {}),
            ("NumPartitions", "int32", "0+", {}),
            ("PartitionMetadata", ("[]", [
                ("Partition", "int32", "0+", {}),
                ("Racks", ("[]", "string"), "0+", {}),
            ]), "0+", {}),
        ]), "0+", {}),
    ])
CONSUMER_GROUP_MEMBER_METADATA_VALUE = (
    "ConsumerGroupMemberMetadataValue", "0", "0+", [
        ("InstanceId", "string", "0+", {"nullableVersions": "0+"}),
        ("RackId", "string", "0+", {"nullableVersions": "0+"}),
        ("ClientId", "string", "0+", {}),
        ("ClientHost", "string", "0+", {}),
        ("SubscribedTopicNames", ("[]", "string"), "0+", {}),
        ("SubscribedTopicRegex", "string", "0+", {"nullableVersions": "0+"}),
        ("RebalanceTimeoutMs", "int32", "0+", {}),
        ("ServerAssignor", "string", "0+", {"nullableVersions": "0+"}),
        ("ClassicMemberMetadata", [
            ("SessionTimeoutMs", "int32", "0+", {}),
            ("SupportedProtocols", ("[]", [
                ("Name", "string", "0+", {}),
                ("Metadata", "bytes", "0+", {}),
            ]), "0+", {}),
        ], "0+", {"nullableVersions": "0+", "taggedVersions": "0+",
                  "tag": 0}),
    ])
CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE = (
    "ConsumerGroupTargetAssignmentMetadataValue", "0", "0+", [
        ("AssignmentEpoch", "int32", "0+", {}),
    ])
CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE = (
    "ConsumerGroupTargetAssignmentMemberValue", "0", "0+", [
        ("TopicPartitions", ("[]", TOPIC_PARTITIONS), "0+", {}),
    ])
CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE = (
    "ConsumerGroupCurrentMemberAssignmentValue", "0", "0+", [
        ("MemberEpoch", "int32", "0+", {}),
        ("PreviousMemberEpoch", "int32", "0+", {}),
        ("State", "int8", "0+", {}),
        ("AssignedPartitions", ("[]", TOPIC_PARTITIONS), "0+", {}),
        ("PartitionsPendingRevocation", ("[]", TOPIC_PARTITIONS), "0+", {}),
    ])

# The key's version is the record type (Kafka's CoordinatorRecordSerde).
RECORD_TYPES = {
    0: (OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE),
    1: (OFFSET_COMMIT_KEY, OFFSET_COMMIT_VALUE),
    2: (GROUP_METADATA_KEY, GROUP_METADATA_VALUE),
    3: (_group_key("ConsumerGroupMetadataKey", "3"),
        CONSUMER_GROUP_METADATA_VALUE),
    4: (_group_key("ConsumerGroupPartitionMetadataKey", "4"),
        CONSUMER_GROUP_PARTITION_METADATA_VALUE),
    5: (_member_key("ConsumerGroupMemberMetadataKey", "5"),
        CONSUMER_GROUP_MEMBER_METADATA_VALUE),
    6: (_group_key("ConsumerGroupTargetAssignmentMetadataKey", "6"),
        CONSUMER_GROUP_TARGET_ASSIGNMENT_METADATA_VALUE),
    7: (_member_key("ConsumerGroupTargetAssignmentMemberKey", "7"),
        CONSUMER_GROUP_TARGET_ASSIGNMENT_MEMBER_VALUE),
    8: (_member_key("ConsumerGroupCurrentMemberAssignmentKey", "8"),
        CONSUMER_GROUP_CURRENT_MEMBER_ASSIGNMENT_VALUE),
}


class DecodeError(Exception):
    pass


def in_versions(spec, v):
    """Kafka's version range syntax: "none", "N", "N+", "N-M"."""
    if spec is None or spec == "none":
        return False
    if spec.endswith("+"):
        return v >= int(spec[:-1])
    if "-" in spec:
        lo, hi = spec.split("-")
        return int(lo) <= v <= int(hi)
    return v == int(spec)


# -- the primitive types ----------------------------------------------------------

class Reader:
    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def take(self, n):
        if n < 0 or self.pos + n > len(self.data):
            raise DecodeError("needs %d bytes at %d of %d" %
                              (n, self.pos, len(self.data)))
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def fixed(self, fmt):
        return struct.unpack(">" + fmt, self.take(struct.calcsize(fmt)))[0]

    def uvarint(self):
        shift, out = 0, 0
        while True:
            b = self.take(1)[0]
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
            if shift > 35:
                raise DecodeError("varint too long")

    def varint(self):  # zigzag, as in a record
        u = self.uvarint_long()
        return (u >> 1) ^ -(u & 1)

    def uvarint_long(self):
        shift, out = 0, 0
        while True:
            b = self.take(1)[0]
            out |= (b & 0x7F) << shift
            if not b & 0x80:
                return out
            shift += 7
            if shift > 70:
                raise DecodeError("varlong too long")


def _length(r, flexible, classic_fmt):
    """A string/bytes/array length: -1 for null."""
    if flexible:
        return r.uvarint() - 1
    return r.fixed(classic_fmt)


def _read_type(r, typ, version, flexible, nullable):
    if isinstance(typ, list):  # a struct
        if nullable:
            marker = r.fixed("b")
            if marker < 0:
                return None
        return _read_struct(r, typ, version, flexible)
    if isinstance(typ, tuple):  # ("[]", element type)
        n = _length(r, flexible, "i")
        if n < 0:
            if not nullable:
                raise DecodeError("null array not nullable here")
            return None
        return [_read_type(r, typ[1], version, flexible, False)
                for _ in range(n)]
    if typ == "int8":
        return r.fixed("b")
    if typ == "int16":
        return r.fixed("h")
    if typ == "int32":
        return r.fixed("i")
    if typ == "int64":
        return r.fixed("q")
    if typ == "uuid":
        return r.take(16)
    if typ in ("string", "bytes"):
        n = _length(r, flexible, "h" if typ == "string" else "i")
        if n < 0:
            if not nullable:
                raise DecodeError("null %s not nullable here" % typ)
            return None
        raw = r.take(n)
        return raw.decode("utf-8") if typ == "string" else raw
    raise DecodeError("unknown type %r" % (typ,))


def _read_struct(r, fields, version, flexible):
    out = {}
    tagged = {}
    for name, typ, versions, extra in fields:
        if "tag" in extra:
            if flexible and in_versions(extra.get("taggedVersions"), version):
                tagged[extra["tag"]] = (name, typ, extra)
            continue
        if not in_versions(versions, version):
            continue
        nullable = in_versions(extra.get("nullableVersions"), version)
        out[name] = _read_type(r, typ, version, flexible, nullable)
    if flexible:
        for _ in range(r.uvarint()):
            tag = r.uvarint()
            size = r.uvarint()
            raw = r.take(size)
            if tag in tagged:
                name, typ, extra = tagged[tag]
                sub = Reader(raw)
                out[name] = _read_type(sub, typ, version, flexible,
                                       "nullableVersions" in extra)
    return out


def _read_message(schema, data, version, what):
    name, valid, flexible_versions, fields = schema
    if not in_versions(valid, version):
        raise DecodeError("%s v%d is not one of %s's versions %s" %
                          (what, version, name, valid))
    r = Reader(data)
    out = _read_struct(r, fields, version,
                       in_versions(flexible_versions, version))
    return name, out


def decode_key(data):
    """(record type, key schema name, fields)."""
    r = Reader(data)
    record_type = r.fixed("h")
    if record_type not in RECORD_TYPES:
        raise DecodeError("unknown record type %d" % record_type)
    name, fields = _read_message(RECORD_TYPES[record_type][0], data[2:],
                                 record_type, "key")
    return record_type, name, fields


def decode_value(record_type, data):
    """(value version, value schema name, fields)."""
    r = Reader(data)
    version = r.fixed("h")
    name, fields = _read_message(RECORD_TYPES[record_type][1], data[2:],
                                 version, "value")
    return version, name, fields


# -- RecordBatch v2 (Kafka's DefaultRecordBatch) ----------------------------------------

def record_set(data):
    """Every record of a run of v2 batches: (offset, key, value)."""
    out = []
    r = Reader(data)
    while len(data) - r.pos >= 12:
        base_offset = r.fixed("q")
        batch_length = r.fixed("i")
        if len(data) - r.pos < batch_length:
            break  # cut short (a fetch may end inside a batch)
        batch = Reader(r.take(batch_length))
        batch.fixed("i")  # partition leader epoch
        magic = batch.fixed("b")
        if magic != 2:
            raise DecodeError("magic %d" % magic)
        batch.fixed("I")  # crc
        attributes = batch.fixed("h")
        if attributes & 0x07:
            raise DecodeError("compressed batch")
        batch.fixed("i")  # last offset delta
        batch.fixed("q")  # base timestamp
        batch.fixed("q")  # max timestamp
        batch.fixed("q")  # producer id
        batch.fixed("h")  # producer epoch
        batch.fixed("i")  # base sequence
        count = batch.fixed("i")
        if attributes & 0x20:  # a control batch: no data records
            continue
        for _ in range(count):
            size = batch.varint()
            rec = Reader(batch.take(size))
            rec.fixed("b")  # attributes
            rec.varint()  # timestamp delta
            delta = rec.varint()
            klen = rec.varint()
            key = rec.take(klen) if klen >= 0 else None
            vlen = rec.varint()
            value = rec.take(vlen) if vlen >= 0 else None
            out.append((base_offset + delta, key, value))
    return out


def read_segment_files(partition_dir):
    """The records of a partition directory's segments (*.log), in order."""
    import os
    out = []
    for name in sorted(os.listdir(partition_dir)):
        if name.endswith(".log"):
            with open(os.path.join(partition_dir, name), "rb") as f:
                out.extend(record_set(f.read()))
    return out
