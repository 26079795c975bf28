#!/bin/sh
# The RPM, built for real: packaging/build-rpm.sh runs rpmbuild -bb on the
# `make dist` tarball (or HT_TARBALL) with the spec it carries, %check (the
# whole `make check`) included, under a directory only root may enter.
# Then the payload is compared with the spec's %files and with what
# `make install` installs, the scriptlets and dependencies are read, rpmlint
# must find nothing, and the package is installed into a throwaway root
# (`rpm --root DIR --nodeps --noscripts`: the root has no shell to run the
# scriptlets in) where the installed hosttune runs --version, list and a
# plan against a fixture host, compared with the reviewed golden.
# Slow (a full build and test suite): not part of `make check`; CI runs it
# directly and fails on any skip. HT_RPM_CHECK=0 builds without %check;
# HT_RPM_CHECK_TESTS="T1 T2" makes %check run only those tests (CI: the
# suite ran whole before); HT_TARBALL builds from that tarball;
# HT_RPM_LOG=FILE keeps rpmbuild's log.
. "${top_srcdir:-.}/tests/integration/lib.sh"
case $HOSTTUNE in /*) ;; *) HOSTTUNE=$(pwd)/$HOSTTUNE ;; esac
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
export top_srcdir top_builddir
for tool in rpmbuild rpmspec rpm rpmlint; do
        command -v $tool >/dev/null 2>&1 ||
                skip_all "$tool not installed (Debian: apt-get install rpm rpmlint; scripts/deps.sh --ci)"
done
[ "$(id -u)" = 0 ] || skip_all "not root: the package is installed into a root-owned throwaway root"

version=$(sed -n 's/^AC_INIT(\[hosttune\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")

# A parent only root may enter, as a root-only TMPDIR or home is.
private=$tmp/private
mkdir "$private" && chmod 0700 "$private"
check "the build's parent directory is 0700" 700 "$(stat -c %a "$private")"
start=$(date +%s)
if TMPDIR=$private sh "$top_srcdir/packaging/build-rpm.sh" "${HT_TARBALL:-}" "$tmp/out" \
        >"$tmp/built" 2>"$tmp/build-err"; then
        ok "rpmbuild -bb from the tarball ($(($(date +%s) - start)) s)"
else
        not_ok "rpmbuild -bb failed: $(tail -c 3000 "$tmp/build-err")"
        finish
fi
cat "$tmp/build-err"
pkg=$(grep "/hosttune-$version-[^/]*\.x86_64\.rpm\$" "$tmp/built" | grep -v debug | head -1)
[ -f "$pkg" ] || { not_ok "no hosttune-$version rpm among: $(cat "$tmp/built")"; finish; }
log=$tmp/out/hosttune-rpmbuild.log
check_contains "the build ran under the 0700 directory" "$private/hosttune-rpm." "$log"
if [ "${HT_RPM_CHECK:-1}" != 0 ]; then
        # the TAP summary of the package's own make check
        check_contains "%check ran the test suite" "# TOTAL: " "$log"
        check "%check: no test failed" "# FAIL:  0" "$(grep '^# FAIL: ' "$log" | tail -1)"
        check "%check: no test errored" "# ERROR: 0" "$(grep '^# ERROR: ' "$log" | tail -1)"
        echo "# %check: $(grep '^# TOTAL:' "$log" | tail -1 | tr -s ' ' | cut -d' ' -f3) checks, $(grep -c '^SKIP: ' "$log") skipped"
        # for .ci/run, which holds %check's skips to its list (check-skips.sh)
        [ -z "${HT_RPM_LOG:-}" ] || cp "$log" "$HT_RPM_LOG"
else
        skip "%check ran the test suite" "HT_RPM_CHECK=0"
fi

check "the package's version is configure.ac's" "$version" "$(rpm -qp --qf '%{VERSION}' "$pkg")"

# The payload: "MODE PATH" per entry, without the build-id links.
rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$pkg" | grep -v ' /usr/lib/\.build-id' >"$tmp/payload"
awk '$1 !~ /^d/ { print $2 }' "$tmp/payload" | sort >"$tmp/payload-files"
check "/var/lib/hosttune is root's only" "drwx------ /var/lib/hosttune" "$(grep ' /var/lib/hosttune$' "$tmp/payload")"
for d in /etc/hosttune/profiles /etc/hosttune/rules; do
        check "the package owns $d" "drwxr-xr-x $d" "$(grep " $d\$" "$tmp/payload")"
done
check "%license: COPYING" /usr/share/licenses/hosttune/COPYING "$(rpm -qp --licensefiles "$pkg")"
# the JSON Schemas of every --json document, each of the source tree's
missing=
for s in "$top_srcdir"/schemas/*.schema.json; do
        grep -qx "/usr/share/hosttune/schemas/${s##*/}" "$tmp/payload-files" || missing="$missing ${s##*/}"
done
check "the payload has the $(ls "$top_srcdir"/schemas/*.schema.json | wc -l) JSON Schemas" "" "$missing"

# ...against the spec's %files (expanded with the macros build-rpm.sh used):
# every entry is in the payload, and every payload file is under an entry.
macros=
[ -n "$(rpm --eval '%{?_unitdir}')" ] || macros="--load $top_srcdir/packaging/rpm/macros.el"
# shellcheck disable=SC2086
rpmspec -P $macros "$top_srcdir/packaging/rpm/hosttune.spec" 2>/dev/null |
        sed -n '/^%files$/,/^%changelog/p' | sed '1d;$d' | grep -v '^#' |
        sed -e 's/%dir //' -e 's/%attr([^)]*) //' -e 's/%config(noreplace) //' |
        sed -e 's|^%license \(.*\)|/usr/share/licenses/hosttune/\1|' -e 's|^%doc \(.*\)|/usr/share/doc/hosttune/\1|' |
        grep '^/' >"$tmp/files"
missing= uncovered=
while read -r entry; do
        # shellcheck disable=SC2254
        awk '{ print $2 }' "$tmp/payload" | grep -q "^${entry%\*}" || missing="$missing $entry"
done <"$tmp/files"
while read -r f; do
        covered=no
        while read -r entry; do
                # shellcheck disable=SC2254
                case $f in $entry | $entry*) covered=yes; break ;; esac
        done <"$tmp/files"
        [ $covered = yes ] || uncovered="$uncovered $f"
