"""troupe's admin tools (`troupe groups|topics|configs`) against a running
`troupe serve`, case by case after Kafka 3.9's kafka-consumer-groups.sh,
kafka-topics.sh and kafka-configs.sh behaviours.

    tools_server_test.py TROUPE_BINARY

Tables are compared byte for byte with tests/tools/golden/*.txt after the
parts that vary from run to run are normalized (consumer ids' UUIDs, topic
ids, ports) without changing any column's width. UPDATE_GOLDEN=1 rewrites
the golden files from this run instead (review the diff!).

Every check is independent of the tool where it can be: offsets the tool
resets are read back with kafka-python's admin client, a reset group's
resumed consumer shows where it starts, topic configs the tool creates are
read with kafka-python. The server (and its SASL listener) is stopped
however the test ends.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from certs import make_pki  # noqa: E402
from ports import free_port_range  # noqa: E402
from troupe_serve import TroupeServe  # noqa: E402
import kafka_wire as kw  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from kafka import KafkaAdminClient  # noqa: E402
from kafka import TopicPartition as KTP  # noqa: E402
from kafka.admin import ConfigResource, ConfigResourceType  # noqa: E402

GOLDEN = os.path.join(HERE, "golden")
UPDATE = bool(os.environ.get("UPDATE_GOLDEN"))
BINARY = None
BOOT = None
failures = []
passed = [0]


SCRATCH = []


def scratch_dir(prefix):
    """A temporary directory removed when the test ends."""
    d = tempfile.mkdtemp(prefix=prefix)
    SCRATCH.append(d)
    return d


def check(cond, what, detail=""):
    if cond:
        passed[0] += 1
        print("ok   " + what)
    else:
        failures.append(what)
        print("FAIL " + what + ("\n     " + detail.replace("\n", "\n     ")
                                if detail else ""))
    sys.stdout.flush()
    return cond


def tool(*args, boot=True, env=None):
    """(status, stdout, stderr) of `troupe ARGS... --bootstrap-server B`."""
    argv = [BINARY] + list(args)
    if boot:
        argv += ["--bootstrap-server", BOOT]
    # Not UTC: a timestamp without a zone is UTC (Kafka's getDateTime)
    # whatever the local zone.
    e = dict(os.environ, TZ="JST-9")
    e.update(env or {})
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30, env=e)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def ok(what, *args, **kw_):
    rc, out, err = tool(*args, **kw_)
    check(rc == 0, what + " (exit 0)",
          "exit %d\nstdout: %s\nstderr: %s" % (rc, out, err))
    return out, err


def refused(what, args, needle, boot=True):
    """A bad input: exit 1, stdout empty, exactly one line on stderr that
    holds `needle`."""
    rc, out, err = tool(*args, boot=boot)
    lines = err.splitlines()
    check(rc == 1 and out == "" and len(lines) == 1 and needle in err,
          what, "exit %d\nstdout: %r\nstderr: %r\nwanted: %r"
          % (rc, out, err, needle))
    return err


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
                  r"[0-9a-f]{12}")
COORD = re.compile(r"127\.0\.0\.1:\d+  \((\d+)\) *")


def normalize(text):
    text = UUID.sub("00000000-0000-0000-0000-000000000000", text)
    text = COORD.sub(lambda m: ("127.0.0.1:PORT  (%s)" % m.group(1))
                     .ljust(len(m.group(0))), text)
    text = re.sub(r"TopicId: [A-Za-z0-9_-]{22}", "TopicId: " + "A" * 22, text)
    return text


def golden(name, text):
    path = os.path.join(GOLDEN, name + ".txt")
    text = normalize(text)
    if UPDATE:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    try:
        with open(path) as f:
            want = f.read()
    except OSError:
        want = None
    check(text == want, "golden %s.txt matches byte for byte" % name,
          "got:\n%r\nwanted:\n%r" % (text, want))


def rows(table, first):
    """The whitespace-split rows of a table whose header starts `first`."""
    lines = [l for l in table.splitlines() if l.strip()]
    out = []
    seen = False
    for l in lines:
        if l.startswith(first):
            seen = True
            continue
        if seen:
            out.append(l.split())
    return out


def committed(admin, group):
    """{partition: offset} of topic orders, read with kafka-python."""
    res = admin.list_consumer_group_offsets(group)
    return {tp.partition: m.offset for tp, m in res.items()
            if tp.topic == "orders" and m.offset >= 0}


def wait_for(pred, timeout=15):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.2)
    return pred()


EARLY = {}


def live_consumer(group, client_id, topics=("orders",), instance=None):
    conf = {"bootstrap.servers": BOOT, "group.id": group,
            "client.id": client_id, "auto.offset.reset": "earliest",
            "enable.auto.commit": False, "session.timeout.ms": 10000}
    if instance:
        conf["group.instance.id"] = instance
    c = Consumer(conf)
    c.subscribe(list(topics))
    end = time.time() + 20
    early = []  # what the polls waiting for the assignment delivered
    while time.time() < end and not c.assignment():
        m = c.poll(0.2)
        if m is not None and not m.error():
            early.append(m)
    EARLY[id(c)] = early
    return c


def first_offsets(c, n_partitions, timeout=20):
    """The first offset each partition delivers to consumer `c`."""
    first = {}
    for m in EARLY.get(id(c), []):
        first.setdefault(m.partition(), m.offset())
    end = time.time() + timeout
    while time.time() < end and len(first) < n_partitions:
        m = c.poll(0.3)
        if m is not None and not m.error():
            first.setdefault(m.partition(), m.offset())
    return first


def group_state(group):
    rc, out, err = tool("groups", "--describe", "--group", group, "--state",
                        "--output", "json")
    try:
        return json.loads(out)[0]["state"]
    except (ValueError, IndexError, KeyError):
        return None


# -- topics ---------------------------------------------------------------------

def topics_cases(admin):
    out, _ = ok("kafka-topics --create orders: 3 partitions, RF 1",
                "topics", "--create", "--topic", "orders", "--partitions", "3",
                "--replication-factor", "1")
    check(out == "Created topic orders.\n", "--create says 'Created topic "
          "orders.'", repr(out))
    out, _ = ok("kafka-topics --create events with --config and RF 3",
                "topics", "--create", "--topic", "events", "--partitions", "2",
                "--replication-factor", "3", "--config",
                "retention.bytes=1048576", "--config", "cleanup.policy=compact")
    check(out == "Created topic events.\n", "--create events output", out)
    a = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC,
                                               "events")])
    values = {c[0]: c[1] for c in a[0].resources[0][4]}
    check(values.get("retention.bytes") == "1048576"
          and values.get("cleanup.policy") == "compact",
          "the --config values are the topic's configs (kafka-python "
          "DescribeConfigs)", str(values))
    md = {t["topic"]: t for t in admin.describe_topics(["events"])}
    check(all(len(p["replicas"]) == 3 for p in md["events"]["partitions"])
          and len(md["events"]["partitions"]) == 2,
          "events has 2 partitions of 3 replicas (kafka-python Metadata)",
          str(md))
    refused("--create of an existing topic: Kafka's TopicExistsException "
            "line", ["topics", "--create", "--topic", "orders"],
            "Topic 'orders' already exists.")

    out, _ = ok("kafka-topics --list", "topics", "--list")
    names = out.split()
    check("orders" in names and "events" in names and names == sorted(names),
          "--list: one topic a line, sorted", out)
    out, _ = ok("kafka-topics --list --output json", "topics", "--list",
                "--output", "json")
    try:
        check(json.loads(out) == names,
              "--list --output json names the same topics", out)
    except ValueError as e:
        check(False, "--list --output json parses", "%s: %r" % (e, out))

    out, _ = ok("kafka-topics --describe --topic orders", "topics",
                "--describe", "--topic", "orders")
    golden("topics_describe_orders", out)
    out, _ = ok("kafka-topics --describe --topic events", "topics",
                "--describe", "--topic", "events")
    golden("topics_describe_events", out)
    out, _ = ok("kafka-topics --describe --output json", "topics",
                "--describe", "--topic", "events", "--output", "json")
    try:
        t = json.loads(out)[0]
        table, _ = ok("describe events table again", "topics", "--describe",
                      "--topic", "events")
        parts = [l.split("\t") for l in table.splitlines()[1:]]
        leaders = [int(p[3].split(": ")[1]) for p in parts]
        check(t["topic"] == "events" and t["partition_count"] == 2
              and t["replication_factor"] == 3
              and t["configs"].get("retention.bytes") == "1048576"
              and [p["leader"] for p in t["partitions"]] == leaders,
              "--describe --output json: the table's count, RF, configs and "
              "leaders", out)
    except (ValueError, IndexError, KeyError) as e:
        check(False, "--describe --output json parses", "%s: %r" % (e, out))
    out, _ = ok("--describe --under-replicated-partitions", "topics",
                "--describe", "--under-replicated-partitions")
    check(out == "", "every replica in sync: --under-replicated-partitions "
          "prints nothing", out)
    out, _ = ok("--describe --under-replicated-partitions --output json",
                "topics", "--describe", "--under-replicated-partitions",
                "--output", "json")
    check(out.strip() == "[]", "--under-replicated-partitions --output json "
          "lists no topic, as the table lists none", out)
    out, _ = ok("--describe --unavailable-partitions", "topics", "--describe",
                "--unavailable-partitions")
    check(out == "", "every partition has a leader: --unavailable-partitions "
          "prints nothing", out)
    refused("--describe of an unknown topic: Kafka's line",
            ["topics", "--describe", "--topic", "nope"],
            "Topic 'nope' does not exist as expected")

    ok("kafka-topics --create scratch", "topics", "--create", "--topic",
       "scratch", "--partitions", "1")
    out, _ = ok("kafka-topics --alter --partitions 4", "topics", "--alter",
                "--topic", "scratch", "--partitions", "4")
    check(out == "", "--alter prints nothing, as Kafka's", out)
    md = admin.describe_topics(["scratch"])
    check(len(md[0]["partitions"]) == 4, "--alter --partitions 4: scratch has "
          "4 partitions (kafka-python Metadata)", str(md))
    refused("--alter to fewer partitions: Kafka's InvalidPartitionsException "
            "line", ["topics", "--alter", "--topic", "scratch",
                     "--partitions", "2"],
            "Topic currently has 4 partitions, which is higher than the "
            "requested 2.")
    out, _ = ok("kafka-topics --delete", "topics", "--delete", "--topic",
                "scratch")
    check(out == "", "--delete prints nothing, as Kafka's", out)
    gone = wait_for(lambda: "scratch" not in tool("topics", "--list")[1]
                    .split())
    check(gone, "--delete: scratch leaves --list")
    refused("--delete of an unknown topic", ["topics", "--delete", "--topic",
                                            "scratch"],
            "Topic 'scratch' does not exist as expected")


# -- configs --------------------------------------------------------------------

def configs_cases(admin):
    out, _ = ok("kafka-configs --describe a topic", "configs", "--describe",
                "--entity-type", "topics", "--entity-name", "events")
    golden("configs_describe_events", out)
    ok("kafka-configs --alter --add-config", "configs", "--alter",
       "--entity-type", "topics", "--entity-name", "events", "--add-config",
       "max.message.bytes=2000000,min.insync.replicas=2")
    a = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC,
                                               "events")])
    values = {c[0]: c[1] for c in a[0].resources[0][4]}
    check(values.get("max.message.bytes") == "2000000"
          and values.get("min.insync.replicas") == "2",
          "--add-config: the values are set (kafka-python)", str(values))
    ok("kafka-configs --alter --delete-config", "configs", "--alter",
       "--entity-type", "topics", "--entity-name", "events",
       "--delete-config", "retention.bytes")
    out, _ = ok("kafka-configs --describe after alter", "configs",
                "--describe", "--entity-type", "topics", "--entity-name",
                "events")
    golden("configs_describe_events_altered", out)
    check("retention.bytes" not in out and "max.message.bytes=2000000" in out,
          "--delete-config removed retention.bytes from the dynamic configs",
          out)
    out, _ = ok("kafka-configs --describe --output json", "configs",
                "--describe", "--entity-type", "topics", "--entity-name",
                "events", "--output", "json")
    try:
        entries = {c["name"]: c["value"] for c in json.loads(out)[0]["configs"]}
        check(entries == {"cleanup.policy": "compact",
                          "max.message.bytes": "2000000",
                          "min.insync.replicas": "2"},
              "configs --output json: the table's three entries", out)
    except (ValueError, IndexError, KeyError) as e:
        check(False, "configs --output json parses", "%s: %r" % (e, out))

    out, _ = ok("kafka-configs --describe a broker", "configs", "--describe",
                "--entity-type", "brokers", "--entity-name", "0")
    check(out.startswith("Dynamic configs for broker 0 are:\n"),
          "broker describe header", out)
    # troupe's brokers read their configs only at start: the alter is
    # refused with the server's reason, as one line.
    refused("kafka-configs --alter a broker config troupe cannot change "
            "while running: the server's reason",
            ["configs", "--alter", "--entity-type", "brokers",
             "--entity-name", "0", "--add-config", "log.cleaner.threads=2"],
            "Cannot update these configs dynamically: "
            "Set(log.cleaner.threads)")
    refused("kafka-configs --delete-config of a broker config that is not "
            "set: Kafka's 'Invalid config(s)'",
            ["configs", "--alter", "--entity-type", "brokers",
             "--entity-name", "0", "--delete-config", "log.cleaner.threads"],
            "Invalid config(s): log.cleaner.threads")
    out, _ = ok("broker describe after the refusals", "configs", "--describe",
                "--entity-type", "brokers", "--entity-name", "0")
    check(out == "Dynamic configs for broker 0 are:\n", "broker 0 still has "
          "no dynamic configs", out)
    out, _ = ok("kafka-configs --describe --all a broker", "configs",
                "--describe", "--entity-type", "brokers", "--entity-name",
                "0", "--all")
    check(out.startswith("All configs for broker 0 are:\n")
          and "  num.partitions=1 sensitive=false" in out,
          "--describe --all lists the broker's static configs", out[:400])


# -- groups ---------------------------------------------------------------------

def produce():
    """Ten records in each partition of orders: 5, a pause, 5. Returns the
    time between the two halves (ms)."""
    p = Producer({"bootstrap.servers": BOOT})
    for i in range(15):
        p.produce("orders", key=b"k%d" % i, value=b"v%d" % i, partition=i % 3)
    p.flush(10)
    time.sleep(1.0)
    middle = int(time.time() * 1000)
    time.sleep(1.0)
    for i in range(15):
        p.produce("orders", key=b"k%d" % i, value=b"v%d" % i, partition=i % 3)
    p.flush(10)
    return middle


def groups_cases(admin, http_port):
    middle = produce()
    c = live_consumer("live", "tools-test")
    check(len(c.assignment()) == 3, "a confluent-kafka consumer of group "
          "live holds orders' 3 partitions", str(c.assignment()))

    out, _ = ok("kafka-consumer-groups --list", "groups", "--list")
    check("live" in out.split(), "--list names group live", out)
    out, _ = ok("--list --state", "groups", "--list", "--state")
    check(["live", "Stable"] in rows(out, "GROUP"),
          "--list --state: live is Stable", out)
    out, _ = ok("--list --state stable", "groups", "--list", "--state",
                "stable")
    check(["live", "Stable"] in rows(out, "GROUP"), "--state stable keeps "
          "live", out)
    out, _ = ok("--list --state empty", "groups", "--list", "--state", "Empty")
    check(out.startswith("GROUP") and "live" not in out,
          "--state Empty leaves live out", out)

    out, err = ok("--describe, nothing committed", "groups", "--describe",
                  "--group", "live")
    r = rows(out, "GROUP")
    check(len(r) == 3 and all(x[3] == "-" and x[4] == "10" and x[5] == "-"
                              for x in r),
          "--describe: CURRENT-OFFSET and LAG are '-' where nothing is "
          "committed, LOG-END-OFFSET 10", out)
    golden("groups_describe_uncommitted", out)

    # The dashboard's REST view of the same group: lag entries without a
    # "lag" field while nothing is committed.
    def rest():
        with urllib.request.urlopen(
                "http://127.0.0.1:%d/v1/groups/live" % http_port,
                timeout=5) as f:
            return json.loads(f.read())
    g = rest()
    lag = {l["partition"]: l for l in g.get("lag", [])}
    check(len(lag) == 3 and all("lag" not in l and l.get("committed") == -1
                                for l in lag.values()),
          "GET /v1/groups/live: no lag field, committed -1 where nothing is "
          "committed", json.dumps(g))

    c.commit(offsets=[TopicPartition("orders", 0, 4)], asynchronous=False)
    g = rest()
    lag = {l["partition"]: l for l in g.get("lag", [])}
    p0 = lag.get(0, {})
    check(p0.get("committed") == 4 and p0.get("lag") == 6
          and p0.get("lag") == p0.get("high_watermark", 0) - 4
          and "lag" not in lag.get(1, {"lag": 0}),
          "after a commit at 4: GET /v1/groups/live has lag 6 = end - "
          "committed for partition 0 and still none for 1", json.dumps(g))

    out, err = ok("--describe (default)", "groups", "--describe", "--group",
                  "live")
    r = {int(x[2]): x for x in rows(out, "GROUP")}
    check(r.get(0, [""] * 9)[3:6] == ["4", "10", "6"]
          and r.get(1, [""] * 9)[3:6] == ["-", "10", "-"]
          and all(x[6].startswith("tools-test-") and x[7] == "/127.0.0.1"
                  and x[8] == "tools-test" for x in r.values()),
          "--describe: GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET "
          "LAG CONSUMER-ID HOST CLIENT-ID with the commit", out)
    golden("groups_describe_live", out)
    out2, _ = ok("--describe --offsets", "groups", "--describe", "--group",
                 "live", "--offsets")
    check(out2 == out, "--offsets is the default sub-action", out2)
    js, _ = ok("--describe --output json", "groups", "--describe", "--group",
               "live", "--output", "json")
    try:
        j = json.loads(js)[0]
        jrows = {o["partition"]: o for o in j["offsets"]}
        same = all(
            str(jrows[p]["current_offset"] if jrows[p]["current_offset"]
                is not None else "-") == r[p][3]
            and str(jrows[p]["log_end_offset"]) == r[p][4]
            and str(jrows[p]["lag"] if jrows[p]["lag"] is not None else "-")
            == r[p][5] and jrows[p]["consumer_id"] == r[p][6]
            and jrows[p]["client_id"] == r[p][8] for p in r)
        check(j["group"] == "live" and j["state"] == "Stable" and same
              and len(jrows) == 3,
              "--describe --output json: the table's values, null for '-'", js)
    except (ValueError, IndexError, KeyError) as e:
        check(False, "--describe --output json parses", "%s: %r" % (e, js))

    out, _ = ok("--describe --members", "groups", "--describe", "--group",
                "live", "--members")
    m = rows(out, "GROUP")
    check(len(m) == 1 and m[0][0] == "live" and m[0][2] == "/127.0.0.1"
          and m[0][3] == "tools-test" and m[0][4] == "3"
          and out.splitlines()[1].endswith("#PARTITIONS     "),
          "--members: one member, its host, client id and 3 partitions", out)
    golden("groups_describe_members", out)
    out, _ = ok("--describe --members --verbose", "groups", "--describe",
                "--group", "live", "--members", "--verbose")
    check(out.rstrip("\n").endswith("(0,1,2)")
          and "#PARTITIONS     ASSIGNMENT" in out,
          "--members --verbose: the ASSIGNMENT column", out)
    golden("groups_describe_members_verbose", out)
    js, _ = ok("--members --output json", "groups", "--describe", "--group",
               "live", "--members", "--output", "json")
    try:
        mj = json.loads(js)[0]["members"][0]
        check(mj["client_id"] == "tools-test" and mj["partitions"] == 3
              and mj["host"] == "/127.0.0.1" and mj["consumer_id"] == m[0][1],
              "--members --output json: the table's values", js)
    except (ValueError, IndexError, KeyError) as e:
        check(False, "--members --output json parses", "%s: %r" % (e, js))
    out, _ = ok("--describe --state", "groups", "--describe", "--group",
                "live", "--state")
    s = rows(out, "GROUP")
    check(len(s) == 1 and s[0][0] == "live" and s[0][3] == "range"
          and s[0][4] == "Stable" and s[0][5] == "1",
          "--state: coordinator, range, Stable, 1 member", out)
    golden("groups_describe_state", out)
    js, _ = ok("--state --output json", "groups", "--describe", "--group",
               "live", "--state", "--output", "json")
    try:
        sj = json.loads(js)[0]
        check(sj["state"] == "Stable" and sj["members"] == 1
              and sj["assignment_strategy"] == "range"
              and "127.0.0.1:%d  (%d)" % (sj["coordinator"]["port"],
                                          sj["coordinator"]["id"]) in out,
              "--state --output json: the table's values", js)
    except (ValueError, IndexError, KeyError) as e:
        check(False, "--state --output json parses", "%s: %r" % (e, js))
    js, _ = ok("--list --output json", "groups", "--list", "--output", "json")
    try:
        check({"group": "live", "state": "Stable", "type": "classic"}
              in json.loads(js), "--list --output json: live, Stable, "
              "classic", js)
    except ValueError as e:
        check(False, "--list --output json parses", "%s: %r" % (e, js))

    # Refusals while the group has members.
    refused("--reset-offsets --execute on a live group: Kafka's message",
            ["groups", "--reset-offsets", "--group", "live", "--topic",
             "orders", "--to-earliest", "--execute"],
            "Error: Assignments can only be reset if the group 'live' is "
            "inactive, but the current state is Stable.")
    check(committed(admin, "live") == {0: 4}, "the refused reset changed "
          "nothing", str(committed(admin, "live")))
    refused("--delete of a live group: Kafka's NON_EMPTY_GROUP message",
            ["groups", "--delete", "--group", "live"],
            "Group 'live' could not be deleted due to: "
            "org.apache.kafka.common.errors.GroupNotEmptyException: The "
            "group is not empty.")
    rc, out, err = tool("groups", "--delete-offsets", "--group", "live",
                        "--topic", "orders")
    check(rc == 1 and err == "Error: Encounter some partition level error, "
          "see the follow-up details:\n"
          and "Error: :Deleting offsets of a topic is forbidden while the "
          "consumer group is actively subscribed to it." in out,
          "--delete-offsets of a subscribed topic: GROUP_SUBSCRIBED_TO_TOPIC "
          "per partition, exit 1", "exit %d\n%s\n%s" % (rc, out, err))
    golden("groups_delete_offsets_subscribed", out)

    c.close()
    check(wait_for(lambda: group_state("live") == "Empty"),
          "the consumer left: live is Empty")
    out, err = ok("--describe an Empty group", "groups", "--describe",
                  "--group", "live")
    check(err == "\nConsumer group 'live' has no active members.\n",
          "Kafka's 'has no active members.' note on stderr", repr(err))
    golden("groups_describe_empty", out)
    js, _ = ok("--describe --output json of an Empty group", "groups",
               "--describe", "--group", "live", "--output", "json")
    try:
        e = json.loads(js)[0]
        check(e["state"] == "Empty" and len(e["offsets"]) == 1
              and e["offsets"][0]["current_offset"] == 4
              and e["offsets"][0]["lag"] == 6
              and e["offsets"][0]["consumer_id"] is None
              and e["offsets"][0]["host"] is None
              and e["offsets"][0]["client_id"] is None,
              "--output json of an Empty group: the committed row, null "
              "where the table has '-'", js)
    except (ValueError, IndexError, KeyError) as x:
        check(False, "--output json of an Empty group parses",
              "%s: %r" % (x, js))
    out, err = ok("--describe --members of an Empty group", "groups",
                  "--describe", "--group", "live", "--members")
    golden("groups_describe_members_empty", out)

    # --reset-offsets: dry run by default, then each scenario executed.
    def reset(what, *scenario, execute=True, expect=None):
        args = ["groups", "--reset-offsets", "--group", "live", "--topic",
                "orders"] + list(scenario) + (["--execute"] if execute else [])
        out, err = ok("--reset-offsets " + what, *args)
        plan = {int(x[2]): int(x[3]) for x in rows(out, "GROUP")}
        if expect is not None:
            check(plan == expect, "--reset-offsets %s plans %s" % (what, expect),
                  out)
            if execute:
                got = committed(admin, "live")
                check(got == expect, "--reset-offsets %s --execute commits %s "
                      "(kafka-python)" % (what, expect), str(got))
        return out

    out = reset("--to-earliest (dry run)", "--to-earliest", execute=False,
                expect={0: 0, 1: 0, 2: 0})
    golden("groups_reset_dry_run", out)
    check(committed(admin, "live") == {0: 4}, "a dry run (the default) "
          "commits nothing", str(committed(admin, "live")))
    reset("--to-earliest --dry-run", "--to-earliest", "--dry-run",
          execute=False, expect={0: 0, 1: 0, 2: 0})
    check(committed(admin, "live") == {0: 4}, "--dry-run commits nothing")
    reset("--to-earliest", "--to-earliest", expect={0: 0, 1: 0, 2: 0})
    reset("--to-latest", "--to-latest", expect={0: 10, 1: 10, 2: 10})
    reset("--to-offset 3", "--to-offset", "3", expect={0: 3, 1: 3, 2: 3})
    reset("--shift-by -2", "--shift-by", "-2", expect={0: 1, 1: 1, 2: 1})
    reset("--shift-by 100 (clamped to the log end)", "--shift-by", "100",
          expect={0: 10, 1: 10, 2: 10})
    reset("--to-offset 99 (clamped)", "--to-offset", "99", execute=False,
          expect={0: 10, 1: 10, 2: 10})
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(middle / 1000))
    stamp += ".%03d" % (middle % 1000)
    reset("--to-datetime between the halves", "--to-datetime", stamp,
          expect={0: 5, 1: 5, 2: 5})
    local = time.gmtime(middle / 1000 + 9 * 3600)
    tokyo = time.strftime("%Y-%m-%dT%H:%M:%S", local) + ".%03d" % (
        middle % 1000)
    for zone in ("+09:00", "+0900", "+09"):
        reset("--to-datetime with zone " + zone, "--to-datetime",
              tokyo + zone, execute=False, expect={0: 5, 1: 5, 2: 5})
    reset("--to-datetime with zone Z", "--to-datetime", stamp + "Z",
          execute=False, expect={0: 5, 1: 5, 2: 5})
    reset("--by-duration P1D", "--by-duration", "P1D",
          expect={0: 0, 1: 0, 2: 0})
    reset("--by-duration PT0S (after every record: the log end)",
          "--by-duration", "PT0S", expect={0: 10, 1: 10, 2: 10})
    csv = os.path.join(scratch_dir("tools-csv-"), "plan.csv")
    with open(csv, "w") as f:
        f.write("orders,0,2\norders,1,7\norders,2,9\n")
    rc, out, err = tool("groups", "--reset-offsets", "--group", "live",
                        "--from-file", csv, "--execute")
    plan = {int(x[2]): int(x[3]) for x in rows(out, "GROUP")}
    check(rc == 0 and plan == {0: 2, 1: 7, 2: 9}
          and committed(admin, "live") == {0: 2, 1: 7, 2: 9},
          "--reset-offsets --from-file --execute commits the file's offsets",
          "exit %d %s %s %s" % (rc, out, err, committed(admin, "live")))
    golden("groups_reset_from_file", out)
    js, _ = ok("--reset-offsets --output json", "groups", "--reset-offsets",
               "--group", "live", "--topic", "orders", "--to-offset", "6",
               "--output", "json")
    try:
        j = json.loads(js)
        check(j["executed"] is False
              and {o["partition"]: o["new_offset"] for o in j["offsets"]}
              == {0: 6, 1: 6, 2: 6},
              "--reset-offsets --output json: the plan, not executed", js)
    except (ValueError, KeyError) as e:
        check(False, "--reset-offsets --output json parses", "%s: %r" % (e, js))

    rc, out, err = tool("groups", "--reset-offsets", "--group", "live",
                        "--all-topics", "--to-current", "--export")
    check(rc == 0 and out == "orders,0,2\norders,1,7\norders,2,9\n\n",
          "--all-topics --to-current --export: the committed offsets as "
          "Kafka's CSV", "exit %d %r %r" % (rc, out, err))
    # A group that does not exist yet gets its offsets (Kafka seeds them).
    rc, out, err = tool("groups", "--reset-offsets", "--group", "fresh",
                        "--topic", "orders:1", "--to-offset", "3",
                        "--execute")
    check(rc == 0 and committed(admin, "fresh") == {1: 3},
          "--reset-offsets --execute of a group that does not exist commits "
          "its offsets", "exit %d %r %r %s" % (rc, out, err,
                                               committed(admin, "fresh")))

    c = live_consumer("live", "tools-resume")
    first = first_offsets(c, 3)
    check(first == {0: 2, 1: 7, 2: 9}, "the group, once Empty and reset, "
          "resumes at the reset offsets", str(first))
    c.close()
    check(wait_for(lambda: group_state("live") == "Empty"),
          "the resumed consumer left: live is Empty again")

    # --delete-offsets and --delete of an Empty group.
    out, err = ok("--delete-offsets of an Empty group", "groups",
                  "--delete-offsets", "--group", "live", "--topic", "orders:0")
    check(out.startswith("Request succeed for deleting offsets with topic "
                         "orders:0 group live\n")
          and "orders                         0               Successful"
          in out and 0 not in committed(admin, "live"),
          "--delete-offsets removes partition 0's offset (kafka-python)",
          out + str(committed(admin, "live")))
    golden("groups_delete_offsets", out)
    out, err = ok("--delete of an Empty group", "groups", "--delete",
                  "--group", "live")
    check(out == "Deletion of requested consumer groups ('live') was "
          "successful.\n", "--delete: Kafka's success line", out)
    check("live" not in tool("groups", "--list")[1].split(),
          "the deleted group leaves --list")
    refused("--describe of a deleted group: Kafka's line",
            ["groups", "--describe", "--group", "live"],
            "Error: Consumer group 'live' does not exist.")
    refused("--delete of an unknown group",
            ["groups", "--delete", "--group", "live"],
            "Group 'live' could not be deleted due to: "
            "org.apache.kafka.common.errors.GroupIdNotFoundException")


def two_member_cases():
    """A static member (group.instance.id) and a dynamic one: Kafka's
    GROUP-INSTANCE-ID column, rows of the member with more partitions
    first."""
    a = live_consumer("pair", "tools-a", instance="inst-a")
    b = live_consumer("pair", "tools-b")
    try:
        end = time.time() + 30
        while time.time() < end and not (
                len(a.assignment()) + len(b.assignment()) == 3
                and b.assignment() and group_state("pair") == "Stable"):
            a.poll(0.1)
            b.poll(0.1)
        check(sorted([len(a.assignment()), len(b.assignment())]) == [1, 2],
              "two consumers of group pair share orders' 3 partitions 2 + 1",
              "%s %s" % (a.assignment(), b.assignment()))
        out, _ = ok("--describe --members with a static member", "groups",
                    "--describe", "--group", "pair", "--members")
        m = {r[-2]: r for r in rows(out, "GROUP")}
        check("CONSUMER-ID                                  GROUP-INSTANCE-ID "
              "HOST" in out and m.get("tools-a", [""] * 3)[2] == "inst-a"
              and len(m.get("tools-b", [])) == 5,
              "--members: the GROUP-INSTANCE-ID column, empty for the "
              "dynamic member", out)
        golden("groups_describe_members_static", out)
        out, _ = ok("--describe of two members", "groups", "--describe",
                    "--group", "pair")
        r = rows(out, "GROUP")
        counts = [x[8] for x in r]
        check(len(r) == 3 and counts[0] == counts[1] != counts[2],
              "--describe: the member with two partitions' rows come first, "
              "each member's by partition", out)
        golden("groups_describe_pair", out)
        for last in BOOT.split(",")[1:]:
            rc, out2, err = tool("groups", "--describe", "--group", "pair",
                                 "--bootstrap-server", last, boot=False)
            check(rc == 0 and out2 == out,
                  "--describe through another broker (%s) finds the "
                  "group's coordinator and prints the same table" % last,
                  "exit %d %r %r" % (rc, out2, err))
    finally:
        a.close()
        b.close()


def rebalancing_case():
    """A member that does not poll holds its group in PreparingRebalance
    when a second one joins: Kafka's 'is rebalancing.' warning."""
    a = live_consumer("moving", "tools-still")
    import threading
    stop = []
    b = Consumer({"bootstrap.servers": BOOT, "group.id": "moving",
                  "client.id": "tools-joiner", "enable.auto.commit": False,
                  "session.timeout.ms": 10000})
    b.subscribe(["orders"])

    def joiner():
        while not stop:
            b.poll(0.2)
    t = threading.Thread(target=joiner, daemon=True)
    t.start()
    try:
        state = wait_for(lambda: group_state("moving") in (
            "PreparingRebalance", "CompletingRebalance"))
        check(state, "a second member joins while the first does not poll: "
              "the group is rebalancing", str(group_state("moving")))
        rc, out, err = tool("groups", "--describe", "--group", "moving",
                            "--state")
        check(rc == 0 and err == "\nWarning: Consumer group 'moving' is "
              "rebalancing.\n" and "PreparingRebalance" in out,
              "--describe of a rebalancing group: Kafka's warning on stderr "
              "and the state table", "exit %d %r %r" % (rc, out, err))
    finally:
        stop.append(1)
        t.join(5)
        b.close()
        a.close()


