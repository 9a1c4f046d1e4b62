"""A few Kafka requests spoken by hand, for tests that need exact error
codes or an API Debian's clients lack.

Debian's confluent-kafka (1.7, librdkafka 2.0.2) and kafka-python (2.0.2)
have no AlterUserScramCredentials (KIP-554, librdkafka 2.2+), and librdkafka
reports a failed SASL exchange without Kafka's error code. This module
writes the frames itself, field for field as Kafka's JSON schemas:

    conn = Conn("127.0.0.1", port)                 # or tls=ssl_context
    conn.sasl_handshake("PLAIN")   -> (error, [mechanisms])
    conn.sasl_authenticate(token)  -> (error, message, bytes, lifetime_ms)
    conn.plain("alice", "secret")  -> the SaslAuthenticate answer
    conn.scram("SCRAM-SHA-512", "alice", "secret") -> (error, message, lifetime)
    conn.metadata()                -> the raw Metadata v1 response body, or
                                      None when the broker closed
    upsert_scram(bootstrap_host, port, user, password, mechanism,
                 iterations)       -> [(user, error, message)]

Every socket call is bounded by the connection's timeout.
"""

import base64
import hashlib
import hmac
import os
import socket
import struct

SASL_HANDSHAKE = 17
SASL_AUTHENTICATE = 36
METADATA = 3
ALTER_USER_SCRAM_CREDENTIALS = 51

NONE = 0
SASL_AUTHENTICATION_FAILED = 58
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34

_MECHANISM_CODE = {"SCRAM-SHA-256": 1, "SCRAM-SHA-512": 2}
_HASH = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}


def _uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _read_uvarint(buf, at):
    n = shift = 0
    while True:
        b = buf[at]
        at += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, at


def _string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _compact_string(s):
    b = s.encode()
    return _uvarint(len(b) + 1) + b


def _compact_bytes(b):
    return _uvarint(len(b) + 1) + b


class Closed(Exception):
    pass


