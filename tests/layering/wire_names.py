#!/usr/bin/python3
"""One name per concept: the Kafka wire structs are spelled wire::.

    wire_names.py SOURCE_DIR

troupe has two structs for many a Kafka request: the wire codec's
(domain/kafka/, namespace troupe::wire: the bytes of a JoinGroup v9 as
fields) and the domain's or the actor messages' (troupe::: what a group
coordinator or an actor takes). Over forty names exist in both, from
join_group_request to fetch_response. A reader tells them apart by the
namespace alone, so the codec's must always be written wire::NAME (or
troupe::wire::NAME), and nothing may pull them into a scope where the
unqualified name means the other one.

What is checked:

  - The codec: every namespace a source under domain/kafka/ opens at file
    scope is troupe::wire (or one inside it), and no source anywhere still
    names the old namespace troupe::kafka (a namespace `kafka`, `kafka::`
    as a qualifier, an alias of it).
  - The two sets of names: `struct NAME {` / `class NAME {` definitions in
    domain/kafka/ (the wire set) and in the headers of everything else
    outside tests/ and fuzz/ (the troupe set); their intersection is the
    set of shared names, printed.
  - Outside the tests (tests/, fuzz/): no using-directive of the wire
    namespace (`using namespace troupe::wire;`, `using namespace wire;`,
    or through a namespace alias of it), and no using-declaration of a
    shared name (`using troupe::wire::join_group_request;`). Namespace
    aliases and qualified names are fine: they keep the wire:: visible.
  - In the tests: the codec's own tests may pull the codec in with a
    using-directive, as long as they cannot see the troupe copy of a
    shared name. A test or fuzz file with a using-directive of the wire
    namespace, or a using-declaration of a shared name, fails when the
    headers it includes (followed through quoted includes) define a
    shared name outside the codec.

The compiler alone does not keep this: a using-directive compiles until
some line uses a shared name unqualified (then it is ambiguous, or quietly
the other struct where only one of the headers is included), and a
using-declaration at file scope compiles beside the troupe:: struct.

Exit 0 when clean, 1 with the list otherwise.
"""

import os
import re
import sys

SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc", ".hh", ".ipp", ".inl")
HEADER_SUFFIXES = (".hpp", ".h", ".hh", ".ipp", ".inl")
SKIP_DIRS = {".git", "web", "node_modules", "third_party"}
CODEC = "domain/kafka/"
TEST_TOPS = ("tests", "fuzz")
WIRE = r"(?:::\s*)?(?:troupe\s*::\s*)?wire"
DEFINITION = re.compile(
    r"(?<![\w])(struct|class)\s+([A-Za-z_]\w*)\s*(?:final\s*)?"
    r"(?::[^{;()]*)?\{")
NAMESPACE_OPEN = re.compile(r"\bnamespace\s+([A-Za-z_][\w:\s]*?)\s*\{")
OLD_NAME = re.compile(
    r"\bnamespace\s+(?:troupe\s*::\s*)?kafka\s*[{=]"   # namespace kafka {
    r"|(?<![\w:])kafka\s*::(?!\s*\*)"                   # kafka::x
    r"|\btroupe\s*::\s*kafka\b")                        # troupe::kafka
ALIAS = re.compile(r"\bnamespace\s+([A-Za-z_]\w*)\s*=\s*(" + WIRE +
                   r")\s*;")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def strip(text):
    """The text without comments, string and character literals (newlines
    kept, so that line numbers stay right)."""
    keep_lines = lambda m: "\n" * m.group(0).count("\n")
    text = re.sub(r'R"([^(\s]*)\((?:.|\n)*?\)\1"', keep_lines, text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", keep_lines, text)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(?:\\.|[^'\\\n])'", "' '", text)


