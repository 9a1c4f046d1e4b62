#!/usr/bin/python3
"""Actor messages carry the domain's enums, not their names as strings.

    message_enums.py SOURCE_DIR

Where the domain has an enum for a concept (a group's state, a replica's
role, a consumer's phase, a group's type), an actor message that carries
the concept as a std::string makes every reader compare spellings
("leader", "Dead") and lets a typo through the compiler. The enums travel
inside troupe; their names are written only at the edges (the Kafka wire,
REST/JSON, logs).

What is checked:

  - The message types: every CAF_ADD_TYPE_ID(troupe, (troupe::NAME)) in a
    header of the tree (messages/type_ids.hpp today), and every struct one
    of their fields holds, at any depth (std::vector<listed_group> leads to
    listed_group).
  - Their definitions: `struct NAME {...}` in the headers of messages/,
    domain/, cluster/, actors/, client/ and gateway/. A type id without a
    definition fails the check, so that it cannot pass by reading nothing.
  - The concepts: every namespace-level `enum class` of domain/, by its
    name (group_type, replica_role, any_group_state, ...) and its head noun,
    the name's last word (type, role, state, phase, ...).

The rule. A field whose type is a string or a collection of strings
(std::string, std::vector<std::string>, nullable<std::string>,
std::optional<std::string>, std::set<std::string>) is refused when its
name, in the singular and without a trailing `filter`, `list` or `set`,
names a domain enum's concept: it is the enum's name, or it ends in the
enum's head noun and every word before that head noun is a word of the
enum's name. So `state`, `role`, `phase`, `states_filter`, `types_filter`,
`group_state` and `group_type` are refused while enums `*_state`,
`*_role`, `*_phase` and `group_type` exist; `protocol_type` is not (no
enum names a protocol's type), nor are ids, names, hosts or messages (no
enum ends in id, name, host or message).

Two head nouns are Kafka's own words for free-form strings, and a field
named by them alone is never refused: `protocol` (JoinGroup's protocol type
and names, and the protocol a group chose, are whatever the clients send;
the domain's security_protocol and rebalance_protocol enums are other
things) and `key` (FindCoordinator's key is a group or transactional id;
the domain's api_key enum is another thing).

The transition rule. A field named as one end of a change holds a value
of the concept that changes, and the concept is not in the field's own
name the way the first rule wants it:

  - With a stem: `old_X`, `new_X`, `previous_X`/`prev_X`, `next_X`,
    `from_X`, `to_X`, `X_before`, `X_after`. The stem X names the concept;
    a string field is refused when X names a domain enum's concept by the
    first rule (`old_state`, `new_role`, `phase_before` while enums
    `*_state`, `*_role`, `*_phase` exist). `new_leader` or `old_topic` is
    not (no enum ends in leader or topic).
  - Bare `from` and `to`. They name nothing; what changes is the subject of
    the struct that holds them, and the domain says what such a pair is:
    its own transition structs, a domain struct with a `from` and a `to` of
    one enum type (domain/group.hpp's state_transition has group_state,
    domain/consumer_group/'s consumer_group_transition has
    consumer_group_state). A string `from` or `to` is refused when the
    message struct holding it is about the subject of such an enum: a word
    of the struct's name or of its other fields' names (singular) is one of
    the enum's words before its head noun (`group_event` and its
    `group_id` say `group`, the subject of group_state). So a message that
    flattens a domain transition into names is refused, and one whose
    from/to are free-form (a rename's topic names, a copy's paths) is not,
    unless it is about a subject whose transitions the domain types.

  The rule is read off the domain, not a list of message names: a new kind
  of transition is covered once the domain types its own from/to pair.

Exit 0 when no message field breaks a rule, 1 with the list otherwise.
"""

import os
import re
import sys

MESSAGE_DIRS = ("messages", "domain", "cluster", "actors", "client",
                "gateway")
