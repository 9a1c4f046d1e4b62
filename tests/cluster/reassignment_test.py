#!/usr/bin/python3
"""Partition reassignment (KIP-455) on a cluster of real processes, driven
by `troupe reassign` (kafka-reassign-partitions.sh's flags) as a user would:

    reassignment_test.py build/troupe CASE

Each case starts its own ZooKeeper and nodes on free ports
(tests/cluster/cluster_fixture.py) and stops them by pid however it ends.
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cluster_fixture import (  # noqa: E402
    Cluster,
    ProducerLoop,
    check,
    check_acknowledged_present,
    read_acknowledged,
    read_through,
    fill,
    log,
    main,
    wait_for,
)
from cluster_tests import GroupMember  # noqa: E402

FOREVER = float("inf")


def reassign(troupe, bootstrap, *args, timeout=60):
    r = subprocess.run([troupe, "reassign", "--bootstrap-server", bootstrap, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def proposed_plan(stdout):
    """The JSON after "Proposed partition reassignment configuration"."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Proposed partition reassignment configuration"):
            return json.loads(lines[i + 1])
    raise AssertionError(f"no proposed plan in: {stdout}")


def onto_new_node(troupe):
    """A topic spread onto a fourth node with --balance and --execute while
    an acks=all producer and a consumer group run: every replica the plan
    names ends on its broker and in the ISR, --verify reports completion,
    nothing acknowledged is lost, and the group sees no extra rebalance."""
    with Cluster(troupe) as c, tempfile.TemporaryDirectory(prefix="troupe-reassign-test-") as tmp:
        c.start(3)
        topic = c.create_topic("moving", 6, 3)
        prod = ProducerLoop(c.bootstrap(), topic, rate=300)
        prod.start()
        members = [GroupMember(f"m{i}", c.bootstrap(), "movers", topic) for i in range(2)]

        def poll_all(seconds):
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for m in members:
                    m.poll()

        def stable():
            # Both members in the group (a lone first member holds all six
            # until the second one's join rebalances it) and every
            # partition owned once.
            poll_all(0.5)
            return all(m.assigned for m in members) and sorted(sum((m.assigned for m in members), [])) == list(range(6))

        wait_for("the group to own every partition", stable, 60, interval=0)
        wait_for("acknowledgements", lambda: len(prod.acked) >= 300, 30)
        rebalances = [m.rebalances for m in members]

        node4 = c.add_node()
        node4.start()
        c.wait_ready([1, 2, 3, 4])
        poll_all(1)
        rc, out, err = reassign(troupe, c.bootstrap(), "--balance")
        check(rc == 0, f"--balance exited {rc}: {err}")
        plan = proposed_plan(out)
        on4 = [(p["topic"], p["partition"]) for p in plan["partitions"] if 4 in p["replicas"]]
        log(f"--balance proposes {len(plan['partitions'])} partitions, {len(on4)} onto broker 4: {out.splitlines()[-2]}")
        check(on4, f"--balance moves nothing onto broker 4: {out}")
        check(all(t != "__consumer_offsets" for t, _ in on4), "--balance moved an internal topic")
        path = os.path.join(tmp, "plan.json")
        with open(path, "w") as f:
            json.dump(plan, f)

        t_exec = time.monotonic()
        rc, out, err = reassign(troupe, c.bootstrap(), "--execute", "--reassignment-json-file", path)
        check(rc == 0, f"--execute exited {rc}: {out} {err}")
        check("Successfully started partition reassignment" in out, f"--execute said: {out}")
        check("Save this to use as the --reassignment-json-file option during rollback" in out, out)

        def verified():
            poll_all(0.3)
            rc, out, _ = reassign(troupe, c.bootstrap(), "--verify", "--reassignment-json-file", path)
            return rc == 0 and out

        out = wait_for("--verify to report every reassignment completed", verified, 90, interval=0)
        log(f"reassignment completed {time.monotonic() - t_exec:.1f} s after --execute:\n{out.strip()}")
        check(out.count("is completed.") == len(plan["partitions"]), out)
        rc, out, _ = reassign(troupe, c.bootstrap(), "--list")
        check(rc == 0 and "No partition reassignments found." in out, f"--list after completion: {out}")
        for p in plan["partitions"]:
            s = c.partition_state(p["topic"], p["partition"])
            assignment = c.zk_get_json(f"/brokers/topics/{p['topic']}")
            check(assignment["partitions"][str(p["partition"])] == p["replicas"], f"{p['topic']}-{p['partition']}: ZooKeeper holds {assignment['partitions'][str(p['partition'])]}, the plan {p['replicas']}")
            check(not assignment.get("adding_replicas") and not assignment.get("removing_replicas"), f"adding/removing replicas left in ZooKeeper: {assignment}")
            check(sorted(s["isr"]) == sorted(p["replicas"]), f"{p['topic']}-{p['partition']}: ISR {s['isr']}, replicas {p['replicas']}")
            check(s["leader"] in p["replicas"], f"{p['topic']}-{p['partition']}: leader {s['leader']} is not a replica")
        # The removed replicas' logs are gone from their brokers.
        for p in plan["partitions"]:
            for n in c.nodes:
                held = os.path.isdir(n.replica_dir(p["topic"], p["partition"]))
                if n.id not in p["replicas"]:
                    wait_for(f"broker {n.id} to delete its replica of {p['topic']}-{p['partition']}", lambda n=n, p=p: not os.path.isdir(n.replica_dir(p["topic"], p["partition"])), 20)
                elif not held:
                    raise AssertionError(f"broker {n.id} holds no log of {p['topic']}-{p['partition']}")
        t_done = time.monotonic()
        wait_for("acknowledgements after the move on every partition", lambda: all(len(prod.acks_between(t_done, FOREVER, partition=q)) >= 10 for q in range(6)), 30)
        poll_all(2)
        check([m.rebalances for m in members] == rebalances, f"the group rebalanced during the reassignment: {rebalances} -> {[m.rebalances for m in members]}")
        check(prod.stop() == 0, "records still unacknowledged")
        check(not prod.failed, f"{len(prod.failed)} records failed, e.g. {prod.failed[:3]}")
        for q in range(6):
            check_acknowledged_present(prod.acked, read_acknowledged(c, topic, q, prod.acked), topic, q)
        log(f"{len(prod.acked)} acknowledged records, all read back; the group kept its assignment ({rebalances} rebalances)")
        for m in members:
            m.consumer.close()


