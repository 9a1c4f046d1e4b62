#!/usr/bin/python3
"""sarama 1.22 (Debian's golang-github-shopify-sarama-dev) against
`troupe serve`: builds tests/kafka/sarama/sarama_check.go with Debian's Go
in GOPATH mode (GO111MODULE=off GOPATH=/usr/share/gocode, no network, the
Go cache under GOCACHE or this test's temporary directory, never $HOME),
starts troupe on free ports and runs one case at one sarama
Config.Version.

    sarama_test.py TROUPE GO VERSION CASE    VERSION 0.10.2 or 2.1,
                                             CASE produce or group

On failure it prints the tail of sarama's log and of troupe's.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
from children import die_with_parent  # noqa: E402
from troupe_serve import TroupeServe  # noqa: E402

GOPATH = "/usr/share/gocode"


def build(go, out_dir):
    """Builds sarama_check into out_dir; returns its path."""
    exe = os.path.join(out_dir, "sarama_check")
    cache = os.environ.get("SARAMA_GOCACHE") or os.path.join(out_dir,
                                                             "gocache")
    env = {
        "PATH": "/usr/bin:/bin",
        "GO111MODULE": "off",
        "GOPATH": GOPATH,
        "GOCACHE": cache,
        "GOENV": "off",
        "GOPROXY": "off",
        "GOFLAGS": "",
        "HOME": out_dir,
        "TMPDIR": out_dir,
        # DataDog/zstd (a sarama dependency) calls a deprecated zstd
        # function: keep its cgo warning out of the test's output.
        "CGO_CFLAGS": "-O2 -Wno-deprecated-declarations",
    }
    r = subprocess.run([go, "build", "-o", exe,
                        os.path.join(HERE, "sarama_check.go")],
                       env=env, cwd=out_dir, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=180)
    if r.returncode != 0:
        print(r.stdout.decode(errors="replace"))
        print("FAIL: go build of sarama_check.go against %s failed" % GOPATH)
        sys.exit(1)
    return exe


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    troupe, go, version, case = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="troupe-sarama-") as tmp:
        exe = build(go, tmp)
        print("ok: sarama_check built with %s in GOPATH mode" % go)
        topic = "sarama-%s-%s" % (case, version.replace(".", "-"))
        log_path = os.path.join(tmp, "sarama.log")
        failed = True
        srv = TroupeServe(troupe, prefix="troupe-sarama-serve-")
        try:
            srv.start()
            sys.stdout.flush()
            with open(log_path, "w") as log:
                try:
                    r = subprocess.run(
                        [exe, "-brokers", srv.bootstrap(), "-version",
                         version, "-case", case, "-topic", topic],
                        stdout=None, stderr=log, timeout=90,
                        preexec_fn=die_with_parent())
                    rc = r.returncode
                except subprocess.TimeoutExpired:
                    print("FAIL: sarama_check did not finish within 90 s")
                    rc = 1
            failed = rc != 0
            if failed:
                with open(log_path, errors="replace") as f:
                    lines = f.readlines()
                print("--- sarama's log (last 60 of %d lines)" % len(lines))
                sys.stdout.writelines(lines[-60:])
                sys.stdout.flush()
        finally:
            srv.cleanup(failed=failed)
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