HEADER_SUFFIXES = (".hpp", ".h", ".hh")
FREE_FORM_IN_KAFKA = {"protocol", "key"}
COLLECTION_WORDS = {"filter", "list", "set"}
# The ends of a change, as a field's first or last word (transition rule).
END_PREFIXES = {"old", "new", "previous", "prev", "next", "from", "to"}
END_SUFFIXES = {"before", "after"}
BARE_ENDS = {"from", "to"}
STRING_TYPE = re.compile(
    r"^(?:const\s+)?(?:std::)?(?:(?:vector|set|optional|nullable)\s*<\s*)?"
    r"(?:std::)?string\s*>?$")
TYPE_ID = re.compile(r"CAF_ADD_TYPE_ID\s*\(\s*troupe\s*,\s*\(\s*"
                     r"(?:troupe::)?([A-Za-z_][\w:]*)\s*\)\s*\)")
ENUM = re.compile(r"^enum\s+class\s+([A-Za-z_]\w*)", re.M)
STRUCT = re.compile(r"\bstruct\s+([A-Za-z_]\w*)\s*(?:final\s*)?(?::[^{;]*)?\{")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def headers(root, dirs):
    for d in dirs:
        for base, subdirs, names in os.walk(os.path.join(root, d)):
            subdirs.sort()
            for name in sorted(names):
                if name.endswith(HEADER_SUFFIXES):
                    path = os.path.join(base, name)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        yield os.path.relpath(path, root), f.read()


