#!/usr/bin/python3
"""domain/ includes nothing above it.

    domain_includes.py SOURCE_DIR

troupe's layers, bottom up: domain/ (plain C++: Kafka's state machines,
wire formats and records), then storage/ and cluster/, then messages/ and
actors/ (CAF), then gateway/ (Boost.Beast, the Kafka listener) and app/.
The domain depends on nothing above it: the types it needs live in the
domain, and the layers above wrap them (messages/ gives them inspect()).

Every #include under domain/ (headers and sources, any depth) must be
either a standard or system header in <...> that is not one of the
libraries of the layers above, or a quoted "domain/..." path. Refused:

  - any quoted include that does not start with "domain/", or that climbs
    out with "..": "messages/...", "actors/...", "gateway/...",
    "cluster/...", "storage/...", "app/...", "proto/...", a generated
    "*.pb.h", "../x.hpp";
  - <...> includes of troupe's own folders (same list) and of the
    libraries the upper layers own: CAF (<caf/...>), Boost.Asio and
    Boost.Beast (<boost/asio...>, <boost/beast...>), the ZooKeeper C
    client (<zookeeper/...>), protobuf (<google/protobuf/...>) and spdlog
    (<spdlog/...>, logging is the actors' business).

The build enforces the first half as well: troupe_domain compiles with
only a link to domain/ on its include path (CMakeLists.txt). This check
also covers the system libraries, which no include path hides, and prints
every offending line. Exit 0 when clean, 1 with a list otherwise.
"""

import os
import re
import sys

TROUPE_FOLDERS = ("messages", "actors", "gateway", "cluster", "storage",
                  "app", "proto", "examples", "bench", "fuzz", "tests")
FOREIGN_LIBRARIES = ("caf/", "caf.hpp", "boost/asio", "boost/beast",
                     "zookeeper/", "google/protobuf/", "spdlog/")
SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc", ".hh", ".ipp", ".inl")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def offence(delimiter, path):
    """Why this include is refused in domain/, or None."""
    if ".." in path.split("/"):
        return "climbs out of domain/ with '..'"
    top = path.split("/", 1)[0]
    if top in TROUPE_FOLDERS:
        return f"includes troupe's {top}/, a layer above the domain"
    if path.endswith(".pb.h"):
        return "includes a generated protobuf header (storage's records)"
    if delimiter == '"':
        if not path.startswith("domain/"):
            return 'a quoted include must name "domain/..."'
        return None
    for lib in FOREIGN_LIBRARIES:
        if path.startswith(lib):
            return f"includes <{lib}...>, a library of a layer above"
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    domain = os.path.join(sys.argv[1], "domain")
    files = 0
    includes = 0
    bad = []
    for root, dirs, names in os.walk(domain):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(root, name)
            files += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    includes += 1
                    why = offence(m.group(1), m.group(2))
                    if why:
                        rel = os.path.relpath(path, sys.argv[1])
                        bad.append(f"{rel}:{number}: {line.strip()}: {why}")
    # A check that reads nothing passes for the wrong reason.
    if files < 10 or includes < 50:
        print(f"read only {files} files and {includes} includes under "
              f"{domain}: wrong source directory?", file=sys.stderr)
        return 1
    if bad:
        print("domain/ includes something above it:", file=sys.stderr)
        for b in bad:
            print("  " + b, file=sys.stderr)
        return 1
    print(f"domain/: {files} files, {includes} includes, none above it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
