#!/usr/bin/env python3
"""Lists and applies operator mutants of Swift source files, for Tests/Mutation/run.sh.

A mutant is named FILE:LINE:N: the N-th mutation (1-based, in column order) that the operators
below offer on line LINE of FILE. Comments, string literals (with their interpolations) and
raw strings are never mutated.

    mutants.py list FILE...                         one mutant a line: ID, TAB, the change, TAB, the line
    mutants.py sample N SEED FILE...                a reproducible sample of N, covering every file
    mutants.py apply ID                             rewrites the file of ID with that one mutation
    mutants.py resolve ID FILE...                   the full ID of an ID whose FILE is a base name
"""
import random
import re
import sys

# (pattern, replacement) pairs; a pattern's group 1 is the text that is replaced.
# Binary operators must have spaces on both sides, which keeps generic brackets
# (`Array<UInt8>`), arrows and prefix/postfix operators out.
OPERATORS = [
    (r"(?<=\s)(<)(?=\s)", "<="),
    (r"(?<=\s)(<=)(?=\s)", "<"),
    (r"(?<=\s)(>)(?=\s)", ">="),
    (r"(?<=\s)(>=)(?=\s)", ">"),
    (r"(?<=\s)(==)(?=\s)", "!="),
    (r"(?<=\s)(!=)(?=\s)", "=="),
    (r"(?<=\s)(&&)(?=\s)", "||"),
    (r"(?<=\s)(\|\|)(?=\s)", "&&"),
    (r"(?<=\s)(\+ 1)(?![\w.])", "- 1"),
    (r"(?<=\s)(- 1)(?![\w.])", "+ 1"),
    (r"(?<=\s)(&\+ 1)(?![\w.])", "&- 1"),
    (r"(?<=\s)(&- 1)(?![\w.])", "&+ 1"),
    (r"(?<=\s)(\+= 1)(?![\w.])", "-= 1"),
    (r"(?<=\s)(-= 1)(?![\w.])", "+= 1"),
    (r"(?<=[\w)\]])(\.\.<)(?=[\w(])", "..."),
    (r"(?<=[\w)\]])(\.\.\.)(?=[\w(])", "..<"),
    (r"(?<![\w.])(max)(?=\()", "min"),
    (r"(?<![\w.])(min)(?=\()", "max"),
]


# Lines whose `==` is a generic constraint (`extension Array where Element == UInt8`).
DECLARATION = re.compile(
    r"^\s*(?:(?:public|internal|private|fileprivate|static|final)\s+)*(?:extension|struct|class|enum|protocol|func)\b")


def code_mask(text):
    """A list of booleans, one per character: True where the character is code (not in a
    comment, a string literal or an interpolation inside one)."""
    mask = [True] * len(text)
    i, n = 0, len(text)
    block_depth = 0

    def blank(start, end):
        for k in range(start, min(end, n)):
            mask[k] = False

    while i < n:
        if block_depth:
            if text.startswith("/*", i):
                block_depth += 1
                blank(i, i + 2)
                i += 2
            elif text.startswith("*/", i):
                block_depth -= 1
                blank(i, i + 2)
                i += 2
            else:
                mask[i] = False
                i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            block_depth = 1
            blank(i, i + 2)
            i += 2
        elif text[i] == '"' or (text[i] == "#" and re.match(r'#+"', text[i:])):
            i = skip_string(text, i, blank)
        else:
            i += 1
    return mask


def skip_string(text, start, blank):
    """Blanks the string literal starting at `start` (any number of `#`, one or three quotes)
    and returns the index just past it."""
    hashes = len(text[start:]) - len(text[start:].lstrip("#"))
    i = start + hashes
    quote = '"""' if text.startswith('"""', i) else '"'
    i += len(quote)
    closing = quote + "#" * hashes
    escape = "\\" + "#" * hashes
    depth = 0
    n = len(text)
    while i < n:
        if depth == 0 and text.startswith(closing, i):
            i += len(closing)
            break
        if depth == 0 and text.startswith(escape, i):
            i += len(escape)
            if i < n and text[i] == "(":
                depth = 1
            i += 1
            continue
        if depth:
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
        i += 1
    blank(start, i)
    return i


def mutants_of(path):
    """Every mutant of the file: (id, line number, start, end, original, replacement, line)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    mask = code_mask(text)
    result = []
    offset = 0
    for number, line in enumerate(text.split("\n"), start=1):
        found = []
        if DECLARATION.match(line):
            offset += len(line) + 1
            continue
        for pattern, replacement in OPERATORS:
            for match in re.finditer(pattern, line):
                start, end = match.span(1)
                if all(mask[offset + k] for k in range(start, end)):
                    found.append((start, end, match.group(1), replacement))
        found.sort()
        for index, (start, end, original, replacement) in enumerate(found, start=1):
            result.append((f"{path}:{number}:{index}", number, offset + start, offset + end,
                           original, replacement, line.strip()))
        offset += len(line) + 1
    return result


def describe(mutant):
    identifier, _, _, _, original, replacement, line = mutant
    return f"{identifier}\t{original} -> {replacement}\t{line}"


def sample(count, seed, paths):
    """`count` mutants drawn with `seed`: each file gets a share in proportion to its mutants
    (at least one), chosen at random within the file; the answer is in file and line order."""
    per_file = {path: mutants_of(path) for path in paths}
    per_file = {path: found for path, found in per_file.items() if found}
    total = sum(len(found) for found in per_file.values())
    generator = random.Random(seed)
    chosen = []
    if count >= total:
        return [m for path in paths for m in per_file.get(path, [])]
    for path in paths:
        found = per_file.get(path)
        if not found:
            continue
        share = max(1, round(count * len(found) / total))
        chosen.extend(sorted(generator.sample(found, min(share, len(found))), key=lambda m: m[1]))
    return chosen


def split_identifier(identifier):
    path, line, index = identifier.rsplit(":", 2)
    return path, int(line), int(index)


def find(identifier):
    path, line, index = split_identifier(identifier)
    for mutant in mutants_of(path):
        if mutant[1] == line and mutant[0].endswith(f":{line}:{index}"):
            return mutant
    sys.exit(f"mutants.py: no mutant {identifier}")


def apply(identifier):
    mutant = find(identifier)
    path = split_identifier(identifier)[0]
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    _, _, start, end, original, replacement, _ = mutant
    assert text[start:end] == original
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text[:start] + replacement + text[end:])


def resolve(identifier, paths):
    name, line, index = split_identifier(identifier)
    matches = [p for p in paths if p == name or p.endswith("/" + name)]
    if len(matches) != 1:
        sys.exit(f"mutants.py: {name} names {len(matches)} of the mutated files")
    return f"{matches[0]}:{line}:{index}"


def main(arguments):
    if not arguments:
        sys.exit(__doc__)
    command, rest = arguments[0], arguments[1:]
    if command == "list":
        for path in rest:
            for mutant in mutants_of(path):
                print(describe(mutant))
    elif command == "sample":
        for mutant in sample(int(rest[0]), int(rest[1]), rest[2:]):
            print(describe(mutant))
    elif command == "apply":
        apply(rest[0])
    elif command == "resolve":
        print(resolve(rest[0], rest[1:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
