#!/bin/sh
# Configure and build hosttune in the source tree. Configure runs when
# there is no Makefile, and again when what it looks for optionally has
# changed since it last ran: scripts/example.sh configures with the build
# set only, and scripts/test.sh installs cmocka after it, so without the
# second run every unit test would be skipped ("cmocka not found by
# configure"). What configure found is kept in config.optional.
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh >/dev/null
# configure.ac's optional checks (PKG_CHECK_MODULES with a fallback):
# each module's version, or "absent"
optional() {
        for m in cmocka; do
                printf '%s=%s\n' "$m" "$(pkg-config --modversion "$m" 2>/dev/null || echo absent)"
        done
}
now=$(optional)
if [ ! -f Makefile ]; then
        ./configure --enable-werror ${CONFIGURE_FLAGS:-} >/dev/null
elif [ ! -f config.optional ] || [ "$(cat config.optional)" != "$now" ]; then
        # the same arguments configure was given last time (config.status
        # keeps them), so a tree configured by hand keeps its options
        was=$(cat config.optional 2>/dev/null || echo unknown)
        echo "build: configure again: $(echo $now), was $(echo $was)"
        ./config.status --recheck >/dev/null && ./config.status >/dev/null
fi
printf '%s\n' "$now" >config.optional
make -s -j"$(nproc)" >/dev/null
