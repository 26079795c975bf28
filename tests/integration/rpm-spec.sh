#!/bin/sh
# The RPM spec, checked with Debian's rpm tools: `rpmspec -P` parses it
# (with the systemd path macros Fedora/EL define, which Debian's rpm lacks:
# packaging/rpm/macros.el),
# rpmlint finds no error, the version is configure's, and every %files
# entry exists in a `make install DESTDIR=...` done the way %install does.
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
spec=$top_srcdir/packaging/rpm/hosttune.spec
if ! command -v rpmspec >/dev/null 2>&1; then
        echo "1..0 # SKIP rpmspec not installed (Debian: apt-get install rpm)"
        exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-rpm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# TAP: each step that passes is a check; the first failure ends the run.
t=0
pass() { t=$((t + 1)); echo "ok $t - $*"; }
fail() { t=$((t + 1)); echo "not ok $t - $*"; echo "1..$t"; exit 1; }

# EL's macros where this rpm lacks them (packaging/rpm/macros.el, as
# packaging/build-rpm.sh loads them).
macros=
[ -n "$(rpm --eval '%{?_unitdir}')" ] || macros="--load $top_srcdir/packaging/rpm/macros.el"
# shellcheck disable=SC2086
rpmspec -P $macros "$spec" >"$tmp/spec" 2>"$tmp/err" || fail "rpmspec -P: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || fail "rpmspec -P warned: $(cat "$tmp/err")"
pass "rpmspec -P parses the spec"

version=$(sed -n 's/^AC_INIT(\[hosttune\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")
grep -q "^Version: *$version\$" "$tmp/spec" || fail "spec Version is not $version"
pass "spec Version is configure's $version"
grep -q '^BuildRequires: *pkgconfig(cmocka)' "$tmp/spec" || fail "check BuildRequires missing"
pass "BuildRequires the unit tests' cmocka"

if command -v rpmlint >/dev/null 2>&1; then
        lint=$(rpmlint "$spec" 2>&1) || :
        echo "$lint" | grep -q ' 0 errors' || fail "rpmlint: $lint"
        pass "rpmlint: 0 errors"
        # The one warning taken: Fedora/EL guidelines say the BuildRoot tag
        # is ignored by rpm >= 4.6 and is not to be used.
        warn=$(echo "$lint" | grep ': W: ' | grep -v ': W: no-buildroot-tag$' || :)
        [ -z "$warn" ] || fail "rpmlint warned: $warn"
        pass "rpmlint: no warning but no-buildroot-tag"
else
        t=$((t + 1)); echo "ok $t - rpmlint # SKIP rpmlint not installed"
fi

# %files against a staged install with the spec's layout.
[ -f "$top_builddir/Makefile" ] || fail "no configured build tree at $top_builddir"
make -s -C "$top_builddir" install DESTDIR="$tmp/inst" HT_ENABLE_UNIT=no prefix=/usr \
        sysconfdir=/etc localstatedir=/var systemdsystemunitdir=/usr/lib/systemd/system \
        >"$tmp/install.log" 2>&1 || fail "make install: $(tail -20 "$tmp/install.log")"
# What %install adds by hand.
mkdir -p "$tmp/inst/usr/lib/systemd/system-preset" "$tmp/inst/var/lib/hosttune" \
        "$tmp/inst/etc/hosttune/profiles" "$tmp/inst/etc/hosttune/rules"
cp "$top_srcdir/packaging/systemd/90-hosttune.preset" "$tmp/inst/usr/lib/systemd/system-preset/"
sed -n '/^%files$/,/^%changelog/p' "$tmp/spec" | sed '1d;$d' |
        sed -e 's/^%dir //' -e 's/^%attr([^)]*) //' -e 's/^%dir //' | grep '^/' >"$tmp/files"
# an unexpanded macro would drop its entry from the list unnoticed
unexpanded=$(sed -n '/^%files$/,/^%changelog/p' "$tmp/spec" | grep '%{' || :)
[ -z "$unexpanded" ] || fail "an unexpanded macro in %files: $unexpanded"
n=0
while read -r path; do
        # shellcheck disable=SC2086
        set -- "$tmp/inst"$path
        [ -e "$1" ] || fail "%files entry $path not installed by make install"
        n=$((n + 1))
done <"$tmp/files"
[ "$n" -gt 0 ] || fail "no %files entries found in the spec"
pass "$n %files entries installed by make install"
# ...and nothing installed that %files leaves out (rpmbuild would refuse).
(cd "$tmp/inst" && find . ! -type d | sed 's|^\.||') | while read -r f; do
        covered=no
        while read -r path; do
                case $f in $path | $path*) covered=yes; break ;; esac
        done <"$tmp/files"
        [ $covered = yes ] || [ "$f" = /usr/share/doc/hosttune/README.md ] || { echo "$f"; break; }
done >"$tmp/uncovered"
[ ! -s "$tmp/uncovered" ] || fail "installed but not in %files: $(cat "$tmp/uncovered")"
pass "everything make install installs is in %files"
echo "1..$t"