def block_end(text, open_brace):
    """Index just past the brace that closes text[open_brace]."""
    depth = 0
    for i in range(open_brace, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def members(body):
    """The data members' declarations of a struct body: (type, name)."""
    statements = []
    current = []
    depth = 0
    for ch in body:
        if depth == 0 and ch == ";":
            statements.append("".join(current))
            current = []
            continue
        if ch == "{":
            if depth == 0:
                head = "".join(current)
                # A member function's or a nested type's body: drop it with
                # its declaration. A brace initializer is kept.
                if re.search(r"\)\s*(?:const|noexcept|override|\s)*$", head) \
                        or re.match(r"\s*(?:struct|class|enum|union)\b", head):
                    current = ["\0"]
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and current[:1] == ["\0"]:
                current = []
                continue
        current.append(ch)
    out = []
    for s in statements:
        s = s.replace("\0", "")
        s = re.sub(r"\b(?:public|private|protected)\s*:", "", s).strip()
        if not s or re.match(r"(?:using|friend|static|template|typedef|"
                             r"enum|struct|class)\b", s):
            continue
        # Default member initializers: `= value` or `{...}`.
        s = re.split(r"\s*=\s*", s, maxsplit=1)[0]
        s = re.sub(r"\{[^{}]*\}\s*$", "", s).strip()
        if "(" in s:
            continue  # a member function declaration
        m = re.match(r"^(.*?[\w>:&*\s])\s*\b([A-Za-z_]\w*)\s*(?:\[[^]]*\])?$",
                     s, re.S)
        if m:
            out.append((" ".join(m.group(1).split()), m.group(2)))
    return out


def singular(word):
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def concepts_of(field, enums):
    """The domain enums the field's name names (sorted; empty if none)."""
    words = [singular(w) for w in field.split("_") if w]
    while len(words) > 1 and words[-1] in COLLECTION_WORDS:
        words.pop()
    name = "_".join(words)
    if not words or name in FREE_FORM_IN_KAFKA:
        return []
    found = []
    for enum in sorted(enums):
        enum_words = enum.split("_")
        if name == enum or (words[-1] == enum_words[-1] and all(
                w in enum_words[:-1] for w in words[:-1])):
            found.append(enum)
    return found


def stem_of(field):
    """The stem of a field named as one end of a change (`old_state` ->
    `state`, `role_after` -> `role`), or None."""
    words = [w for w in field.split("_") if w]
    if len(words) > 1 and words[0] in END_PREFIXES:
        return "_".join(words[1:])
    if len(words) > 1 and words[-1] in END_SUFFIXES:
        return "_".join(words[:-1])
    return None


def enum_of(type_, enums):
    """The domain enum a field's type is (`group_state`,
    `troupe::group_state`, `const group_state`), or None."""
    m = re.match(r"^(?:const\s+)?(?:(?:::)?troupe::)?([A-Za-z_]\w*)$", type_)
    return m.group(1) if m and m.group(1) in enums else None


def domain_transitions(structs_in_domain, enums):
    """The domain's own transition structs: {enum: [struct, ...]} for every
    struct whose `from` and `to` are of that one enum type."""
    out = {}
    for name, (_, fields) in sorted(structs_in_domain.items()):
        by_name = {field: enum_of(type_, enums) for type_, field in fields}
        e = by_name.get("from")
        if e and by_name.get("to") == e:
            out.setdefault(e, []).append(name)
    return out


def subject_words(struct, fields, skip):
    """The words a struct says it is about: of its name and of its other
    fields' names, singular."""
    names = [struct] + [f for _, f in fields if f != skip]
    return {singular(w) for n in names for w in n.split("_") if w}


def transition_concepts(struct, fields, field, enums, transitions):
    """The transition rule: the domain enums a field named as one end of a
    change carries (sorted; empty if none), with why."""
    if field in BARE_ENDS:
        about = subject_words(struct, fields, field)
        found = [e for e in sorted(transitions)
                 if about & set(e.split("_")[:-1])]
        if found:
            via = ", ".join(s for e in found for s in transitions[e])
            return found, (f"one end of a transition, typed by the "
                           f"domain's {via}")
        return [], ""
    stem = stem_of(field)
    if stem:
        found = concepts_of(stem, enums)
        if found:
            return found, f"one end of a change of {stem}"
    return [], ""


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    enums = set()
    for _, text in headers(root, ("domain",)):
        enums.update(ENUM.findall(strip_comments(text)))
    structs = {}
    structs_in_domain = {}
    type_ids = []
    for path, text in headers(root, MESSAGE_DIRS):
        text = strip_comments(text)
        type_ids += TYPE_ID.findall(text)
        for m in STRUCT.finditer(text):
            open_brace = m.end() - 1
            body = text[open_brace + 1:block_end(text, open_brace) - 1]
            parsed = (path, members(body))
            structs.setdefault(m.group(1), parsed)
            if path.startswith("domain" + os.sep):
                structs_in_domain.setdefault(m.group(1), parsed)
    transitions = domain_transitions(structs_in_domain, enums)
    type_ids = [t.split("::")[-1] for t in type_ids]
    problems = []
    if len(enums) < 5 or len(type_ids) < 50:
        problems.append(f"found only {len(enums)} domain enums and "
                        f"{len(type_ids)} type ids: wrong source directory?")
    seen = set()
    todo = list(type_ids)
    checked_fields = 0
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in structs:
            if name in type_ids:
                problems.append(f"type id {name}: no `struct {name}` found "
                                f"in {', '.join(MESSAGE_DIRS)}")
            continue
        path, fields = structs[name]
        for type_, field in fields:
            checked_fields += 1
            for word in re.findall(r"[A-Za-z_]\w*", type_):
                if word in structs and word not in seen:
                    todo.append(word)
            if not STRING_TYPE.match(type_):
                continue
            found = concepts_of(field, enums)
            if found:
                problems.append(f"{path}: {name}::{field} is a {type_} where "
                                f"the domain has enum {', '.join(found)}")
                continue
            found, why = transition_concepts(name, fields, field, enums,
                                             transitions)
            if found:
                problems.append(f"{path}: {name}::{field} is a {type_} where "
                                f"the domain has enum {', '.join(found)} "
                                f"({why})")
    if checked_fields < 200:
        problems.append(f"read only {checked_fields} message fields: the "
                        f"struct parser found too little")
    if problems:
        print("actor messages carry strings where the domain has enums:",
              file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    typed = ", ".join(f"{e} ({', '.join(s)})"
                      for e, s in sorted(transitions.items())) or "none"
    print(f"{len(seen)} message types, {checked_fields} fields, "
          f"{len(enums)} domain enums, domain transitions typed by {typed}: "
          f"no enum carried as a string")
    return 0


if __name__ == "__main__":
    sys.exit(main())
