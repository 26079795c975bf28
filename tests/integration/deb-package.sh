#!/bin/sh
# The Debian package, built for real (packaging/build-deb.sh runs
# dpkg-buildpackage -us -uc -b on a copy of the tree), checked for its
# contents and maintainer scripts, unpacked into a throwaway root with
# dpkg -x (never installed on this machine) and run from there.
# Slow (a full build): not part of `make check`; CI runs it directly.
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
for tool in dpkg-buildpackage dh dpkg-checkbuilddeps; do
        if ! command -v $tool >/dev/null 2>&1; then
                echo "1..0 # SKIP $tool not installed (Debian: apt-get install dpkg-dev debhelper)"
                exit 0
        fi
done
if ! missing=$(dpkg-checkbuilddeps "$top_srcdir/packaging/debian/control" 2>&1); then
        echo "1..0 # SKIP build dependencies missing: $missing"
        exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-debtest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

# From a tarball (HT_TARBALL: the release's make dist output, as the RPM
# is built from), or from this tree.
src=$top_srcdir
if [ -n "${HT_TARBALL:-}" ]; then
        mkdir "$tmp/tarball"
        tar -C "$tmp/tarball" -xzf "$HT_TARBALL" || fail "cannot unpack $HT_TARBALL"
        src=$(echo "$tmp"/tarball/hosttune-*)
        [ -f "$src/packaging/build-deb.sh" ] || fail "$HT_TARBALL carries no packaging/build-deb.sh"
        echo "from ${HT_TARBALL##*/}"
fi
deb=$(sh "$src/packaging/build-deb.sh" "$tmp/out" | grep '/hosttune_[^/]*\.deb$' | head -1)
[ -f "$deb" ] || fail "no hosttune .deb built"
echo "built ${deb##*/}"
version=$(sed -n 's/^AC_INIT(\[hosttune\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")

# What the package holds. The unit directory is systemd's (/lib on Debian
# 12, /usr/lib later).
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$tmp/contents"
unitdir=$(grep -o '^/.*/systemd/system/hosttune-verify.service$' "$tmp/contents" || :)
[ -n "$unitdir" ] || fail "no hosttune-verify.service in the package"
for p in /usr/sbin/hosttune /usr/lib/tmpfiles.d/hosttune.conf \
        /usr/share/bash-completion/completions/hosttune \
        /usr/share/hosttune/ansible/ansible_collections/hosttune/hosttune/plugins/modules/hosttune.py \
        /usr/share/hosttune/ansible/ansible_collections/hosttune/hosttune/galaxy.yml \
        /usr/share/doc/hosttune/examples/tune-db-hosts.yml /usr/share/doc/hosttune/examples/oracle-db.yaml \
        /usr/share/doc/hosttune/copyright /usr/share/doc/hosttune/changelog.gz \
        /usr/share/hosttune/profiles/ /usr/share/hosttune/rules/ \
        /usr/share/man/man8/hosttune.8.gz /usr/share/man/man5/hosttune.profile.5.gz; do
        grep -qx "$p" "$tmp/contents" || fail "package lacks $p"
done
# the periodic verify and metrics units beside the verify unit, and the
# example alerting rules
for p in "${unitdir%/*}/hosttune-metrics.service" "${unitdir%/*}/hosttune-verify.timer" \
        /usr/share/hosttune/prometheus/hosttune-alerts.yml; do
        grep -qx "$p" "$tmp/contents" || fail "package lacks $p"
done
for name in base oracle mysql jvm; do
        grep -qx "/usr/share/hosttune/profiles/$name.profile" "$tmp/contents" ||
                fail "package lacks the $name profile"
done
# the JSON Schemas of every --json document (hosttune(8), JSON OUTPUT)
n=0
for s in "$src"/schemas/*.schema.json; do
        grep -qx "/usr/share/hosttune/schemas/${s##*/}" "$tmp/contents" || fail "package lacks schemas/${s##*/}"
        n=$((n + 1))
done
[ $n -ge 12 ] || fail "only $n schemas in $src/schemas"

# Maintainer scripts: the unit enabled (not started), the state directory made.
mkdir "$tmp/control"
dpkg-deb -e "$deb" "$tmp/control"
grep -q 'deb-systemd-helper.*enable.*hosttune-verify.service' "$tmp/control/postinst" ||
        fail "postinst does not enable hosttune-verify.service"
grep -q 'systemd-tmpfiles.*--create.*hosttune.conf' "$tmp/control/postinst" ||
        fail "postinst does not create the state directory"
if grep -q 'deb-systemd-invoke.*start.*hosttune-verify' "$tmp/control/postinst"; then
        fail "postinst starts the verify unit (or its timer) at install time"
fi
# the timer is the administrator's to enable. dh_installsystemd's enable
# snippet enables on first install (was-enabled is true for a unit never
# seen); the --no-enable one runs it only for a unit installed before
# ("debian-installed"), keeping what the administrator chose
if grep -q "deb-systemd-helper enable 'hosttune-verify.timer'" "$tmp/control/postinst" &&
        ! grep -q "deb-systemd-helper debian-installed 'hosttune-verify.timer'" "$tmp/control/postinst"; then
        fail "postinst enables hosttune-verify.timer on installation"
fi

# Debian's policy checker, where it is installed: no errors, no warnings.
if command -v lintian >/dev/null 2>&1; then
        lint=$(lintian "$deb" 2>&1 | grep -E '^[EW]: ' || :)
        [ -z "$lint" ] || fail "lintian: $lint"
else
        echo "note: lintian not installed; skipped"
fi

# Run it from a throwaway root.
dpkg -x "$deb" "$tmp/root"
bin=$tmp/root/usr/sbin/hosttune
[ -x "$bin" ] || fail "no executable hosttune in the package"
got=$("$bin" --version) || fail "hosttune --version failed"
[ "$got" = "hosttune $version" ] || fail "hosttune --version: '$got', want 'hosttune $version'"
list=$("$bin" --profile-path "$tmp/root/usr/share/hosttune/profiles" list) || fail "hosttune list failed: $list"
for name in base oracle mysql jvm; do
        echo "$list" | grep -qw "$name" || fail "hosttune list does not show $name: $list"
done
echo "deb package: ok"
