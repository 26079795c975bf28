#!/usr/bin/env python3
"""Hold the source tree to the shape docs/DESIGN.md ("Rooms") draws.

Usage: check-layering.py [-v] SRCDIR LIBHOSTTUNE.A [OBJECT...]

Prints one line a finding and exits 1 if any:
  cycle:   source files that call each other in a ring (the call graph
           between files, read from the objects' symbol tables with nm:
           file A calls file B when A's object needs a symbol B's defines);
  size:    a .c file under src/ longer than 1,500 lines;
  registry: a file under src/plan/ that uses the backend registry
           (ht_backends), whose walk belongs to the commands.
-v names each edge of a ring with one symbol it is made of.
One nm run for the whole library keeps it to a fraction of a second.
"""
import os
import re
import subprocess
import sys

MAX_LINES = 1500
REGISTRY_SYMBOLS = {"ht_backends", "ht_backend_count"}


def source_paths(srcdir):
    """basename of each object -> its .c path relative to the top."""
    paths = {}
    for root, _dirs, files in os.walk(os.path.join(srcdir, "src")):
        for name in files:
            if name.endswith(".c"):
                rel = os.path.relpath(os.path.join(root, name), srcdir)
                paths[name[:-2] + ".o"] = rel
    return paths


def read_symbols(objects):
    """object basename -> (defined, undefined) global symbol sets."""
    out = subprocess.run(["nm", "-A", "-g", "-P"] + objects, check=True,
                         capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        # POSIX form: "lib.a[member.o]: NAME KIND ..." or "file.o: NAME KIND"
        where, _, rest = line.partition(": ")
        fields = rest.split()
        if len(fields) < 2:
            continue
        member = re.search(r"\[([^]]+)\]$", where)
        obj = member.group(1) if member else os.path.basename(where)
        name, kind = fields[0], fields[1]
        defined, undefined = table.setdefault(obj, (set(), set()))
        (undefined if kind in ("U", "w", "v") else defined).add(name)
    return table


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; returns the rings (size > 1)."""
    index, low, on_stack, stack, rings = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = counter[0]
                    counter[0] += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                ring = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    ring.append(member)
                    if member == node:
                        break
                if len(ring) > 1:
                    rings.append(sorted(ring))
    return rings


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    verbose = "-v" in argv
    argv = [arg for arg in argv if arg != "-v"]
    srcdir, objects = argv[1], argv[2:]
    paths = source_paths(srcdir)
    table = read_symbols(objects)
    owner = {}
    for obj, (defined, _undefined) in table.items():
        for name in defined:
            owner[name] = obj
    graph = {obj: set() for obj in table}
    why = {}
    findings = []
    for obj, (_defined, undefined) in table.items():
        for name in undefined:
            callee = owner.get(name)
            if callee and callee != obj:
                graph[obj].add(callee)
                why[(obj, callee)] = min(name, why.get((obj, callee), name))
        if paths.get(obj, "").startswith("src/plan/") and \
                undefined & REGISTRY_SYMBOLS:
            findings.append("registry: %s walks the backend registry (%s)"
                            % (paths[obj], ", ".join(sorted(
                                undefined & REGISTRY_SYMBOLS))))
    for ring in strongly_connected(graph):
        files = [paths.get(obj, obj) for obj in ring]
        findings.append("cycle: %s" % " <-> ".join(files))
        if verbose:
            for caller in ring:
                for callee in sorted(graph[caller] & set(ring)):
                    findings.append("  %s -> %s (%s)" % (
                        paths.get(caller, caller), paths.get(callee, callee),
                        why[(caller, callee)]))
    for rel in sorted(paths.values()):
        with open(os.path.join(srcdir, rel), "rb") as source:
            lines = source.read().count(b"\n")
        if lines > MAX_LINES:
            findings.append("size: %s has %d lines (at most %d)"
                            % (rel, lines, MAX_LINES))
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