# -- flag errors ------------------------------------------------------------------

BAD = [
    (["groups", "--describe", "--group", "nobody"],
     "Error: Consumer group 'nobody' does not exist."),
    (["groups", "--describe", "--group", "nobody", "--members"],
     "Error: Consumer group 'nobody' does not exist."),
    (["groups", "--describe", "--group", "nobody", "--state"],
     "Error: Consumer group 'nobody' does not exist."),
    (["groups", "--list", "--describe"], "exactly one action"),
    (["groups", "--describe"], "takes one of these options"),
    (["groups", "--describe", "--group", "g", "--members", "--offsets"],
     "at most one of these options"),
    (["groups", "--list", "--state", "Bogus"], "Invalid state list 'Bogus'"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders"],
     "requires one of the following scenarios"),
    (["groups", "--reset-offsets", "--group", "g", "--to-earliest"],
     "One of the reset scopes should be defined"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders",
      "--to-offset", "x"], "x"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders",
      "--by-duration", "1 day"], "Duration"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders",
      "--to-datetime", "yesterday"], "It does not contain a 'T'"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders",
      "--to-datetime", "2026-01-01T00:00:00.000+25:00"], "time zone"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders",
      "--to-earliest", "--to-latest"], "can't be used with option"),
    (["groups", "--reset-offsets", "--group", "g", "--topic", "orders",
      "--to-earliest", "--dry-run", "--execute"], "execute"),
    (["groups", "--reset-offsets", "--group", "g", "--from-file",
      "/nonexistent.csv", "--execute"], "/nonexistent.csv"),
    (["groups", "--delete-offsets", "--group", "g"], "[topic]"),
    (["groups", "--list", "--output", "yaml"], "yaml"),
    (["groups", "--list", "--bogus"], "bogus"),
    (["topics", "--describe", "--topic", "nope"],
     "Topic 'nope' does not exist as expected"),
    (["topics", "--create", "--topic", "x", "--partitions", "zero"], "zero"),
    (["topics", "--create", "--topic", "x", "--partitions", "1",
      "--replication-factor", "9"], "9"),
    (["topics", "--create", "--topic", "bad/name"],
     "Topic name \"bad/name\" is illegal, it contains a character other "
     "than ASCII alphanumerics, '.', '_' and '-'"),
    (["topics", "--create", "--topic", ".."],
     "Topic name cannot be \".\" or \"..\""),
    (["topics", "--alter", "--topic", "orders"], "partitions"),
    (["topics", "--create", "--topic", "x", "--replica-assignment", "0:1,2"],
     "Partition 1 has different replication factor: 2"),
    (["topics", "--create", "--topic", "x", "--replica-assignment", "0:0"],
     "Partition replica lists may not contain duplicate entries: 0"),
    (["topics", "--create", "--topic", "x", "--replica-assignment", "0:1",
      "--partitions", "2"], "can't be used with option"),
    # troupe's controller places replicas itself (a server refusal).
    (["topics", "--create", "--topic", "x", "--replica-assignment",
      "0:1,1:2"], "explicit replica assignments are not supported"),
    (["topics", "--alter", "--topic", "nomatch.*", "--partitions", "4"],
     "Topic 'nomatch.*' does not exist as expected"),
    (["topics", "--list", "--create"], "exactly one action"),
    (["configs", "--describe", "--entity-type", "widgets",
      "--entity-name", "x"], "widgets"),
    (["configs", "--alter", "--entity-type", "topics", "--entity-name",
      "orders"], "add-config"),
    (["configs", "--alter", "--entity-type", "topics", "--entity-name",
      "orders", "--add-config", "no.such.config=1"], "no.such.config"),
    (["configs", "--alter", "--entity-type", "topics", "--entity-name",
      "orders", "--add-config", "retention.ms=soon"], "retention.ms"),
    (["configs", "--describe", "--entity-type", "topics", "--entity-name",
      "nope"], "nope"),
]


