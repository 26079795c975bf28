#!/usr/bin/python3
"""Validate hosttune --json documents against schemas/COMMAND.schema.json.

usage: validate.py SCHEMADIR CAPTURE...   (CAPTURE: a directory of what
       tests/json/capture kept, or one file of it: FILE holds the command, the exit status and the arguments,
       FILE.out the document)
       validate.py SCHEMADIR --doc COMMAND FILE   (one document)

One process for every document. Prints TAP lines without numbers (the
calling test numbers them): one 'ok' per schema that documents were
valid against, and a 'not ok' naming the file, the command, the test
that ran it and the error's path for each problem.
"""
import json
import os
import sys

from jsonschema import Draft202012Validator

# jsonschema 4.18 and later resolve "$ref" through the referencing
# package; Debian 12's python3-jsonschema (4.10) has only RefResolver,
# which the newcomer's machine (README's test command) runs with.
try:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError:
    Registry = None
    from jsonschema import RefResolver

ERROR_CODES = {0, 2, 3}


# Schemas the build makes (backend.schema.json, from backends.def): in
# the build tree's schemas/, which the command schemas refer to by name.
GENERATED = ('backend',)


def load_schemas(d):
    dirs = [d]
    built = os.path.join(os.environ.get('top_builddir', '.'), 'schemas')
    if os.path.isdir(built) and os.path.realpath(built) != os.path.realpath(d):
        dirs.append(built)
    loaded = {}
    for sd in dirs:
        for name in sorted(os.listdir(sd)):
            if name.endswith('.schema.json'):
                with open(os.path.join(sd, name)) as f:
                    loaded[name] = json.load(f)
    for g in GENERATED:
        if g + '.schema.json' not in loaded:
            sys.exit('%s.schema.json not built (make schemas/%s.schema.json)' % (g, g))
    if Registry is not None:
        registry = Registry().with_resources(
            (name, Resource.from_contents(s, default_specification=DRAFT202012)) for name, s in loaded.items())
    schemas = {}
    for name, s in loaded.items():
        Draft202012Validator.check_schema(s)
        if name[:-len('.schema.json')] in GENERATED:
            continue
        if Registry is not None:
            v = Draft202012Validator(s, registry=registry)
        else:
            # the schemas have no $id: a "$ref" by file name is a key of the store
            v = Draft202012Validator(s, resolver=RefResolver(base_uri='', referrer=s, store=dict(loaded)))
        schemas[name[:-len('.schema.json')]] = v
    return schemas


def path_of(e):
    return '$' + ''.join('[%d]' % p if isinstance(p, int) else '.' + str(p) for p in e.absolute_path)


def main(argv):
    schemas = load_schemas(argv[1])
    items = []  # (label, command, exit status, text)
    if argv[2:3] == ['--doc']:
        with open(argv[4]) as f:
            items.append((argv[4], argv[3], None, f.read()))
    else:
        metas = []
        for a in argv[2:]:
            if os.path.isdir(a):
                metas += [os.path.join(a, n) for n in sorted(os.listdir(a)) if not n.endswith('.out')]
            else:
                metas.append(a)
        for meta in metas:
            with open(meta) as f:
                lines = f.read().split('\n')
            # capture writes the meta file last: an empty one (or no .out)
            # is a run killed with its wrapper, which printed no document
            if len(lines) < 2 or not lines[1].isdigit() or not os.path.exists(meta + '.out'):
                continue
            with open(meta + '.out') as f:
                text = f.read()
            items.append((meta, lines[0], int(lines[1]), text))
    n = 0
    failed = 0
    counts = {}
    bad = []
    seen = {}
    for label, cmd, rc, text in items:
        test = os.path.basename(label).split('.')[0]
        if not text.strip():
            continue  # nothing printed (a run killed on purpose)
        try:
            doc = json.loads(text)
        except ValueError as e:
            bad.append('%s (%s, from %s): not JSON: %s' % (label, cmd, test, e))
            continue
        # the error object replaces the document of a run that failed
        # before printing one
        kind = cmd
        if rc is not None and rc not in ERROR_CODES and isinstance(doc, dict) and 'exit_code' in doc:
            kind = 'error'
        if kind not in schemas:
            bad.append('%s (%s, from %s): no schema %s.schema.json' % (label, cmd, test, kind))
            continue
        # many tests print the same document: validate each text once
        key = (kind, text)
        if key not in seen:
            seen[key] = sorted(schemas[kind].iter_errors(doc), key=lambda e: [str(p) for p in e.absolute_path])
        errors = seen[key]
        for e in errors[:5]:
            bad.append('%s (%s, from %s): at %s: %s' % (label, kind, test, path_of(e), e.message[:300]))
        if not errors:
            counts[kind] = counts.get(kind, 0) + 1
    for kind in sorted(counts):
        n += 1
        print('ok - %d %s document%s valid against %s.schema.json' % (
            counts[kind], kind, '' if counts[kind] == 1 else 's', kind))
    for b in bad:
        n += 1
        failed += 1
        print('not ok - %s' % b)
    print('# %d documents, %d problems' % (sum(counts.values()), len(bad)))
    return n, failed


if __name__ == '__main__':
    n, failed = main(sys.argv)
    sys.exit(1 if failed else 0)
