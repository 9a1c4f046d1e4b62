"""The Kafka requests the tests speak by hand, field for field as Kafka's
JSON schemas, for what Debian's clients cannot send.

Debian's confluent-kafka 1.7 (librdkafka 2.0.2) and kafka-python 2.0.2
have no KIP-554 (AlterUserScramCredentials 51 and
DescribeUserScramCredentials 50, librdkafka 2.2+), librdkafka reports a
failed SASL exchange without Kafka's error code, and an admin client picks
the node it asks itself. This module writes the frames itself:

    conn = Conn("127.0.0.1", port)                 # or tls=ssl_context
    conn.sasl_handshake("PLAIN")   -> (error, [mechanisms])
    conn.sasl_authenticate(token)  -> (error, message, bytes, lifetime_ms)
    conn.plain("alice", "secret")  -> the SaslAuthenticate answer
    conn.scram("SCRAM-SHA-512", "alice", "secret") -> (error, message, lifetime)
    conn.metadata()                -> the raw Metadata v1 response body, or
                                      None when the broker closed
    conn.request(key, version, body, flexible) -> any response body

    # KIP-554 v0, as Kafka's AdminClient sends it: the client salts the
    # password (PBKDF2 with the mechanism's HMAC, ScramFormatter.hi) and
    # sends the salted password, never the password.
    alter_scram(host, port, [upsertion(user, SHA_512, password, iterations)],
                [deletion(user, SHA_256)])   -> [(user, error, message)]
    upsert_scram(host, port, user, password, "SCRAM-SHA-512", iterations)
                                   -> [(user, error, message)]
    describe_scram(host, port, users=None)
        -> (error, message, [(user, error, message, [(mechanism, iterations)])])

    # DescribeAcls v1 asked of one chosen node.
    describe_acls(host, port)
        -> (error, message, [(type, name, pattern,
                              [(principal, host, operation, permission)])])

The admin calls take tls= (an ssl context) and sasl= ((mechanism, user,
password), PLAIN or SCRAM, to authenticate first), and wait= (seconds to
retry a refused connection: a listener may bind a moment after the rest).
Every socket call is bounded by the connection's timeout.
"""

import base64
import hashlib
import hmac
import os
import socket
import struct
import time

METADATA = 3
SASL_HANDSHAKE = 17
API_VERSIONS = 18
DESCRIBE_ACLS = 29
SASL_AUTHENTICATE = 36
DESCRIBE_USER_SCRAM_CREDENTIALS = 50
ALTER_USER_SCRAM_CREDENTIALS = 51

NONE = 0
UNSUPPORTED_SASL_MECHANISM = 33
ILLEGAL_SASL_STATE = 34
SASL_AUTHENTICATION_FAILED = 58

# KIP-554's mechanism codes (ScramMechanism).
SHA_256 = 1
SHA_512 = 2
_MECHANISM_CODE = {"SCRAM-SHA-256": SHA_256, "SCRAM-SHA-512": SHA_512}
_HASH_NAME = {SHA_256: "sha256", SHA_512: "sha512"}
_HASH = {"SCRAM-SHA-256": hashlib.sha256, "SCRAM-SHA-512": hashlib.sha512}

# DescribeAcls' ANY for resource type, pattern type, operation, permission.
ANY = 1


# -- primitive encoders ----------------------------------------------------------

def _uvarint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def _string(s):
    """A (nullable) STRING: int16 length, -1 for None."""
    if s is None:
        return struct.pack(">h", -1)
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def _compact_string(s):
    b = s.encode()
    return _uvarint(len(b) + 1) + b


def _compact_bytes(b):
    return _uvarint(len(b) + 1) + b


def _compact_array(items, encode):
    return _uvarint(len(items) + 1) + b"".join(encode(x) for x in items)


# -- the primitive decoder -------------------------------------------------------