done <"$tmp/payload-files"
check "every %files entry ($(wc -l <"$tmp/files")) is in the payload" "" "$missing"
check "every payload file ($(wc -l <"$tmp/payload-files")) is under a %files entry" "" "$uncovered"

# ...and against `make install` with the spec's layout: the same files, but
# for what %install and %files add by hand (the preset, the license, the
# README) and the man pages brp-compress gzipped.
make -s -C "$top_builddir" install DESTDIR="$tmp/inst" HT_ENABLE_UNIT=no prefix=/usr \
        sysconfdir=/etc localstatedir=/var systemdsystemunitdir=/usr/lib/systemd/system \
        >"$tmp/install.log" 2>&1 || not_ok "make install: $(tail -20 "$tmp/install.log")"
(cd "$tmp/inst" && find . ! -type d | sed -e 's|^\.||' -e 's|\(/man/man[0-9]/.*\)|\1.gz|') |
        { cat; printf '%s\n' /usr/lib/systemd/system-preset/90-hosttune.preset \
                /usr/share/licenses/hosttune/COPYING /usr/share/doc/hosttune/README.md; } | sort >"$tmp/install-files"
if diff -u "$tmp/install-files" "$tmp/payload-files" >"$tmp/diff"; then
        ok "the payload is what make install installs ($(wc -l <"$tmp/install-files") files) and the spec's additions"
else
        not_ok "the payload differs from make install (- make install, + rpm):"
        sed 's/^/# /' "$tmp/diff"
fi

# Scriptlets: the verify unit takes its preset on first install (enabled by
# 90-hosttune.preset, not started), is disabled on removal; the state
# directory is made.
rpm -qp --scripts "$pkg" >"$tmp/scripts"
sed -n '/^postinstall scriptlet/,/^preuninstall scriptlet/p' "$tmp/scripts" >"$tmp/post"
sed -n '/^preuninstall scriptlet/,/^postuninstall scriptlet/p' "$tmp/scripts" >"$tmp/preun"
check_contains "%post: the unit takes its preset (%systemd_post)" \
        "systemd-update-helper install-system-units hosttune-verify.service" "$tmp/post"
