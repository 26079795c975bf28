#!/bin/sh
# Configure (once) and build hosttune in the source tree.
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh >/dev/null
[ -f Makefile ] || ./configure --enable-werror ${CONFIGURE_FLAGS:-} >/dev/null
make -s -j"$(nproc)" >/dev/null