def bad_invocations():
    for args, needle in BAD:
        refused("bad input, one line and exit 1: troupe " + " ".join(args),
                args, needle)
    for t in ("groups", "topics", "configs"):
        rc, out, err = tool(t, boot=False)
        check(rc == 1 and out == "" and err.startswith("Usage: troupe " + t),
              "troupe %s without arguments: the usage on stderr, exit 1" % t,
              "exit %d %r %r" % (rc, out, err[:200]))
        rc, out, err = tool(t, "--help", boot=False)
        check(rc == 0 and err == "" and out.startswith("Usage: troupe " + t),
              "troupe %s --help: the usage on stdout, exit 0" % t,
              "exit %d %r %r" % (rc, out[:200], err))
    # Flags are checked before any connection: the same errors with a
    # bootstrap server nobody listens on.
    for args, needle in BAD:
        if "does not exist" in needle or "not supported" in needle \
                or needle in ("no.such.config", "retention.ms", "nope", "9",
                              "/nonexistent.csv"):
            continue  # these need the cluster's answer
        rc, out, err = tool(*(args + ["--bootstrap-server", "127.0.0.1:1"]),
                            boot=False)
        check(rc == 1 and needle in err and "cannot reach" not in err,
              "checked before connecting: troupe " + " ".join(args),
              "exit %d %r" % (rc, err))
    refused("no --bootstrap-server", ["groups", "--list"],
            'Missing required argument "[bootstrap-server]"', boot=False)
    rc, out, err = tool("groups", "--list", "--bootstrap-server",
                        "127.0.0.1:1", "--timeout", "1000", boot=False)
    check(rc == 1 and out == "" and len(err.splitlines()) == 1,
          "an unreachable cluster: one line and exit 1",
          "exit %d %r %r" % (rc, out, err))