class _Reader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def take(self, n):
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def rest(self):
        return self.data[self.pos:]

    def int8(self):
        return struct.unpack(">b", self.take(1))[0]

    def int16(self):
        return struct.unpack(">h", self.take(2))[0]

    def int32(self):
        return struct.unpack(">i", self.take(4))[0]

    def int64(self):
        return struct.unpack(">q", self.take(8))[0]

    def uvarint(self):
        shift = n = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def string(self):
        n = self.int16()
        return None if n < 0 else self.take(n).decode()

    def bytes32(self):
        n = self.int32()
        return None if n < 0 else self.take(n)

    def compact_string(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


# -- the connection --------------------------------------------------------------

class Closed(ConnectionError):
    """The broker closed the connection before a whole response."""


class Conn:
    def __init__(self, host, port, tls=None, timeout=10, server_name=None,
                 wait=0):
        deadline = time.time() + wait
        while True:
            try:
                raw = socket.create_connection((host, port), timeout)
                break
            except ConnectionRefusedError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.sock = (tls.wrap_socket(raw, server_hostname=server_name or host)
                     if tls else raw)
        self.sock.settimeout(timeout)
        self.corr = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

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
        the response header's tagged fields; ApiVersions has none)."""
        corr = self.send(key, version, body, flexible)
        r = _Reader(self.recv_frame())
        got = r.int32()
        assert got == corr, "correlation %d, expected %d" % (got, corr)
        if flexible and key != API_VERSIONS:
            r.tags()
        return r.rest()

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
        r = _Reader(self.request(SASL_HANDSHAKE, version, _string(mechanism)))
        error = r.int16()
        mechs = [r.string() for _ in range(max(r.int32(), 0))]
        return error, mechs

    def sasl_authenticate(self, token, version=1):
        r = _Reader(self.request(SASL_AUTHENTICATE, version,
                                 struct.pack(">i", len(token)) + token))
        error = r.int16()
        message = r.string()
        data = r.bytes32() or b""
        lifetime = r.int64() if version >= 1 else 0
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

    def login(self, sasl):
        """Authenticates with (mechanism, user, password), PLAIN or SCRAM;
        an AssertionError when the broker refuses."""
        m, u, p = sasl
        res = self.plain(u, p) if m == "PLAIN" else self.scram(m, u, p)
        assert res[0] == NONE, "authentication failed: %r" % (res,)

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


def _admin_call(host, port, key, version, body, flexible, tls, sasl, timeout,
                wait):
    """One request on its own connection (authenticated first with `sasl`),
    its response body as a _Reader."""
    with Conn(host, port, tls=tls, timeout=timeout, wait=wait) as conn:
        if sasl:
            conn.login(sasl)
        return _Reader(conn.request(key, version, body, flexible))


# -- KIP-554: SCRAM credentials --------------------------------------------------

def salted_password(mechanism, password, salt, iterations):
    """ScramFormatter.hi: PBKDF2 with the mechanism's (a code) HMAC."""
    return hashlib.pbkdf2_hmac(_HASH_NAME[mechanism], password.encode(), salt,
                               iterations)


def upsertion(user, mechanism, password, iterations=4096, salt=None):
    """An AlterUserScramCredentials upsertion; an unknown mechanism code
    gets 32 zero bytes for the salted password."""
    salt = salt if salt is not None else os.urandom(16)
    hashed = (salted_password(mechanism, password, salt, iterations)
              if mechanism in _HASH_NAME else b"\0" * 32)
    return (user, mechanism, iterations, salt, hashed)


def deletion(user, mechanism):
    return (user, mechanism)


def alter_scram(host, port, upsertions=(), deletions=(), tls=None, sasl=None,
                timeout=30, wait=0):
    """AlterUserScramCredentials v0: [(user, error_code, message)]."""
    body = _compact_array(
        list(deletions),
        lambda d: _compact_string(d[0]) + struct.pack(">b", d[1]) + b"\0")
    body += _compact_array(
        list(upsertions),
        lambda u: _compact_string(u[0]) + struct.pack(">bi", u[1], u[2])
        + _compact_bytes(u[3]) + _compact_bytes(u[4]) + b"\0")
    body += b"\0"  # the request's tagged fields
    r = _admin_call(host, port, ALTER_USER_SCRAM_CREDENTIALS, 0, body, True,
                    tls, sasl, timeout, wait)
    r.int32()  # throttle_time_ms
    out = []
    for _ in range(r.uvarint() - 1):
        user = r.compact_string()
        code = r.int16()
        msg = r.compact_string()
        r.tags()
        out.append((user, code, msg))
    return out


def upsert_scram(host, port, user, password, mechanism="SCRAM-SHA-512",
                 iterations=4096, tls=None, sasl=None, timeout=10, wait=0):
    """AlterUserScramCredentials v0 with one upsertion of `mechanism` (a
    name) and a random 24-byte salt. Returns [(user, error, message)]."""
    return alter_scram(host, port,
                       [upsertion(user, _MECHANISM_CODE[mechanism], password,
                                  iterations, os.urandom(24))],
                       tls=tls, sasl=sasl, timeout=timeout, wait=wait)


def describe_scram(host, port, users=None, tls=None, sasl=None, timeout=30,
                   wait=0):
    """DescribeUserScramCredentials v0 (users=None: every user):
    (error_code, message,
     [(user, error_code, message, [(mechanism, iterations)])])."""
    if users is None:
        body = b"\0"  # null array
    else:
        body = _compact_array(list(users),
                              lambda u: _compact_string(u) + b"\0")
    body += b"\0"
    r = _admin_call(host, port, DESCRIBE_USER_SCRAM_CREDENTIALS, 0, body, True,
                    tls, sasl, timeout, wait)
    r.int32()  # throttle_time_ms
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


# -- DescribeAcls, asked of one node ---------------------------------------------

def describe_acls(host, port, resource_type=ANY, name=None, pattern=ANY,
                  principal=None, acl_host=None, operation=ANY,
                  permission=ANY, tls=None, sasl=None, timeout=10, wait=0):
    """DescribeAcls v1 with the filter given (every binding by default):
    (error, message, [(type, name, pattern,
                       [(principal, host, operation, permission)])])."""
    body = struct.pack(">b", resource_type) + _string(name) \
        + struct.pack(">b", pattern) + _string(principal) \
        + _string(acl_host) + struct.pack(">bb", operation, permission)
    r = _admin_call(host, port, DESCRIBE_ACLS, 1, body, False, tls, sasl,
                    timeout, wait)
    r.int32()  # throttle_time_ms
    error = r.int16()
    message = r.string()
    resources = []
    for _ in range(r.int32()):
        rtype = r.int8()
        rname = r.string()
        rpattern = r.int8()
        acls = []
        for _ in range(r.int32()):
            acls.append((r.string(), r.string(), r.int8(), r.int8()))
        resources.append((rtype, rname, rpattern, acls))
    return error, message, resources