def depth(text, pos):
    """How many braces are open at pos."""
    return text.count("{", 0, pos) - text.count("}", 0, pos)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def sources(root):
    for base, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs
                         if d not in SKIP_DIRS and not d.startswith("build")
                         and not d.startswith("."))
        for name in sorted(names):
            if name.endswith(SOURCE_SUFFIXES):
                path = os.path.join(base, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    yield os.path.relpath(path, root), f.read()


def is_test(rel):
    return rel.split(os.sep, 1)[0] in TEST_TOPS


def definitions(text):
    for m in DEFINITION.finditer(text):
        if re.search(r"\benum\s*$", text[:m.start()][-20:]):
            continue  # enum class NAME {
        yield m.group(2)


def resolve(root, rel, include, files):
    for candidate in (include, os.path.join(os.path.dirname(rel), include)):
        candidate = os.path.normpath(candidate)
        if candidate in files:
            return candidate
    return None


def reachable(root, rel, files):
    """rel and every source its quoted includes lead to (files holds the
    sources as read: the include paths are string literals)."""
    seen = {rel}
    todo = [rel]
    while todo:
        here = todo.pop()
        for include in INCLUDE.findall(files[here]):
            there = resolve(root, here, include, files)
            if there and there not in seen:
                seen.add(there)
                todo.append(there)
    return seen


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    raw = dict(sources(root))
    files = {rel: strip(text) for rel, text in raw.items()}
    codec = [p for p in files if p.startswith(CODEC)]
    problems = []

    # The codec's namespace, and the old one nowhere.
    for rel in codec:
        text = files[rel]
        opened = [re.sub(r"\s+", "", m.group(1))
                  for m in NAMESPACE_OPEN.finditer(text)
                  if depth(text, m.start()) == 0]
        if not opened:
            problems.append(f"{rel}: opens no namespace; the codec lives in "
                            f"troupe::wire")
        for n in opened:
            if n != "troupe::wire" and not n.startswith("troupe::wire::"):
                problems.append(f"{rel}: opens namespace {n}; the codec "
                                f"lives in troupe::wire")
    for rel, text in files.items():
        for m in OLD_NAME.finditer(text):
            problems.append(f"{rel}:{line_of(text, m.start())}: "
                            f"`{m.group(0).strip()}` names the old "
                            f"namespace troupe::kafka; the codec is "
                            f"troupe::wire")

    # The two sets of names.
    wire_names = {}
    troupe_names = {}
    for rel, text in files.items():
        if rel.startswith(CODEC):
            for name in definitions(text):
                wire_names.setdefault(name, rel)
        elif not is_test(rel) and rel.endswith(HEADER_SUFFIXES):
            for name in definitions(text):
                troupe_names.setdefault(name, rel)
    shared = set(wire_names) & set(troupe_names)
    if len(codec) < 5 or len(wire_names) < 50 or len(troupe_names) < 100:
        problems.append(f"read only {len(codec)} codec files, "
                        f"{len(wire_names)} wire and {len(troupe_names)} "
                        f"other struct names: wrong source directory?")
    # Headers outside the codec that define a shared name.
    homes = {troupe_names[n] for n in shared}

    # Using-directives and using-declarations.
    uses = 0
    for rel, text in files.items():
        if rel.startswith(CODEC):
            continue
        wire_spellings = [WIRE] + [re.escape(a) for a, _ in
                                   ALIAS.findall(text)]
        spelled = "(?:" + "|".join(wire_spellings) + ")"
        directive = re.compile(r"\busing\s+namespace\s+" + spelled +
                               r"(?:\s*::\s*\w+)*\s*;")
        declaration = re.compile(r"\busing\s+" + spelled +
                                 r"\s*::\s*([A-Za-z_]\w*)\s*;")
        found = []
        for m in directive.finditer(text):
            found.append((m, "a using-directive of the wire namespace"))
        for m in declaration.finditer(text):
            if m.group(1) in shared:
                found.append((m, f"a using-declaration of {m.group(1)}, "
                                 f"which troupe:: has too "
                                 f"({troupe_names[m.group(1)]})"))
        uses += len(found)
        if not found:
            continue
        if is_test(rel):
            seen = reachable(root, rel, raw) & homes
            if not seen:
                continue  # a codec test: no troupe copy in sight
            why = (f"; this test also includes (directly or not) "
                   f"{', '.join(sorted(seen))}, where troupe:: defines the "
                   f"same names")
        else:
            why = ("; outside the tests, write wire::NAME (a namespace "
                   "alias is fine)")
        for m, what in found:
            problems.append(f"{rel}:{line_of(text, m.start())}: "
                            f"`{' '.join(m.group(0).split())}` is {what}"
                            f"{why}")

    if problems:
        print("the Kafka wire structs are not kept apart by wire::",
              file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"{len(codec)} codec files in troupe::wire; {len(wire_names)} wire "
          f"names, {len(troupe_names)} others, {len(shared)} shared; "
          f"{uses} using-directives or -declarations, all in the codec's "
          f"tests")
    print("shared: " + " ".join(sorted(shared)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
