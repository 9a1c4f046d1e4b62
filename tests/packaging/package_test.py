"""troupe installed like a server (packaging/): the Debian package CPack
builds and `cmake --install`, checked as an admin would use them.

    package_test.py CASE BUILD_DIR VERSION

BUILD_DIR is the configured build tree (its troupe built, its
CPackConfig.cmake and cmake_install.cmake); VERSION the project's. Cases:

  contents    cpack -G DEB into a temporary directory: the file name, the
              control fields (Depends computed by dpkg-shlibdeps), the
              conffiles, the files, the units (systemd-analyze verify when
              it exists) and the maintainer scripts (sh -n)
  runs        the package unpacked with dpkg-deb -x into a temporary root;
              <root>/usr/bin/troupe serve with <root>/etc/troupe/
              server.properties (log.dirs and port changed to temporary
              ones) serves the packaged dashboard files and answers
              ApiVersions on each Kafka listener
  install     cmake --install --prefix TMP: the layout, units naming that
              prefix, the installed copy serving share/troupe/web; without
              share/troupe/web it serves no dashboard (never the source
              tree's) and its Kafka listeners still answer
  maintainer  postinst, prerm and postrm run with every command they call
              stubbed (nothing on this machine changes): the user made
              once, nothing started without a running systemd, purge
              deletes data and user; then again with the real adduser,
              deluser and friends in a private mount namespace whose /etc
              and /var/lib are copies (root only, skipped otherwise)

Every troupe started is stopped by pid in a finally block (and dies with
this process: PR_SET_PDEATHSIG); temporary directories are removed unless
KEEP_LOGS=1.
"""

import glob
import os
import shutil
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from children import die_with_parent  # noqa: E402
from ports import free_port_range  # noqa: E402

SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
UNITS = ("troupe.service", "troupe@.service")
WEB_FILES = ("index.html", "app.js", "style.css")


class Failure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Failure(what)
    print("ok:", what)


def run(args, **kw):
    """Runs a command, its output captured; fails the test if it fails."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if p.returncode != 0:
        raise Failure("%s exited %d:\n%s" % (" ".join(args), p.returncode,
                                             p.stdout))
    return p.stdout


def deb_arch():
    return run(["dpkg", "--print-architecture"]).strip()


def build_package(build_dir, out_dir, version):
    """cpack -G DEB writing only under out_dir; the .deb's path."""
    cpack = os.environ.get("TROUPE_CPACK", "cpack")
    run([cpack, "--config", os.path.join(build_dir, "CPackConfig.cmake"),
         "-G", "DEB", "-B", out_dir])
    debs = glob.glob(os.path.join(out_dir, "*.deb"))
    name = "troupe_%s_%s.deb" % (version, deb_arch())
    check([os.path.basename(d) for d in debs] == [name],
          "cpack wrote one package, %s (found %s)" % (name, debs))
    return debs[0]


