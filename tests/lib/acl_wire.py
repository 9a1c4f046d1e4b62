"""DescribeAcls (29) v1 over a plain socket, asked of one broker, for tests
that must know which node answers (a Kafka admin client picks a node
itself). PLAINTEXT listeners only.

    from acl_wire import describe_acls
    error, message, [(type, name, pattern, [(principal, host, op, perm)])]
"""

import socket
import struct

ANY = 1


def _string(s):
    if s is None:
        return struct.pack(">h", -1)
    data = s.encode()
    return struct.pack(">h", len(data)) + data


def describe_acls(host, port, resource_type=ANY, name=None, pattern=ANY,
                  principal=None, acl_host=None, operation=ANY,
                  permission=ANY, timeout=10):
    body = struct.pack(">b", resource_type) + _string(name) \
        + struct.pack(">b", pattern) + _string(principal) \
        + _string(acl_host) + struct.pack(">bb", operation, permission)
    header = struct.pack(">hhi", 29, 1, 11) + _string("acl-wire")
    frame = header + body
    with socket.create_connection((host, port), timeout) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        data = b""
        while len(data) < 4:
            chunk = s.recv(4 - len(data))
            if not chunk:
                raise ConnectionError("closed before the response")
            data += chunk
        n = struct.unpack(">i", data)[0]
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed inside the response")
            data += chunk
    pos = [0]

    def take(k):
        out = data[pos[0]:pos[0] + k]
        pos[0] += k
        return out

    def i8():
        return struct.unpack(">b", take(1))[0]

    def i16():
        return struct.unpack(">h", take(2))[0]

    def i32():
        return struct.unpack(">i", take(4))[0]

    def string():
        k = i16()
        return None if k < 0 else take(k).decode()

    if i32() != 11:
        raise ValueError("wrong correlation id")
    i32()  # throttle
    error = i16()
    message = string()
    resources = []
    for _ in range(i32()):
        rtype = i8()
        rname = string()
        rpattern = i8()
        acls = []
        for _ in range(i32()):
            acls.append((string(), string(), i8(), i8()))
        resources.append((rtype, rname, rpattern, acls))
    return error, message, resources