def configs_of(troupe, bootstrap, entity_type, name):
    """`troupe configs --describe` of one entity, as {name: (value, source)}
    from its JSON output."""
    r = subprocess.run([troupe, "configs", "--bootstrap-server", bootstrap, "--describe", "--entity-type", entity_type, "--entity-name", str(name), "--all", "--output", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=30)
    check(r.returncode == 0, f"configs --describe {entity_type} {name}: {r.stderr}")
    doc = json.loads(r.stdout)
    entries = doc[0]["configs"] if isinstance(doc, list) else doc["configs"]
    return {e["name"]: (e["value"], e["source"]) for e in entries}


def throttled_move(troupe):
    """kafka-reassign-partitions.sh --throttle (KIP-73): a reassignment
    with a throttle copies no faster than the rate (the broker-level
    leader/follower.replication.throttled.rate and the topic's
    throttled-replica lists are set for the moving replicas); acks=all
    produce goes on meanwhile; --verify, once the moves are done, removes
    every throttle. The same move without a throttle is logged beside it."""
    with Cluster(troupe) as c, tempfile.TemporaryDirectory(prefix="troupe-reassign-test-") as tmp:
        c.start(3)
        topic = c.create_topic("bulk", 2, 1)
        # One replica: acks=all needs only it (the cluster's default is 2).
        c.set_topic_configs(topic, min_insync_replicas=1)
        size = fill(c.bootstrap(), topic, 2, 8)
        node4 = c.add_node()
        node4.start()
        c.wait_ready([1, 2, 3, 4])
        before = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"]
        path = os.path.join(tmp, "plan.json")
        with open(path, "w") as f:
            json.dump({"version": 1, "partitions": [{"topic": topic, "partition": q, "replicas": [4]} for q in range(2)]}, f)
        prod = ProducerLoop(c.bootstrap(), topic, rate=100)
        prod.start()
        rate = 1 << 20
        t_exec = time.monotonic()
        rc, out, err = reassign(troupe, c.bootstrap(), "--execute", "--reassignment-json-file", path, "--throttle", str(rate))
        check(rc == 0, f"--execute --throttle exited {rc}: {out} {err}")
        check(f"The inter-broker throttle limit was set to {rate} B/s" in out, out)
        check("Warning: You must run --verify periodically" in out, out)
        b4 = configs_of(troupe, c.bootstrap(), "brokers", 4)
        check(b4["follower.replication.throttled.rate"] == (str(rate), "DYNAMIC_BROKER_CONFIG"), f"broker 4: {b4['follower.replication.throttled.rate']}")
        t = configs_of(troupe, c.bootstrap(), "topics", topic)
        expect_followers = "0:4,1:4"
        expect_leaders = ",".join(sorted(f"{q}:{before[str(q)][0]}" for q in range(2)))
        check(t["follower.replication.throttled.replicas"][0] == expect_followers, f"follower list {t['follower.replication.throttled.replicas']}")
        check(t["leader.replication.throttled.replicas"][0] == expect_leaders, f"leader list {t['leader.replication.throttled.replicas']}")
        rc, out, _ = reassign(troupe, c.bootstrap(), "--execute", "--reassignment-json-file", path)
        check(rc == 1, f"a second --execute without --additional: rc {rc}")

        def verified():
            rc, out, _ = reassign(troupe, c.bootstrap(), "--verify", "--reassignment-json-file", path)
            return rc == 0 and out

        wait_for("the throttled reassignment to complete", verified, 120, interval=0.5)
        throttled_s = time.monotonic() - t_exec
        log(f"{size / (1 << 20):.0f} MiB moved in {throttled_s:.1f} s at a {rate} B/s throttle ({size / throttled_s / (1 << 20):.2f} MiB/s)")
        # The quota allows the rate over its window and one fetch of up to
        # 2 MiB beyond it: half the ideal time is a safe floor.
        check(throttled_s >= size / rate / 2, f"the throttle did not hold: {size} bytes in {throttled_s:.1f} s")
        b4 = configs_of(troupe, c.bootstrap(), "brokers", 4)
        check(b4["follower.replication.throttled.rate"][1] != "DYNAMIC_BROKER_CONFIG", f"--verify left the broker throttle: {b4['follower.replication.throttled.rate']}")
        t = configs_of(troupe, c.bootstrap(), "topics", topic)
        check(t["follower.replication.throttled.replicas"][0] == "", f"--verify left the topic throttle: {t['follower.replication.throttled.replicas']}")
        acked_during = len(prod.acks_between(t_exec, t_exec + throttled_s))
        check(acked_during > 0, "nothing acknowledged during the throttled move")
        # The same data back to its first brokers, unthrottled.
        back = os.path.join(tmp, "back.json")
        with open(back, "w") as f:
            json.dump({"version": 1, "partitions": [{"topic": topic, "partition": q, "replicas": before[str(q)]} for q in range(2)]}, f)
        t0 = time.monotonic()
        rc, out, err = reassign(troupe, c.bootstrap(), "--execute", "--reassignment-json-file", back)
        check(rc == 0, f"--execute back: {out} {err}")
        wait_for("the unthrottled reassignment to complete", lambda: reassign(troupe, c.bootstrap(), "--verify", "--reassignment-json-file", back)[0] == 0, 60, interval=0.2)
        free_s = time.monotonic() - t0
        log(f"the same move unthrottled took {free_s:.1f} s; {acked_during} records acknowledged during the throttled one")
        check(prod.stop() == 0 and not prod.failed, f"producer: {len(prod.failed)} failed")
        for q in range(2):
            check_acknowledged_present(prod.acked, read_acknowledged(c, topic, q, prod.acked), topic, q)


def zk_znode(troupe):
    """Kafka's pre-KIP-455 way: a plan written to /admin/reassign_partitions
    (ReassignPartitionsZNode). The controller starts each move when the
    znode is created, drops a partition it cannot move (an unknown topic)
    from the znode, and deletes the znode once every move is done; the
    moves are listed by ListPartitionReassignments meanwhile."""
    with Cluster(troupe) as c:
        c.start(3)
        topic = c.create_topic("zkmoved", 2, 2)
        fill(c.bootstrap(), topic, 2, 2)
        before = c.zk_get_json(f"/brokers/topics/{topic}")["partitions"]
        targets = {q: sorted({1, 2, 3} - set(before[str(q)][:1]))[:2] for q in range(2)}
        plan = {"version": 1, "partitions": [{"topic": topic, "partition": q, "replicas": r} for q, r in targets.items()] + [{"topic": "no-such-topic", "partition": 0, "replicas": [1, 2]}]}
        log(f"replicas before {before}, plan {targets}")
        c.zk.create("/admin/reassign_partitions", json.dumps(plan).encode())
        wait_for("the controller to delete /admin/reassign_partitions", lambda: c.zk.exists("/admin/reassign_partitions") is None, 60)
        after = c.zk_get_json(f"/brokers/topics/{topic}")
        for q, r in targets.items():
            check(after["partitions"][str(q)] == r, f"{topic}-{q}: {after['partitions'][str(q)]}, the plan {r}")
            check(sorted(c.partition_state(topic, q)["isr"]) == sorted(r), f"{topic}-{q}: ISR {c.partition_state(topic, q)['isr']}")
        check(not after.get("adding_replicas") and not after.get("removing_replicas"), f"adding/removing left: {after}")
        rc, out, _ = reassign(troupe, c.bootstrap(), "--list")
        check(rc == 0 and "No partition reassignments found." in out, f"--list after: {out}")
        for q in range(2):
            got = read_through(c, topic, q, 64)
            check([o for o, _ in got] == list(range(64)), f"{topic}-{q} lost records in the move: offsets {[o for o, _ in got][:5]}... ({len(got)}), state {c.partition_state(topic, q)}")
        log("the znode's moves ran and the znode is gone")


def bad_plans(troupe):
    """Kafka's errors for a plan that cannot run: an unknown broker
    (INVALID_REPLICA_ASSIGNMENT), an unknown partition, a cancel of a
    partition that is not moving; --generate places a topic over a broker
    list; a malformed file is refused before connecting."""
    with Cluster(troupe) as c, tempfile.TemporaryDirectory(prefix="troupe-reassign-test-") as tmp:
        c.start(3)
        topic = c.create_topic("fixed", 2, 2)

        def plan_file(name, partitions):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                json.dump({"version": 1, "partitions": partitions}, f)
            return path

        bad = plan_file("bad.json", [{"topic": topic, "partition": 0, "replicas": [1, 99]}])
        rc, out, err = reassign(troupe, c.bootstrap(), "--execute", "--reassignment-json-file", bad)
        check(rc == 1 and "INVALID_REPLICA_ASSIGNMENT" in err and "99" in err, f"unknown broker: rc {rc}, {out} {err}")
        missing = plan_file("missing.json", [{"topic": topic, "partition": 7, "replicas": [1, 2]}])
        rc, out, err = reassign(troupe, c.bootstrap(), "--execute", "--reassignment-json-file", missing)
        check(rc == 1 and "partition 7" in err, f"unknown partition: rc {rc}, {out} {err}")
        rc, out, err = reassign(troupe, c.bootstrap(), "--cancel", "--reassignment-json-file", bad)
        check(rc == 0 and "(none)" in out, f"cancel of nothing: rc {rc}, {out} {err}")
        topics = os.path.join(tmp, "topics.json")
        with open(topics, "w") as f:
            json.dump({"version": 1, "topics": [{"topic": topic}]}, f)
        rc, out, err = reassign(troupe, c.bootstrap(), "--generate", "--topics-to-move-json-file", topics, "--broker-list", "2,3")
        check(rc == 0, f"--generate exited {rc}: {err}")
        proposed = proposed_plan(out)
        check(all(sorted(p["replicas"]) == [2, 3] for p in proposed["partitions"]), f"--generate over 2,3: {proposed}")
        check(c.zk_get_json(f"/brokers/topics/{topic}")["partitions"]["0"] != [99], "the refused plan changed ZooKeeper")
        with open(os.path.join(tmp, "broken.json"), "w") as f:
            f.write("{not json")
        rc, out, err = reassign(troupe, "127.0.0.1:1", "--execute", "--reassignment-json-file", os.path.join(tmp, "broken.json"))
        check(rc == 1 and "Unable to parse" in err, f"malformed plan: rc {rc}, {err}")
        rc, out, err = reassign(troupe, c.bootstrap(), "--verify", "--execute", "--reassignment-json-file", bad)
        check(rc == 1 and "exactly one action" in err, f"two actions: rc {rc}, {err}")
        log("refusals as Kafka gives them")


CASES = {
    "onto-new-node": (onto_new_node, 180),
    "bad-plans": (bad_plans, 90),
    "throttled-move": (throttled_move, 200),
    "zk-znode": (zk_znode, 120),
}

if __name__ == "__main__":
    sys.exit(main(CASES, sys.argv))