def read_file(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


# -- a troupe serve, stopped by pid ----------------------------------------------


class Serve:
    def __init__(self, binary, properties, tmp, port, http_port):
        self.log_path = os.path.join(tmp, "troupe.log")
        self.log = open(self.log_path, "w")
        self.port = port
        self.args = [binary, "serve", "--config", properties,
                     "--http-port", str(http_port), "--http-bind", "127.0.0.1",
                     "--log-level", "info"]
        print("starting:", " ".join(self.args))
        self.proc = subprocess.Popen(self.args, stdout=self.log,
                                     stderr=subprocess.STDOUT,
                                     preexec_fn=die_with_parent())

    def wait_ready(self, timeout=60):
        ready = "Kafka listeners on %d.." % self.port
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure("troupe exited %d before it was ready"
                              % self.proc.returncode)
            for line in read_file(self.log_path).splitlines():
                if ready in line:
                    return line
            time.sleep(0.1)
        raise Failure("troupe not ready within %d s" % timeout)

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()

    def show_log(self):
        print("--- troupe log (tail)")
        sys.stdout.writelines(read_file(self.log_path).splitlines(True)[-60:])


def with_serve(binary, properties, tmp, port, http_port, body):
    srv = Serve(binary, properties, tmp, port, http_port)
    ok = False
    try:
        line = srv.wait_ready()
        print("start line:", line)
        body(line)
        ok = True
    finally:
        srv.stop()
        if not ok:
            srv.show_log()
    check(srv.proc.returncode == 0,
          "troupe stopped cleanly on SIGTERM (exit %s)" % srv.proc.returncode)


def derived_properties(sample, path, tmp, port):
    """The sample with log.dirs and port set to this test's own."""
    out, seen = [], set()
    for line in read_file(sample).splitlines():
        key = line.split("=", 1)[0].strip()
        if not line.startswith("#") and key == "log.dirs":
            line = "log.dirs=" + os.path.join(tmp, "logs")
            seen.add(key)
        elif not line.startswith("#") and key == "port":
            line = "port=%d" % port
            seen.add(key)
        out.append(line)
    check(seen == {"log.dirs", "port"},
          "the sample sets log.dirs and port (replaced by temporary ones)")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def http_get(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path),
                                    timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def api_versions(port):
    """ApiVersions v0 over a raw socket: (error, {api_key: (min, max)})."""
    client = b"package-test"
    body = struct.pack(">hhih", 18, 0, 7, len(client)) + client
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(body)) + body)
        data = b""
        while len(data) < 4 or len(data) < 4 + struct.unpack(">i",
                                                              data[:4])[0]:
            chunk = s.recv(65536)
            if not chunk:
                raise Failure("broker on %d closed before answering" % port)
            data += chunk
    corr, error, n = struct.unpack(">ihi", data[4:14])
    if corr != 7:
        raise Failure("ApiVersions answer with correlation id %d" % corr)
    apis, at = {}, 14
    for _ in range(n):
        key, lo, hi = struct.unpack(">hhh", data[at:at + 6])
        apis[key] = (lo, hi)
        at += 6
    return error, apis


def check_kafka(port, brokers=3):
    for b in range(brokers):
        error, apis = api_versions(port + b)
        check(error == 0 and 18 in apis and 0 in apis and 3 in apis,
              "broker %d's Kafka listener on %d answers ApiVersions (%d APIs,"
              " Produce %s..%s)" % (b, port + b, len(apis), *apis.get(0, "??")))


def check_dashboard(http_port, web_dir, marker):
    status, body = http_get(http_port, "/")
    check(status == 200 and body == read_file(
        os.path.join(web_dir, "index.html"), "rb"),
        "GET / is %s/index.html" % web_dir)
    check(marker in body,
          "GET / carries the marker written into that copy only")
    for name in ("app.js", "style.css"):
        status, body = http_get(http_port, "/ui/" + name)
        check(status == 200
              and body == read_file(os.path.join(web_dir, name), "rb"),
              "GET /ui/%s is %s/%s" % (name, web_dir, name))


def mark_index(web_dir):
    """Appends a comment to this copy's index.html: a dashboard served from
    anywhere else (the source tree's web/) lacks it."""
    marker = ("<!-- package test %d %d -->" % (os.getpid(), time.time_ns())
              ).encode()
    with open(os.path.join(web_dir, "index.html"), "ab") as f:
        f.write(marker + b"\n")
    return marker


# -- cases -----------------------------------------------------------------------