class Conn:
    def __init__(self, host, port, tls=None, timeout=10, server_name=None):
        raw = socket.create_connection((host, port), timeout)
        self.sock = (tls.wrap_socket(raw, server_hostname=server_name or host)
                     if tls else raw)
        self.sock.settimeout(timeout)
        self.corr = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # -- framing

    def send(self, key, version, body, flexible=False):
        self.corr += 1
        header = struct.pack(">hhi", key, version, self.corr) + _string("kw")
        if flexible:
            header += b"\x00"  # request header v2: no tagged fields
        msg = header + body
        self.sock.sendall(struct.pack(">i", len(msg)) + msg)
        return self.corr

    def recv_exact(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise Closed()
            out += chunk
        return out

    def recv_frame(self):
        (size,) = struct.unpack(">i", self.recv_exact(4))
        return self.recv_exact(size)

    def request(self, key, version, body, flexible=False):
        """The response body (after the correlation id and, flexible,
        its tagged fields)."""
        corr = self.send(key, version, body, flexible)
        data = self.recv_frame()
        (got,) = struct.unpack(">i", data[:4])
        assert got == corr, "correlation %d, expected %d" % (got, corr)
        if flexible and key != 18:
            _, at = _read_uvarint(data, 4)
            return data[at:]
        return data[4:]

    def closed_by_peer(self, wait=5):
        """True when the broker closes the connection within `wait` s."""
        self.sock.settimeout(wait)
        try:
            return self.sock.recv(1) == b""
        except (ConnectionResetError, BrokenPipeError):
            return True
        except (socket.timeout, OSError):
            return False

    # -- SASL

    def sasl_handshake(self, mechanism, version=1):
        body = self.request(SASL_HANDSHAKE, version, _string(mechanism))
        (error, n) = struct.unpack(">hi", body[:6])
        at = 6
        mechs = []
        for _ in range(max(n, 0)):
            (ln,) = struct.unpack(">h", body[at:at + 2])
            mechs.append(body[at + 2:at + 2 + ln].decode())
            at += 2 + ln
        return error, mechs

    def sasl_authenticate(self, token, version=1):
        body = self.request(SASL_AUTHENTICATE, version,
                            struct.pack(">i", len(token)) + token)
        (error, ln) = struct.unpack(">hh", body[:4])
        at = 4
        message = None
        if ln >= 0:
            message = body[at:at + ln].decode()
            at += ln
        (bl,) = struct.unpack(">i", body[at:at + 4])
        data = body[at + 4:at + 4 + bl]
        at += 4 + bl
        lifetime = 0
        if version >= 1:
            (lifetime,) = struct.unpack(">q", body[at:at + 8])
        return error, message, data, lifetime

    def plain(self, user, password, version=1):
        error, mechs = self.sasl_handshake("PLAIN")
        if error:
            return error, None, b"", 0
        return self.sasl_authenticate(
            b"\0" + user.encode() + b"\0" + password.encode(), version)

    def scram(self, mechanism, user, password, version=1):
        """(error, message, session lifetime ms) of a whole exchange; the
        server signature is verified."""
        error, _ = self.sasl_handshake(mechanism)
        if error:
            return error, None, 0
        client = ScramClient(mechanism, user, password)
        error, message, data, _ = self.sasl_authenticate(client.first(),
                                                         version)
        if error:
            return error, message, 0
        error, message, data, lifetime = self.sasl_authenticate(
            client.final(data), version)
        if error:
            return error, message, 0
        assert client.verify(data), "bad server signature"
        return error, message, lifetime

    def metadata(self):
        """Metadata v1 for every topic; None when the broker closed."""
        try:
            return self.request(METADATA, 1, struct.pack(">i", -1))
        except (Closed, ConnectionResetError, BrokenPipeError):
            return None


class ScramClient:
    """RFC 5802's client side."""

    def __init__(self, mechanism, user, password):
        self.hash = _HASH[mechanism]
        self.user = user
        self.password = password
        self.nonce = base64.b64encode(os.urandom(18)).decode()

    def first(self):
        self.bare = "n=%s,r=%s" % (self.user.replace("=", "=3D")
                                   .replace(",", "=2C"), self.nonce)
        return ("n,," + self.bare).encode()

    def final(self, server_first):
        sf = server_first.decode()
        attrs = dict(kv.split("=", 1) for kv in sf.split(","))
        assert attrs["r"].startswith(self.nonce)
        salt = base64.b64decode(attrs["s"])
        salted = hashlib.pbkdf2_hmac(self.hash().name, self.password.encode(),
                                     salt, int(attrs["i"]))
        client_key = hmac.new(salted, b"Client Key", self.hash).digest()
        stored = self.hash(client_key).digest()
        without_proof = "c=biws,r=" + attrs["r"]
        auth = ",".join([self.bare, sf, without_proof]).encode()
        sig = hmac.new(stored, auth, self.hash).digest()
        proof = bytes(a ^ b for a, b in zip(client_key, sig))
        server_key = hmac.new(salted, b"Server Key", self.hash).digest()
        self.server_sig = hmac.new(server_key, auth, self.hash).digest()
        return (without_proof + ",p="
                + base64.b64encode(proof).decode()).encode()

    def verify(self, server_final):
        sf = server_final.decode()
        return sf.startswith("v=") and \
            base64.b64decode(sf[2:]) == self.server_sig


def upsert_scram(host, port, user, password, mechanism="SCRAM-SHA-512",
                 iterations=4096, tls=None, sasl=None):
    """AlterUserScramCredentials v0 (KIP-554) with one upsertion, as
    Kafka's AdminClient sends it (a random salt, the salted password).
    `sasl`: (mechanism, user, password) to authenticate first (PLAIN or
    SCRAM). Returns [(user, error, message)]."""
    conn = Conn(host, port, tls=tls)
    try:
        if sasl:
            m, u, p = sasl
            res = conn.plain(u, p) if m == "PLAIN" else conn.scram(m, u, p)
            assert res[0] == NONE, "authentication failed: %r" % (res,)
        salt = os.urandom(24)
        salted = hashlib.pbkdf2_hmac(_HASH[mechanism]().name, password.encode(),
                                     salt, iterations)
        body = (_uvarint(1)  # deletions: none (compact array of 0)
                + _uvarint(2)  # upsertions: one
                + _compact_string(user)
                + struct.pack(">bi", _MECHANISM_CODE[mechanism], iterations)
                + _compact_bytes(salt) + _compact_bytes(salted)
                + b"\x00"  # the upsertion's tagged fields
                + b"\x00")  # the request's tagged fields
        data = conn.request(ALTER_USER_SCRAM_CREDENTIALS, 0, body,
                            flexible=True)
        at = 4  # throttle_time_ms
        n, at = _read_uvarint(data, at)
        out = []
        for _ in range(n - 1):
            ln, at = _read_uvarint(data, at)
            name = data[at:at + ln - 1].decode()
            at += ln - 1
            (error,) = struct.unpack(">h", data[at:at + 2])
            at += 2
            ln, at = _read_uvarint(data, at)
            message = None
            if ln > 0:
                message = data[at:at + ln - 1].decode()
                at += ln - 1
            tags, at = _read_uvarint(data, at)
            out.append((name, error, message))
        return out
    finally:
        conn.close()
