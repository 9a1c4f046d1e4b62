"""Free loopback ports for the servers a test starts.

troupe's embedded cluster listens on consecutive ports (the Kafka listener
of broker i on port+i), so tests need a whole free range, not one port.
"""

import random
import socket


def free_port_range(n, tries=200):
    """The first of `n` consecutive ports on 127.0.0.1 that all bind now."""
    for _ in range(tries):
        base = random.randint(20000, 40000)
        ok = True
        for p in range(base, base + n):
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", p))
            except OSError:
                ok = False
            finally:
                s.close()
            if not ok:
                break
        if ok:
            return base
    raise RuntimeError("no %d consecutive free ports" % n)
