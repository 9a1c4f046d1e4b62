"""KIP-554's SCRAM admin APIs over a plain socket, for tests.

    from scram_admin import alter_scram, describe_scram, upsertion, deletion

The Python clients on this machine predate AlterUserScramCredentials (51)
and DescribeUserScramCredentials (50): confluent-kafka 1.7 (librdkafka 2.0)
and kafka-python 2.0 have neither. These helpers speak both, v0 (flexible),
as Kafka's AdminClient does: the client salts the password itself
(PBKDF2 with the mechanism's HMAC, as ScramFormatter.hi) and sends the
salted password, never the password. PLAINTEXT listeners only.
"""

import hashlib
import os
import socket
import struct

SHA_256 = 1
SHA_512 = 2
_HASH = {SHA_256: "sha256", SHA_512: "sha512"}


def salted_password(mechanism, password, salt, iterations):
    return hashlib.pbkdf2_hmac(_HASH[mechanism], password.encode(), salt,
                               iterations)


def upsertion(user, mechanism, password, iterations=4096, salt=None):
    salt = salt if salt is not None else os.urandom(16)
    hashed = (salted_password(mechanism, password, salt, iterations)
              if mechanism in _HASH else b"\0" * 32)
    return (user, mechanism, iterations, salt, hashed)


def deletion(user, mechanism):
    return (user, mechanism)


# -- flexible encoding ----------------------------------------------------------

def _uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _compact_string(s):
    data = s.encode()
    return _uvarint(len(data) + 1) + data


def _compact_bytes(b):
    return _uvarint(len(b) + 1) + b


def _compact_array(items, encode):
    return _uvarint(len(items) + 1) + b"".join(encode(x) for x in items)


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def int8(self):
        return struct.unpack(">b", self.take(1))[0]

    def int16(self):
        return struct.unpack(">h", self.take(2))[0]

    def int32(self):
        return struct.unpack(">i", self.take(4))[0]

    def uvarint(self):
        shift = n = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def compact_string(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def _call(host, port, api_key, body, timeout=30):
    """One request (header v2) and its response body (header v1)."""
    header = struct.pack(">hhih", api_key, 0, 7, len(b"scram-admin")) \
        + b"scram-admin" + b"\0"
    frame = header + body
    with socket.create_connection((host, port), timeout) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = b""
        while len(size) < 4:
            chunk = s.recv(4 - len(size))
            if not chunk:
                raise ConnectionError("closed before the response")
            size += chunk
        n = struct.unpack(">i", size)[0]
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed inside the response")
            data += chunk
    r = _Reader(data)
    if r.int32() != 7:
        raise ValueError("wrong correlation id")
    r.tags()
    return r


def alter_scram(host, port, upsertions=(), deletions=()):
    """AlterUserScramCredentials v0: [(user, error_code, message)]."""
    body = _compact_array(
        list(deletions),
        lambda d: _compact_string(d[0]) + struct.pack(">b", d[1]) + b"\0")
    body += _compact_array(
        list(upsertions),
        lambda u: _compact_string(u[0]) + struct.pack(">bi", u[1], u[2])
        + _compact_bytes(u[3]) + _compact_bytes(u[4]) + b"\0")
    body += b"\0"
    r = _call(host, port, 51, body)
    r.int32()  # throttle
    out = []
    for _ in range(r.uvarint() - 1):
        user = r.compact_string()
        code = r.int16()
        msg = r.compact_string()
        r.tags()
        out.append((user, code, msg))
    return out


def describe_scram(host, port, users=None):
    """DescribeUserScramCredentials v0: (error_code, message,
    [(user, error_code, message, [(mechanism, iterations)])])."""
    if users is None:
        body = b"\0"  # null array
    else:
        body = _compact_array(list(users),
                              lambda u: _compact_string(u) + b"\0")
    body += b"\0"
    r = _call(host, port, 50, body)
    r.int32()
    code = r.int16()
    msg = r.compact_string()
    results = []
    for _ in range(r.uvarint() - 1):
        user = r.compact_string()
        ucode = r.int16()
        umsg = r.compact_string()
        infos = []
        for _ in range(r.uvarint() - 1):
            mech = r.int8()
            iterations = r.int32()
            r.tags()
            infos.append((mech, iterations))
        r.tags()
        results.append((user, ucode, umsg, infos))
    return code, msg, results
