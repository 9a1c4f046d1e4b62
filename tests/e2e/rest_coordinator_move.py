#!/usr/bin/env python3
"""REST consumer instances across a coordinator move (Kafka's
GroupMetadataManager.loadGroup): the broker coordinating their group stops,
the new coordinator has loaded the group, and the instances carry on in the
same generation with the same partitions and their committed offsets.

    rest_coordinator_move.py TROUPE_BINARY

Starts its own `troupe serve` on free ports (tests/http/gateway_e2e.py's
Server) and stops it at the end, also when a check fails.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "http"))
from gateway_e2e import (JSON_V2, Server, assigned, check,  # noqa: E402
                         new_instance, setup_topic, wait_for)


def produce(srv, start, n):
    srv.ok("POST", "/topics/orders",
           {"records": [{"key": "k%d" % i, "value": {"n": i}}
                        for i in range(start, start + n)]}, ctype=JSON_V2)


def poll(srv, base, seen):
    status, records = srv.request("GET", base + "/records?timeout=200")
    if status == 200:
        for r in records:
            seen.add(r["value"]["n"])
    return status


def committed(srv, group):
    desc = srv.ok("GET", "/v1/groups/" + group)
    return {(p["topic"], p["partition"]): p.get("committed", -1)
            for p in desc.get("lag", [])}


def coordinator_of(srv, group):
    """The leader of the group's __consumer_offsets partition: Kafka's
    abs(String.hashCode(group)) % offsets.topic.num.partitions (50)."""
    h = 0
    data = group.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i:i + 2], "big")) & 0xFFFFFFFF
    if h >= 1 << 31:
        h -= 1 << 32
    partition = 0 if h == -(1 << 31) else abs(h) % 50
    parts = srv.ok("GET", "/v1/partitions?topic=__consumer_offsets")
    for p in parts["partitions"]:
        if p["partition"] == partition:
            return p["leader"]
    raise AssertionError("no __consumer_offsets-%d" % partition)


def run(srv):
    setup_topic(srv, "orders", 4)
    produce(srv, 0, 40)
    a = new_instance(srv, "shop", "a")
    b = new_instance(srv, "shop", "b")
    seen = set()

    def split():
        poll(srv, a, seen)
        poll(srv, b, seen)
        x, y = assigned(srv, a), assigned(srv, b)
        return x and y and sorted(x + y) == [0, 1, 2, 3] and (x, y)
    before = wait_for("two instances to split the partitions", split, 60)

    def caught_up():
        # Each instance reads its own partitions to the end (the first to
        # join owned all of them for a generation) and commits there.
        poll(srv, a, seen)
        poll(srv, b, seen)
        srv.ok("POST", a + "/offsets", None, expect=(200, 204))
        srv.ok("POST", b + "/offsets", None, expect=(200, 204))
        lag = srv.ok("GET", "/v1/groups/shop").get("lag", [])
        return (len(lag) == 4 and sum(p.get("committed", 0) for p in lag) == 40
                and committed(srv, "shop"))
    kept = wait_for("commits at the end of every partition", caught_up, 60)
    check(True, "committed offsets before the move: %s" % kept)
    group = srv.ok("GET", "/v1/groups/shop")
    generation, coordinator = group["generation"], coordinator_of(srv, "shop")
    check(generation > 0, "group shop in generation %d on broker %d"
          % (generation, coordinator))

    srv.ok("POST", "/v1/brokers/%d/stop" % coordinator, None,
           expect=(200, 202, 204))
    # Three session timeouts (6 s each) of polling and producing: members
    # that did not reach the new coordinator would have been expelled.
    deadline = time.time() + 18
    n = 40
    while time.time() < deadline:
        produce(srv, n, 4)
        n += 4
        check(poll(srv, a, seen) == 200 and poll(srv, b, seen) == 200,
              "both instances keep polling")
    after = srv.ok("GET", "/v1/groups/shop")
    moved_to = coordinator_of(srv, "shop")
    check(moved_to not in (coordinator, -1),
          "the group moved from broker %d to broker %d"
          % (coordinator, moved_to))
    check(after["generation"] == generation,
          "the generation is still %d (no rebalance)" % generation)
    check((assigned(srv, a), assigned(srv, b)) == before,
          "each instance kept its partitions: %s" % (before,))
    now = committed(srv, "shop")
    check(all(now.get(tp, -1) >= off for tp, off in kept.items()),
          "committed offsets survived the move: %s" % now)
    wait_for("every record produced across the move", lambda: (
        poll(srv, a, seen), poll(srv, b, seen),
        seen >= set(range(n)))[2], 60)
    check(True, "every one of the %d records was consumed" % n)


def main():
    binary = sys.argv[1]
    srv = Server(binary, extra=["--override", "default.replication.factor=3"])
    try:
        run(srv)
    except Exception:
        srv.log.flush()
        with open(os.path.join(srv.dir, "troupe.log")) as f:
            print("---- troupe log tail ----\n" + f.read()[-4000:])
        raise
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