# -- --command-config -------------------------------------------------------------

def command_config_cases(sasl_boot):
    d = scratch_dir("tools-cc-")

    def props(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path
    plain = props("plain.properties", "client.id=tools-cc\n"
                  "request.timeout.ms=5000\n")
    out, _ = ok("--command-config with client.id and request.timeout.ms",
                "topics", "--list", "--command-config", plain)
    check("orders" in out.split(), "--command-config: --list works", out)
    refused("--command-config: a missing file", ["topics", "--list",
                                                "--command-config",
                                                os.path.join(d, "none")],
            os.path.join(d, "none"))
    refused("--command-config: request.timeout.ms not a number",
            ["topics", "--list", "--command-config",
             props("bad.properties", "request.timeout.ms=soon\n")],
            "request.timeout.ms")

    # A listener that reads the first request and never answers: the
    # client.id in its header, and request.timeout.ms bounding the wait.
    import socket
    import struct
    import threading
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(4)
    seen = []

    def mute():
        lsock.settimeout(15)
        try:
            conn, _ = lsock.accept()
            head = conn.recv(4096)
            if len(head) >= 14:
                n = struct.unpack(">h", head[12:14])[0]
                seen.append(head[14:14 + n].decode())
            time.sleep(10)
            conn.close()
        except OSError:
            pass
    t = threading.Thread(target=mute, daemon=True)
    t.start()
    started = time.time()
    rc, out, err = tool("topics", "--list", "--bootstrap-server",
                        "127.0.0.1:%d" % lsock.getsockname()[1],
                        "--command-config", props("mute.properties",
                                                  "client.id=tools-cc\n"
                                                  "request.timeout.ms=1500\n"),
                        boot=False)
    took = time.time() - started
    lsock.close()
    check(seen == ["tools-cc"], "--command-config client.id is the "
          "request header's client id", str(seen))
    check(rc == 1 and out == "" and len(err.splitlines()) == 1 and took < 6,
          "--command-config request.timeout.ms=1500: a broker that never "
          "answers fails in one line within seconds",
          "exit %d after %.1f s %r %r" % (rc, took, out, err))

    jaas = ('sasl.jaas.config=org.apache.kafka.common.security.scram.'
            'ScramLoginModule required username="alice" password="%s";\n')
    good = props("sasl.properties", "security.protocol=SASL_PLAINTEXT\n"
                 "sasl.mechanism=SCRAM-SHA-512\n" + jaas % "alice-pw")
    rc, out, err = tool("topics", "--list", "--bootstrap-server", sasl_boot,
                        "--command-config", good, boot=False)
    check(rc == 0 and "orders" in out.split(),
          "--command-config SASL_PLAINTEXT SCRAM-SHA-512: --list over the "
          "SASL listener", "exit %d %r %r" % (rc, out, err))
    rc, out, err = tool("groups", "--list", "--bootstrap-server", sasl_boot,
                        "--command-config", good, boot=False)
    check(rc == 0, "--command-config SASL: groups --list",
          "exit %d %r %r" % (rc, out, err))
    wrong = props("wrong.properties", "security.protocol=SASL_PLAINTEXT\n"
                  "sasl.mechanism=SCRAM-SHA-512\n" + jaas % "nope")
    rc, out, err = tool("topics", "--list", "--bootstrap-server", sasl_boot,
                        "--command-config", wrong, boot=False)
    check(rc == 1 and out == "" and len(err.splitlines()) == 1
          and "uthentication" in err,
          "a wrong SCRAM password: one line naming the authentication "
          "failure, exit 1", "exit %d %r %r" % (rc, out, err))


def tls_cases(tls_boot, pki):
    """--command-config security.protocol=SSL with a PEM truststore: the
    CA that signed the listener's certificate is trusted, another is not."""
    d = scratch_dir("tools-tls-")
    good = os.path.join(d, "ssl.properties")
    with open(good, "w") as f:
        f.write("security.protocol=SSL\nssl.truststore.type=PEM\n"
                "ssl.truststore.location=%s\n" % pki.ca_cert)
    rc, out, err = tool("topics", "--list", "--bootstrap-server", tls_boot,
                        "--command-config", good, boot=False)
    check(rc == 0 and "orders" in out.split(),
          "--command-config SSL with the CA's PEM: --list over TLS",
          "exit %d %r %r" % (rc, out, err))
    rc, out, err = tool("groups", "--describe", "--group", "pair", "--state",
                        "--bootstrap-server", tls_boot, "--command-config",
                        good, boot=False)
    check(rc == 0 and "pair" in out, "--command-config SSL: groups "
          "--describe reaches the coordinator over TLS",
          "exit %d %r %r" % (rc, out, err))
    wrong = os.path.join(d, "other.properties")
    with open(wrong, "w") as f:
        f.write("security.protocol=SSL\nssl.truststore.type=PEM\n"
                "ssl.truststore.location=%s\n" % pki.other_ca_cert)
    rc, out, err = tool("topics", "--list", "--bootstrap-server", tls_boot,
                        "--command-config", wrong, boot=False)
    check(rc == 1 and out == "" and len(err.splitlines()) == 1,
          "--command-config SSL trusting another CA: one line, exit 1",
          "exit %d %r %r" % (rc, out, err))


def main():
    global BINARY, BOOT
    BINARY = os.path.abspath(sys.argv[1])
    sasl = free_port_range(3)
    tls = free_port_range(3)
    pki = make_pki(scratch_dir("tools-pki-"))
    # log.segment.bytes set on the brokers: kafka-topics --describe lists
    # a static broker setting among a topic's configs.
    srv = TroupeServe(BINARY, overrides=["auto.create.topics.enable=false",
                                         "log.segment.bytes=536870912"])
    srv.overrides += [
        "listeners=PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d,"
        "SSL://127.0.0.1:%d" % (srv.port, sasl, tls),
        "sasl.enabled.mechanisms=SCRAM-SHA-512",
        "ssl.keystore.type=PEM", "ssl.keystore.location=" + pki.server_pem]
    with srv:
        BOOT = srv.bootstrap()
        res = kw.alter_scram("127.0.0.1", srv.port,
                             [kw.upsertion("alice", kw.SHA_512, "alice-pw")])
        check(res == [("alice", 0, None)], "SCRAM user alice created", str(res))
        admin = KafkaAdminClient(bootstrap_servers=BOOT,
                                 client_id="tools-test-admin")
        try:
            for part in (topics_cases, configs_cases,
                         lambda a: groups_cases(a, srv.http_port),
                         lambda a: two_member_cases(),
                         lambda a: rebalancing_case(),
                         lambda a: bad_invocations(),
                         lambda a: command_config_cases(
                             "127.0.0.1:%d" % sasl),
                         lambda a: tls_cases("127.0.0.1:%d" % tls, pki)):
                try:
                    part(admin)
                except Exception as e:  # one part's crash fails, others run
                    import traceback
                    traceback.print_exc()
                    check(False, "a part of the test raised %r" % e)
        finally:
            admin.close()
        if failures:
            srv.show_log(40)
    print("%d passed, %d failed" % (passed[0], len(failures)))
    for f in failures:
        print("  failed: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        status = main()
    finally:
        for d in SCRATCH:
            shutil.rmtree(d, ignore_errors=True)
    sys.exit(status)
