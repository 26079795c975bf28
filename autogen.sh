#!/bin/sh
# Regenerate the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
# the backends' source list (a new backend is its file and its backends.def line)
sh tools/gen-backends-am.sh . > src/backends/backends.am
autoreconf --install --force