check_contains "%post: the state directory is made (%tmpfiles_create)" \
        "systemd-tmpfiles --create /usr/lib/tmpfiles.d/hosttune.conf" "$tmp/post"
check_contains "%preun: the unit is disabled on removal (%systemd_preun)" \
        "systemd-update-helper remove-system-units hosttune-verify.service" "$tmp/preun"
# (comments aside: the %postun one says there is nothing to restart)
if grep -v '^ *#' "$tmp/scripts" | grep -Eq 'systemctl[^#]*(start|restart)|mark-restart'; then
        not_ok "a scriptlet starts or restarts the verify unit: $(cat "$tmp/scripts")"
else
        ok "no scriptlet starts the verify unit"
fi
check_contains "the preset enables the unit" "enable hosttune-verify.service" \
        "$top_srcdir/packaging/systemd/90-hosttune.preset"
# Requirements: the dlopen()ed libraries by soname, systemd for the scriptlets.
rpm -qp --requires "$pkg" >"$tmp/requires"
for req in 'libaudit.so.1()(64bit)' 'libsystemd.so.0()(64bit)' 'libconfig.so.9()(64bit)' \
        'libjson-c.so.5()(64bit)' 'libmount.so.1()(64bit)' 'systemd'; do
        check "Requires $req" "$req" "$(grep -xF "$req" "$tmp/requires" | head -1)"
done

# rpmlint: nothing but what hosttune.rpmlintrc accepts, each with its reason.
rpmlint -r "$top_srcdir/packaging/rpm/lint/package.rpmlintrc" "$pkg" >"$tmp/lint" 2>&1 || :
check_contains "rpmlint on the package: 0 errors, 0 warnings" " 0 errors, 0 warnings" "$tmp/lint"
grep -E ': [EW]: ' "$tmp/lint" | sed 's/^/# /'
# (the spec itself is linted by rpm-spec.sh, in make check)

# Installed into a throwaway root, and run from there.
root=$tmp/root
mkdir "$root"
if rpm --root "$root" --initdb && rpm --root "$root" -i --nodeps --noscripts "$pkg" >"$tmp/rpm-i" 2>&1; then
        ok "rpm --root -i --nodeps --noscripts installs the package"
else
        not_ok "rpm -i into $root: $(cat "$tmp/rpm-i")"
fi
check "rpm --root -q hosttune" "hosttune-$version-1.x86_64" "$(rpm --root "$root" -q hosttune)"
rpm --root "$root" -V --nodeps hosttune >"$tmp/verify" 2>&1
check "rpm -V: every installed file as packaged" "0:" "$?:$(cat "$tmp/verify")"
bin=$root/usr/sbin/hosttune
check "the installed hosttune --version" "hosttune $version" "$("$bin" --version 2>&1)"
"$bin" --profile-path "$root/usr/share/hosttune/profiles" list >"$tmp/list" 2>&1
check "the installed hosttune list: exit 0" 0 $?
for name in base oracle mysql jvm; do
        check_contains "list shows the packaged $name profile" "$root/usr/share/hosttune/profiles/$name.profile" "$tmp/list"
done
# The plan-golden.sh run, with the packaged binary, profiles and rules.
(cd "$top_srcdir" && HOSTTUNE_NO_AUDIT=1 LC_ALL=C "$bin" --root tests/hosts/debian12-kvm \
        --profile-path "$root/usr/share/hosttune/profiles" --rules-path "$root/usr/share/hosttune/rules" \
        --color=never plan oracle >"$tmp/plan.raw" 2>&1; echo "exit: $?" >>"$tmp/plan.raw")
# The golden names profile lines as the source tree's profiles/; here they are the packaged copies.
sed "s|$root/usr/share/hosttune/profiles/|profiles/|g" "$tmp/plan.raw" >"$tmp/plan"
if diff -u "$top_srcdir/tests/expected/plan/debian12-kvm--oracle.txt" "$tmp/plan" >"$tmp/diff"; then
        ok "the installed hosttune plans oracle on debian12-kvm as the golden says (exit 2)"
else
        not_ok "the installed hosttune's plan differs from tests/expected/plan/debian12-kvm--oracle.txt"
        sed 's/^/# /' "$tmp/diff"
fi
finish
