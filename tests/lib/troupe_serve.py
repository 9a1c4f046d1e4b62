"""One `troupe serve` for a Python test: the embedded node (three brokers,
Kafka listener of broker i on port+i) and the HTTP gateway on port+3, on
free loopback ports and a temporary log.dirs, killed with the test however
the test ends.

    with TroupeServe(binary, overrides=["num.partitions=3"]) as srv:
        srv.bootstrap()            -> "127.0.0.1:P,127.0.0.1:P+1,127.0.0.1:P+2"
        srv.port, srv.http_port    -> the first Kafka port, the HTTP port
        srv.restart()              -> stop and start on the same log.dirs
    # leaving the block stops the server; on an exception it prints the
    # log's tail first. KEEP_LOGS=1 keeps the directory.

New tests use this class; the older tests each still carry their own.
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402

# Quick groups for tests: Kafka's defaults wait 3 s before a first
# rebalance.
DEFAULT_OVERRIDES = ["group.initial.rebalance.delay.ms=0"]


class TroupeServe:
    def __init__(self, binary, overrides=(), args=(), prefix="troupe-test-",
                 ready_timeout=30):
        self.binary = binary
        self.overrides = DEFAULT_OVERRIDES + list(overrides)
        self.extra_args = list(args)
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.port = free_port_range(4)
        self.http_port = self.port + 3
        self.log_path = os.path.join(self.dir, "troupe.log")
        self.ready_timeout = ready_timeout
        self.proc = None
        self.log = None
        self.starts = 0

    # -- lifecycle -------------------------------------------------------------

    def start(self):
        self.starts += 1
        self.log = open(self.log_path, "a")
        marker = "=== start %d\n" % self.starts
        self.log.write(marker)
        self.log.flush()
        args = [self.binary, "serve", "--http-port", str(self.http_port),
                "--http-bind", "127.0.0.1", "--log-level", "info",
                "--override", "log.dirs=" + os.path.join(self.dir, "logs"),
                "--override", "port=%d" % self.port]
        for o in self.overrides:
            args += ["--override", o]
        args += self.extra_args
        self.proc = subprocess.Popen(args, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent())
        ready = "Kafka listeners on %d.." % self.port
        deadline = time.time() + self.ready_timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            with open(self.log_path) as f:
                text = f.read().split(marker)[-1]
            if ready in text:
                try:
                    socket.create_connection(("127.0.0.1", self.port),
                                             1).close()
                    return self
                except OSError:
                    pass
            time.sleep(0.1)
        self.show_log()
        raise RuntimeError("troupe serve did not come up")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def restart(self):
        self.stop()
        return self.start()

    def show_log(self, lines=80):
        try:
            with open(self.log_path) as f:
                tail = f.readlines()[-lines:]
        except OSError:
            return
        print("--- troupe log (tail)")
        sys.stdout.writelines(tail)
        sys.stdout.flush()

    def cleanup(self, failed=False):
        self.stop()
        if failed:
            self.show_log()
        if os.environ.get("KEEP_LOGS"):
            print("logs in", self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, kind, value, tb):
        self.cleanup(failed=kind is not None)
        return False

    # -- addresses -------------------------------------------------------------

    def bootstrap(self, brokers=(0, 1, 2)):
        return ",".join("127.0.0.1:%d" % (self.port + i) for i in brokers)