def case_contents(build_dir, version, tmp):
    deb = build_package(build_dir, os.path.join(tmp, "out"), version)
    info = run(["dpkg-deb", "-I", deb])
    print(info)
    fields = {}
    for key in ("Package", "Version", "Architecture", "Maintainer", "Section",
                "Priority", "Depends", "Description", "Installed-Size"):
        fields[key] = run(["dpkg-deb", "-f", deb, key]).rstrip("\n")
    check(fields["Package"] == "troupe", "Package: troupe")
    check(fields["Version"] == version, "Version: " + version)
    check(fields["Architecture"] == deb_arch(),
          "Architecture: " + deb_arch())
    check("<" in fields["Maintainer"] and ">" in fields["Maintainer"],
          "Maintainer: a name and an address (%s)" % fields["Maintainer"])
    check(fields["Section"] == "net", "Section: net")
    check(fields["Priority"] == "optional", "Priority: optional")
    depends = [d.strip().split(" ")[0] for d in fields["Depends"].split(",")]
    check("adduser" in depends, "Depends names adduser (postinst calls it)")
    check("libc6" in depends and "libstdc++6" in depends
          and any(d.startswith("libcaf-core") for d in depends),
          "Depends has the shared libraries' packages (dpkg-shlibdeps): "
          + fields["Depends"])
    desc = fields["Description"].split("\n")
    check(len(desc) > 2 and desc[0].strip() and ";" not in fields[
        "Description"] and all(l.startswith(" ") for l in desc[1:]),
        "Description: a summary and an extended description")
    check(int(fields["Installed-Size"]) < 200 * 1024,
          "the executable is stripped (Installed-Size %s KiB)"
          % fields["Installed-Size"])

    ctl = os.path.join(tmp, "control")
    run(["dpkg-deb", "-e", deb, ctl])
    check(read_file(os.path.join(ctl, "conffiles")).split()
          == ["/etc/troupe/server.properties"],
          "conffiles lists /etc/troupe/server.properties")
    for script in ("postinst", "prerm", "postrm"):
        path = os.path.join(ctl, script)
        check(os.stat(path).st_mode & 0o777 == 0o755,
              "%s is in the package, mode 0755" % script)
        run(["sh", "-n", path])
        print("ok: sh -n", script)

    listing = run(["dpkg-deb", "-c", deb])
    print(listing)
    entries = {}
    for line in listing.splitlines():
        parts = line.split(None, 5)
        entries[parts[5].lstrip(".")] = parts
    wanted = (["/usr/bin/troupe", "/etc/troupe/server.properties"]
              + ["/usr/share/troupe/web/" + f for f in WEB_FILES]
              + ["/lib/systemd/system/" + u for u in UNITS])
    for path in wanted:
        check(path in entries, "the package holds " + path)
    check(entries["/usr/bin/troupe"][0] == "-rwxr-xr-x"
          and all(e[1] == "root/root" for e in entries.values()),
          "files owned by root, /usr/bin/troupe executable")
    outside = [p for p in entries
               if not p.rstrip("/") in ("", "/etc", "/lib", "/lib/systemd",
                                        "/usr", "/usr/bin", "/usr/share")
               and not p.startswith(("/usr/bin/troupe", "/usr/share/troupe",
                                     "/etc/troupe", "/lib/systemd/system"))]
    check(not outside, "nothing else in the package (%s)" % outside)

    root = os.path.join(tmp, "root")
    run(["dpkg-deb", "-x", deb, root])
    check_units(root)


