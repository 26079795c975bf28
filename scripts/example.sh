#!/bin/sh
# The newcomer's first command: install build deps, build, and show what
# hosttune would do to the bundled example host (a dry run: nothing on
# this machine is touched).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
sh scripts/build.sh
set -x
./hosttune --root tests/hosts/debian12-kvm facts
