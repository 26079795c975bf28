#!/bin/sh
# Build the hosttune .deb from this source tree without touching it:
# copy the tree to a scratch directory with packaging/debian as ./debian
# (where dpkg-buildpackage wants it) and run `dpkg-buildpackage -us -uc -b`.
#
#   sh packaging/build-deb.sh [OUTDIR]     (default OUTDIR: the current directory)
#
# Needs dpkg-dev, debhelper and the Build-Depends of packaging/debian/control
# (`dpkg-checkbuilddeps packaging/debian/control` lists what is missing).
# The package's own `make check` is skipped (DEB_BUILD_OPTIONS=nocheck)
# unless HT_DEB_CHECK=1: CI runs the suite separately.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-.}" && cd "${1:-.}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The changelog names the version; it must be the one configure builds.
ac_version=$(sed -n 's/^AC_INIT(\[hosttune\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
deb_version=$(sed -n '1s/^hosttune (\([^)]*\)).*/\1/p' "$top/packaging/debian/changelog")
if [ "$ac_version" != "$deb_version" ]; then
        echo "build-deb: packaging/debian/changelog says $deb_version, configure.ac $ac_version" >&2
        exit 1
fi

# The source: what git tracks plus new files it does not ignore; from a
# tarball, everything but build directories and configure's output.
mkdir "$work/src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$top" && git ls-files -z --cached --others --exclude-standard) |
                tar -C "$top" --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$work/src" -xf -
else
        tar -C "$top" --exclude='./build*' --exclude=./config.status --exclude=./config.log \
                --exclude=./Makefile --exclude=./config.h --exclude='*.o' --exclude='*.a' -cf - . |
                tar -C "$work/src" -xf -
fi
rm -rf "$work/src/debian"
cp -R "$top/packaging/debian" "$work/src/debian"
chmod +x "$work/src/debian/rules"

if [ "${HT_DEB_CHECK:-0}" != 1 ]; then
        DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}"
        export DEB_BUILD_OPTIONS
fi
(cd "$work/src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
        tail -60 "$work/build.log" >&2
        echo "build-deb: dpkg-buildpackage failed (log above)" >&2
        exit 1
}
for f in "$work"/*.deb; do
        cp "$f" "$out/"
        echo "$out/${f##*/}"
done