def check_units(root):
    units = os.path.join(root, "lib", "systemd", "system")
    for unit in UNITS:
        text = read_file(os.path.join(units, unit))
        lines = set(l.strip() for l in text.splitlines())
        conf = ("/etc/troupe/server.properties" if unit == "troupe.service"
                else "/etc/troupe/%i.properties")
        for want in ("User=troupe", "Group=troupe", "StateDirectory=troupe",
                     "WorkingDirectory=/var/lib/troupe",
                     "ExecStart=/usr/bin/troupe serve --config " + conf,
                     "LimitNOFILE=100000", "Restart=on-failure",
                     "WantedBy=multi-user.target"):
            check(want in lines, "%s: %s" % (unit, want))
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        print("skip: systemd-analyze verify (no systemd-analyze on this "
              "machine: Debian's package systemd has it)")
        return
    # verify wants ExecStart's executable to exist: copies of the units that
    # name the unpacked one (and its properties); the rest as packaged.
    vdir = os.path.join(os.path.dirname(root), "verify")
    os.makedirs(vdir)
    for unit in UNITS:
        text = read_file(os.path.join(units, unit))
        text = text.replace("/usr/bin/troupe", root + "/usr/bin/troupe")
        text = text.replace("/etc/troupe/", root + "/etc/troupe/")
        with open(os.path.join(vdir, unit), "w") as f:
            f.write(text)
    for unit in UNITS:
        p = subprocess.run([analyze, "verify", os.path.join(vdir, unit)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        check(p.returncode == 0 and not p.stdout.strip(),
              "systemd-analyze verify %s: no complaint%s"
              % (unit, ("\n" + p.stdout) if p.stdout.strip() else ""))


def case_runs(build_dir, version, tmp):
    deb = build_package(build_dir, os.path.join(tmp, "out"), version)
    root = os.path.join(tmp, "root")
    run(["dpkg-deb", "-x", deb, root])
    print("unpacked into", root)
    web = os.path.join(root, "usr", "share", "troupe", "web")
    marker = mark_index(web)
    port = free_port_range(4)
    props = os.path.join(tmp, "server.properties")
    derived_properties(os.path.join(root, "etc", "troupe",
                                    "server.properties"), props, tmp, port)
    binary = os.path.join(root, "usr", "bin", "troupe")

    def body(line):
        check("dashboard files from %s (installed)" % web in line,
              "the unpacked troupe says it serves %s" % web)
        check_dashboard(port + 3, web, marker)
        check_kafka(port)
        check(os.path.isdir(os.path.join(tmp, "logs", "broker-0")),
              "the brokers keep their logs under the temporary log.dirs")

    with_serve(binary, props, tmp, port, port + 3, body)


def case_install(build_dir, version, tmp):
    prefix = os.path.join(tmp, "prefix")
    cmake = os.environ.get("TROUPE_CMAKE", "cmake")
    run([cmake, "--install", build_dir, "--prefix", prefix])
    web = os.path.join(prefix, "share", "troupe", "web")
    binary = os.path.join(prefix, "bin", "troupe")
    sample = os.path.join(prefix, "etc", "troupe", "server.properties")
    check(os.access(binary, os.X_OK), "bin/troupe, executable")
    for f in WEB_FILES:
        check(read_file(os.path.join(web, f), "rb")
              == read_file(os.path.join(SOURCE_DIR, "web", f), "rb"),
              "share/troupe/web/%s, as web/%s" % (f, f))
    check(read_file(sample) == read_file(
        os.path.join(SOURCE_DIR, "packaging", "server.properties")),
        "etc/troupe/server.properties, the sample")
    for unit in UNITS:
        text = read_file(os.path.join(prefix, "lib", "systemd", "system",
                                      unit))
        conf = "server" if unit == "troupe.service" else "%i"
        check("ExecStart=%s serve --config %s/etc/troupe/%s.properties"
              % (binary, prefix, conf) in text,
              "lib/systemd/system/%s runs this prefix's troupe and "
              "properties" % unit)

    # Every property the sample names, set or commented out, is one troupe
    # knows (`troupe --help` lists them all).
    help_text = run([binary, "--help"])
    for line in read_file(sample).splitlines():
        key = line.lstrip("#").split("=", 1)[0].strip()
        if "=" in line and key and " " not in key and key == key.lower():
            check("  %s (default" % key in help_text,
                  "the sample's %s is a property troupe reads" % key)

    marker = mark_index(web)
    port = free_port_range(4)
    props = os.path.join(tmp, "server.properties")
    derived_properties(sample, props, tmp, port)

    def installed(line):
        check("dashboard files from %s (installed)" % web in line,
              "the installed troupe says it serves %s" % web)
        check_dashboard(port + 3, web, marker)
        check_kafka(port)

    with_serve(binary, props, tmp, port, port + 3, installed)

    # A user with the executable but no share/troupe/web (nor the source
    # tree): no dashboard, said so, and the brokers run.
    os.rename(web, web + ".hidden")
    port = free_port_range(4)
    derived_properties(sample, props, tmp, port)

    def missing(line):
        check("dashboard files from %s (missing" % web in line,
              "without share/troupe/web troupe says the dashboard is "
              "missing, and does not take the source tree's web/")
        status, body = http_get(port + 3, "/")
        check(status == 404, "GET / answers 404 (%d)" % status)
        check_kafka(port)

    with_serve(binary, props, tmp, port, port + 3, missing)


# -- the maintainer scripts, every command stubbed -------------------------------

STUBBED = ("getent", "adduser", "addgroup", "deluser", "delgroup", "useradd",
           "groupadd", "userdel", "groupdel", "mkdir", "stat", "chown",
           "chmod", "chgrp", "systemctl", "rm", "awk", "deb-systemd-helper",
           "deb-systemd-invoke")

STUB = """#!/bin/sh
echo "${0##*/} $*" >> "$STUB_LOG"
case "${0##*/}" in
  getent) [ -n "$STUB_USER_EXISTS" ] ;;
  stat) echo "$STUB_OWNER" ;;
esac
"""


def maintainer(ctl, script, args, user_exists, owner="root"):
    """Runs the script with PATH holding only the stubs: its calls."""
    stubs = os.path.join(os.path.dirname(ctl), "stubs")
    if not os.path.isdir(stubs):
        os.makedirs(stubs)
        for name in STUBBED:
            path = os.path.join(stubs, name)
            with open(path, "w") as f:
                f.write(STUB.replace("#!/bin/sh", "#!" + shutil.which("sh")))
            os.chmod(path, stat.S_IRWXU)
    log = os.path.join(os.path.dirname(ctl), "calls.log")
    open(log, "w").close()
    env = {"PATH": stubs, "STUB_LOG": log, "STUB_OWNER": owner,
           "STUB_USER_EXISTS": "1" if user_exists else ""}
    p = subprocess.run([shutil.which("sh"), os.path.join(ctl, script)] + args,
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check(p.returncode == 0, "%s %s exits 0%s" % (script, " ".join(args),
                                                  ("\n" + p.stdout)
                                                  if p.stdout else ""))
    calls = read_file(log).splitlines()
    print("  calls:", calls)
    return calls


def case_maintainer(build_dir, version, tmp):
    systemd_running = os.path.isdir("/run/systemd/system")
    ctl = os.path.join(SOURCE_DIR, "packaging", "debian")
    work = os.path.join(tmp, "m")
    os.makedirs(work)
    ctl_copy = os.path.join(work, "debian")
    shutil.copytree(ctl, ctl_copy)

    calls = maintainer(ctl_copy, "postinst", ["configure", ""], False)
    adds = [c for c in calls if c.startswith("adduser ")]
    check(len(adds) == 1 and all(w in adds[0].split() for w in (
        "--system", "--group", "--home", "/var/lib/troupe", "troupe")),
        "first install: adduser --system --group --home /var/lib/troupe "
        "troupe")
    check("chown troupe:troupe /var/lib/troupe /var/lib/troupe/logs"
          in calls, "first install: /var/lib/troupe given to troupe")
    check("deb-systemd-helper enable troupe.service" in calls,
          "first install: troupe.service enabled (deb-systemd-helper)")
    if systemd_running:
        print("skip: 'nothing started without systemd' (systemd runs here)")
    else:
        check(not any(c.startswith(("systemctl", "deb-systemd-invoke"))
                      for c in calls),
              "without a running systemd nothing is started or reloaded")

    calls = maintainer(ctl_copy, "postinst", ["configure", version], True,
                       owner="troupe")
    check(not any(c.startswith(("adduser", "addgroup", "useradd", "chown"))
                  for c in calls),
          "again (an upgrade): no user made, no ownership changed")

    calls = maintainer(ctl_copy, "prerm", ["upgrade", version], True)
    check(not any(" stop" in c for c in calls),
          "prerm upgrade stops nothing (postinst restarts)")
    calls = maintainer(ctl_copy, "postrm", ["remove"], True)
    check(not any(c.startswith(("rm", "deluser", "delgroup")) for c in calls)
          and "deb-systemd-helper mask troupe.service" in calls,
          "postrm remove keeps the data and the user, masks the unit")
    calls = maintainer(ctl_copy, "postrm", ["purge"], True)
    check("rm -rf /var/lib/troupe" in calls
          and any(c.startswith("deluser --system") for c in calls)
          and "deb-systemd-helper purge troupe.service" in calls,
          "postrm purge deletes /var/lib/troupe, the user troupe and the "
          "unit's enablement")

    real_maintainer_run(ctl, work)


# The real adduser, deluser and friends, in a private mount namespace whose
# /etc, /var/lib and /lib/systemd/system are copies (the last with the
# package's units): the machine's users, data and units never change.
# The script stops before any maintainer script unless both copies are in
# place. Only where systemd does not run (nothing to reload or start):
# deb-systemd-helper and systemctl act on the copies' files alone;
# deb-systemd-invoke stays stubbed all the same.
NAMESPACE_RUN = r"""
set -eu
work=$1 ctl=$2
cp -a /etc "$work/etc"
mkdir "$work/varlib"
cp -a /lib/systemd/system "$work/units"
cp "$ctl/../systemd/troupe.service" "$ctl/../systemd/troupe@.service" \
  "$work/units/"
touch "$work/etc/.troupe-package-test" "$work/varlib/.troupe-package-test"
mount --bind "$work/etc" /etc
mount --bind "$work/varlib" /var/lib
mount --bind "$work/units" /lib/systemd/system
[ -e /etc/.troupe-package-test ] && [ -e /var/lib/.troupe-package-test ]
[ -e /lib/systemd/system/troupe.service ]
wants=/etc/systemd/system/multi-user.target.wants/troupe.service
mkdir -p /etc/troupe
cp "$ctl/../server.properties" /etc/troupe/server.properties
step() { echo "== $*"; }
# As dpkg runs them (deb-systemd-helper acts only then).
export DPKG_MAINTSCRIPT_PACKAGE=troupe
ms() {
  script=$1
  shift
  DPKG_MAINTSCRIPT_NAME=$script sh "$ctl/$script" "$@"
}
step first install; ms postinst configure ""
getent passwd troupe; getent group troupe
[ -L "$wants" ] && echo "enabled: $(readlink "$wants")"
stat -c '%U:%G %a %n' /var/lib/troupe /var/lib/troupe/logs \
  /etc/troupe/server.properties
step again; ms postinst configure ""
echo "users: $(getent passwd troupe | wc -l)"
step disabled, upgraded
systemctl disable troupe.service
ms postinst configure 0.1.0
[ -L "$wants" ] || echo "still disabled after the upgrade"
step purge; ms prerm remove; ms postrm remove
[ -d /var/lib/troupe ] && echo "data kept on remove"
ms postrm purge
getent passwd troupe || echo "user gone"
getent group troupe || echo "group gone"
[ -e /var/lib/troupe ] || echo "data gone"
[ -L "$wants" ] || echo "enablement gone"
"""


def real_maintainer_run(ctl, work):
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or not unshare or not shutil.which("adduser"):
        print("skip: the real adduser run (needs root, unshare and adduser)")
        return
    stubs = os.path.join(work, "real-stubs")
    os.makedirs(stubs)
    if os.path.isdir("/run/systemd/system"):
        print("skip: the real adduser run (systemd runs here: postinst "
              "would reload it)")
        return
    for name in ("deb-systemd-invoke",):
        with open(os.path.join(stubs, name), "w") as f:
            f.write("#!%s\nexit 0\n" % shutil.which("sh"))
        os.chmod(os.path.join(stubs, name), stat.S_IRWXU)
    env = dict(os.environ)
    env["PATH"] = stubs + ":/usr/sbin:/usr/bin:/sbin:/bin"
    ns = os.path.join(work, "ns")
    os.makedirs(ns)
    before = host_user()
    p = subprocess.run([unshare, "--mount", "--propagation", "private",
                        shutil.which("sh"), "-c", NAMESPACE_RUN, "sh", ns,
                        ctl],
                       env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, cwd=work)
    print(p.stdout)
    if p.returncode != 0 and p.stdout.startswith("unshare: "):
        print("skip: the real adduser run (no mount namespace here)")
        return
    out = p.stdout.splitlines()
    check(p.returncode == 0, "the scripts ran in a private mount namespace")
    check(any(l.startswith("troupe:x:") and l.endswith(
        ":/var/lib/troupe:/usr/sbin/nologin") for l in out),
        "postinst made the system user troupe, home /var/lib/troupe")
    check("troupe:troupe 750 /var/lib/troupe" in out
          and "troupe:troupe 755 /var/lib/troupe/logs" in out
          and "root:troupe 640 /etc/troupe/server.properties" in out,
          "/var/lib/troupe/logs owned by troupe, server.properties 0640 "
          "group troupe")
    check("enabled: /lib/systemd/system/troupe.service" in out,
          "postinst enabled troupe.service (deb-systemd-helper)")
    check("users: 1" in out, "postinst again: one user troupe, no error")
    check("still disabled after the upgrade" in out,
          "an admin's systemctl disable survives an upgrade's postinst")
    check("data kept on remove" in out and "user gone" in out
          and "group gone" in out and "data gone" in out
          and "enablement gone" in out,
          "remove keeps /var/lib/troupe; purge deletes it, the user, the "
          "group and the unit's enablement")
    check(host_user() == before, "the machine's own users are untouched")


def host_user():
    return subprocess.run(["getent", "passwd", "troupe"],
                          stdout=subprocess.PIPE, text=True).stdout


CASES = {"contents": case_contents, "runs": case_runs,
         "install": case_install, "maintainer": case_maintainer}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        print("usage: package_test.py {%s} BUILD_DIR VERSION"
              % "|".join(CASES))
        return 2
    case, build_dir, version = sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="troupe-package-test-")
    ok = False
    try:
        CASES[case](os.path.abspath(build_dir), version, tmp)
        ok = True
    except Failure as e:
        print("FAIL:", e)
    finally:
        if os.environ.get("KEEP_LOGS"):
            print("files in", tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("PASS" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
