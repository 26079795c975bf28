#!/bin/sh
# The JSON Schema of a backend name (schemas/backend.schema.json), made
# from backends.def at build time: the one list of names the schemas of
# show, plan, apply and verify refer to ("$ref": "backend.schema.json"),
# so that a new backend is its file and its backends.def line, and no
# schema to edit (HACKING.md, "Adding a backend").
# Usage: gen-backend-schema.sh BACKENDS.DEF > backend.schema.json
set -e
names=$(sed -n 's/^HT_BACKEND([A-Z0-9_]*, *\([a-z0-9_]*\)).*/\1/p' "$1")
[ -n "$names" ] || { echo "gen-backend-schema.sh: no HT_BACKEND line in $1" >&2; exit 1; }
printf '{\n  "$schema": "https://json-schema.org/draft/2020-12/schema",\n'
printf '  "title": "hosttune backend name",\n'
printf '  "description": "A backend, as settings, plans, journals and checks name it; generated from src/backends/backends.def, in the order plans list them",\n'
printf '  "type": "string",\n  "enum": ['
sep=
for n in $names; do
        printf '%s\n    "%s"' "$sep" "$n"
        sep=,
done
printf '\n  ]\n}\n'
