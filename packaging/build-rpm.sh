#!/bin/sh
# Build the hosttune RPM from the `make dist` tarball with rpmbuild -bb and
# the spec the tarball carries (packaging/rpm/hosttune.spec), its %check
# (the whole `make check`) included, on a Debian machine (Debian's rpm
# package) or on EL.
#
#   sh packaging/build-rpm.sh [TARBALL] [OUTDIR]
#
# TARBALL: a hosttune-VERSION.tar.gz (default: `make dist` in the
# configured build tree, $top_builddir or this source tree). OUTDIR
# (default: the current directory) receives the .rpm files, whose paths are
# printed, and rpmbuild's log (hosttune-rpmbuild.log). HT_RPM_CHECK=0 builds --without check;
# HT_RPM_CHECK_TESTS="T1 T2" makes %check run only those tests.
#
# Where rpm lacks EL's macros (Debian: no systemd-rpm-macros, %_sharedstatedir
# is /usr/com), packaging/rpm/macros.el is loaded: EL 9's values for the
# systemd paths and scriptlets. rpm's own BuildRequires check (which asks
# the rpm database, empty on Debian) is replaced by a check of each
# BuildRequires by name: pkgconfig(X) through pkg-config, a tool through
# the command it provides. The build runs under a directory only its owner
# can enter (mktemp -d, 0700), as a private checkout or rpmbuild's default
# ~/rpmbuild under a root-only home does.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${top_builddir:-$top}
tarball=${1:-}
out=$(mkdir -p "${2:-.}" && cd "${2:-.}" && pwd)
for tool in rpmbuild rpmspec; do
        command -v $tool >/dev/null 2>&1 || { echo "build-rpm: $tool not installed (Debian: apt-get install rpm)" >&2; exit 1; }
done

version=$(sed -n 's/^AC_INIT(\[hosttune\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
work=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-rpm.XXXXXX")
chmod 0700 "$work"
trap 'rm -rf "$work"' EXIT
topdir=$work/rpmbuild
mkdir -p "$topdir/SOURCES" "$topdir/SPECS"

if [ -z "$tarball" ]; then
        [ -f "$builddir/Makefile" ] || { echo "build-rpm: no configured build tree at $builddir (or give a tarball)" >&2; exit 1; }
        make -s -C "$builddir" dist-gzip >"$work/dist.log" 2>&1 || {
                tail -30 "$work/dist.log" >&2; echo "build-rpm: make dist failed" >&2; exit 1; }
        mv "$builddir/hosttune-$version.tar.gz" "$topdir/SOURCES/"
else
        case ${tarball##*/} in
        "hosttune-$version.tar.gz") ;;
        *) echo "build-rpm: $tarball is not hosttune-$version.tar.gz (configure.ac's version)" >&2; exit 1 ;;
        esac
        cp "$tarball" "$topdir/SOURCES/"
fi
spec=$topdir/SPECS/hosttune.spec
tar -xzOf "$topdir/SOURCES/hosttune-$version.tar.gz" "hosttune-$version/packaging/rpm/hosttune.spec" >"$spec" || {
        echo "build-rpm: the tarball carries no packaging/rpm/hosttune.spec" >&2; exit 1; }

# EL's macros where this rpm lacks them.
set -- --define "_topdir $topdir"
if [ "$(rpm --eval '%{?_unitdir}')" = "" ]; then
        tar -xzOf "$topdir/SOURCES/hosttune-$version.tar.gz" "hosttune-$version/packaging/rpm/macros.el" >"$work/macros.el"
        set -- "$@" --load "$work/macros.el"
        el_macros=yes
else
        el_macros=no
fi
[ "${HT_RPM_CHECK:-1}" != 0 ] || set -- "$@" --without check
[ -z "${HT_RPM_CHECK_TESTS:-}" ] || set -- "$@" --define "ht_check_tests $HT_RPM_CHECK_TESTS"

spec_version=$(rpmspec "$@" -q --srpm --qf '%{VERSION}' "$spec")
[ "$spec_version" = "$version" ] || { echo "build-rpm: the spec says $spec_version, configure.ac $version" >&2; exit 1; }

# BuildRequires: rpm checks them when the rpm database has them (EL);
# elsewhere each is checked by name here and rpmbuild runs with --nodeps.
if rpm -q --whatprovides gcc >/dev/null 2>&1; then
        :
else
        missing=""
        for req in $(rpmspec "$@" -q --buildrequires "$spec" | awk '{ print $1 }'); do
                case $req in
                pkgconfig\(*\)) mod=${req#pkgconfig(}; mod=${mod%)}
                        pkg-config --exists "$mod" || missing="$missing $req" ;;
                systemd-rpm-macros) [ "$el_macros" = yes ] || rpm --eval '%{?systemd_post:yes}' | grep -q yes || missing="$missing $req" ;;
                procps-ng) command -v sysctl >/dev/null 2>&1 || missing="$missing $req" ;;
                gcc | make | jq) command -v "$req" >/dev/null 2>&1 || missing="$missing $req" ;;
                *) missing="$missing $req(unknown)" ;;
                esac
        done
        [ -z "$missing" ] || { echo "build-rpm: BuildRequires missing:$missing" >&2; exit 1; }
        set -- "$@" --nodeps
fi

start=$(date +%s)
rpmbuild "$@" -bb "$spec" >"$out/hosttune-rpmbuild.log" 2>&1 || {
        tail -80 "$out/hosttune-rpmbuild.log" >&2
        echo "build-rpm: rpmbuild failed (log above)" >&2
        exit 1
}
echo "build-rpm: rpmbuild -bb took $(($(date +%s) - start)) s" >&2
found=no
for f in "$topdir"/RPMS/*/*.rpm; do
        [ -f "$f" ] || continue
        cp "$f" "$out/"
        echo "$out/${f##*/}"
        found=yes
done
[ "$found" = yes ] || { echo "build-rpm: rpmbuild made no package" >&2; exit 1; }
