#!/bin/sh
# The verify unit and the tmpfiles entry, checked by systemd's own tools:
# `systemd-analyze verify` on a copy of the unit whose ExecStart is the
# built binary (verify insists that it exists), failing on any complaint,
# and `systemd-tmpfiles --create --root` making the state directory in a
# scratch tree. Also checks that the unit make generated carries the
# configured sbindir.
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
HOSTTUNE=${HOSTTUNE:-$top_builddir/hosttune}

if ! command -v systemd-analyze >/dev/null 2>&1; then
        echo "1..0 # SKIP systemd-analyze not installed"
        exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# TAP: each step that passes is a check; the first failure ends the run.
t=0
pass() { t=$((t + 1)); echo "ok $t - $*"; }
fail() { t=$((t + 1)); echo "not ok $t - $*"; echo "1..$t"; exit 1; }

# The unit make generated: the sbindir substituted, nothing left over.
gen=$top_builddir/packaging/systemd/hosttune-verify.service
[ -f "$gen" ] || fail "$gen was not generated (make all)"
grep -q '@' "$gen" && fail "unsubstituted @...@ left in $gen"
grep -q '^ExecStart=/.*/hosttune verify --boot --textfile ${HOSTTUNE_TEXTFILE}$' "$gen" ||
        fail "ExecStart in $gen: $(grep ExecStart "$gen")"
pass "the generated unit runs the configured sbindir's hosttune verify --boot --textfile"
genm=$top_builddir/packaging/systemd/hosttune-metrics.service
[ -f "$genm" ] || fail "$genm was not generated (make all)"
grep -q '@' "$genm" && fail "unsubstituted @...@ left in $genm"
grep -q '^ExecStart=/.*/hosttune --quiet status --textfile ${HOSTTUNE_TEXTFILE}$' "$genm" ||
        fail "ExecStart in $genm: $(grep ExecStart "$genm")"
pass "the generated metrics unit runs the configured sbindir's hosttune status --textfile"

# The same template, pointed at the built binary for systemd-analyze.
[ -x "$HOSTTUNE" ] || fail "no built binary at $HOSTTUNE"
sbindir=$(cd "$(dirname "$HOSTTUNE")" && pwd)
[ "$(basename "$HOSTTUNE")" = hosttune ] || { cp "$HOSTTUNE" "$tmp/hosttune"; sbindir=$tmp; }
sed "s|@sbindir[@]|$sbindir|g" "$top_srcdir/packaging/systemd/hosttune-verify.service.in" \
        >"$tmp/hosttune-verify.service"
sed "s|@sbindir[@]|$sbindir|g" "$top_srcdir/packaging/systemd/hosttune-metrics.service.in" \
        >"$tmp/hosttune-metrics.service"
cp "$top_srcdir/packaging/systemd/hosttune-verify.timer" "$tmp/"
# --man=no: the man pages are not installed in a build tree. The timer
# finds its Unit= beside it.
for unit in hosttune-verify.service hosttune-metrics.service hosttune-verify.timer; do
        out=$(cd "$tmp" && systemd-analyze verify --man=no "$tmp/$unit" 2>&1) ||
                fail "systemd-analyze verify $unit: $out"
        # verify exits 0 on unknown keys or bad values; any message is a defect.
        [ -z "$out" ] || fail "systemd-analyze verify $unit complained: $out"
done
pass "systemd-analyze verify: no complaint about the verify and metrics units and the timer"
grep -qx 'Unit=hosttune-metrics.service' "$tmp/hosttune-verify.timer" || fail "the timer does not start hosttune-metrics.service"
grep -qx 'WantedBy=timers.target' "$tmp/hosttune-verify.timer" || fail "the timer is not for timers.target"
pass "the timer starts the metrics unit, not the verify unit (RemainAfterExit keeps that one active)"

# The preset, as systemctl applies it at install: the verify unit enabled,
# the timer not.
if command -v systemctl >/dev/null 2>&1; then
        pr=$tmp/preset-root
        mkdir -p "$pr/usr/lib/systemd/system" "$pr/usr/lib/systemd/system-preset" "$pr/etc/systemd/system"
        cp "$tmp/hosttune-verify.service" "$tmp/hosttune-metrics.service" "$tmp/hosttune-verify.timer" \
                "$pr/usr/lib/systemd/system/"
        cp "$top_srcdir/packaging/systemd/90-hosttune.preset" "$pr/usr/lib/systemd/system-preset/"
        systemctl --root="$pr" preset hosttune-verify.service hosttune-verify.timer hosttune-metrics.service \
                >/dev/null 2>&1 || fail "systemctl --root preset failed"
        [ -L "$pr/etc/systemd/system/multi-user.target.wants/hosttune-verify.service" ] ||
                fail "the preset does not enable hosttune-verify.service"
        [ -e "$pr/etc/systemd/system/timers.target.wants/hosttune-verify.timer" ] &&
                fail "the preset enables hosttune-verify.timer"
        pass "systemctl preset: the verify unit enabled, the timer not"
else
        t=$((t + 1)); echo "ok $t - systemctl preset # SKIP systemctl is not installed"
fi

# The unit's promises (hosttune(8) documents them).
u=$tmp/hosttune-verify.service
for want in 'Type=oneshot' 'RemainAfterExit=yes' 'SuccessExitStatus=3' 'WantedBy=multi-user.target' \
        'ConditionDirectoryNotEmpty=/var/lib/hosttune'; do
        grep -qx "$want" "$u" || fail "unit lacks $want"
done
after=$(sed -n 's/^After=//p' "$u")
for dep in systemd-sysctl.service systemd-tmpfiles-setup.service; do
        case " $after " in *" $dep "*) ;; *) fail "unit is not ordered after $dep" ;; esac
done
pass "the unit's documented settings and ordering"

# Neither oneshot unit may run for ever (issue 32: a FIFO as an Oracle
# parameter file hung verify --boot, the boot and the lock with it): a
# start timeout, long enough for the verify unit's udevadm settle
# (--timeout=120), short of the metrics timer's 15 minutes.
for unit in hosttune-verify.service hosttune-metrics.service; do
        to=$(sed -n 's/^TimeoutStartSec=//p' "$tmp/$unit")
        # (systemd-analyze verify above would have named a bad value)
        [ "$to" = 5min ] || fail "$unit: TimeoutStartSec is '$to', expected 5min"
done
settle=$(sed -n 's/^ExecStartPre=.*udevadm settle --timeout=\([0-9]*\)$/\1/p' "$tmp/hosttune-verify.service")
[ -n "$settle" ] && [ "$settle" -lt 300 ] || fail "udevadm settle's timeout ($settle s) does not fit in TimeoutStartSec=5min"
pass "the verify and metrics units have TimeoutStartSec=5min, more than udevadm settle's ${settle} s"

# A deliberately broken copy must be caught, so the check above means something.
mkdir "$tmp/broken"
sed 's/^RemainAfterExit=yes/RemainAfterExit=perhaps/' "$u" >"$tmp/broken/hosttune-verify.service"
bad=$(cd "$tmp" && systemd-analyze verify --man=no "$tmp/broken/hosttune-verify.service" 2>&1) || :
[ -n "$bad" ] || fail "systemd-analyze verify did not notice a bad value"
pass "systemd-analyze verify notices a bad value"

# tmpfiles: the state directory, root-only.
if command -v systemd-tmpfiles >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        mkdir "$tmp/root"
        systemd-tmpfiles --create --root="$tmp/root" "$top_srcdir/packaging/tmpfiles/hosttune.conf" ||
                fail "systemd-tmpfiles --create failed"
        [ "$(stat -c '%a %U %G %F' "$tmp/root/var/lib/hosttune")" = "700 root root directory" ] ||
                fail "state directory: $(stat -c '%a %U %G %F' "$tmp/root/var/lib/hosttune")"

        # The condition and verify's exit status fit together. A state
        # directory tmpfiles just made is empty: the unit is skipped (verify
        # would say "nothing to verify" and exit 1 there). After an apply and
        # its rollback the journal stays, so the condition holds and the unit
        # runs: verify --boot must then exit with a status the unit counts as
        # success, not fail at every boot.
        pass "systemd-tmpfiles makes the state directory 0700 root:root"
        export HOSTTUNE_NO_AUDIT=1
        h=$tmp/host
        cp -a "$top_srcdir/tests/hosts/debian12-kvm" "$h"
        systemd-tmpfiles --create --root="$h" "$top_srcdir/packaging/tmpfiles/hosttune.conf" ||
                fail "systemd-tmpfiles --create on the fixture failed"
        not_empty() { [ -n "$(ls -A "$h/var/lib/hosttune")" ]; }
        not_empty && fail "a fresh state directory is not empty: the unit would run before any apply"
        pass "a fresh state directory is empty: the unit's condition skips it"
        "$HOSTTUNE" --root "$h" verify --boot >/dev/null 2>&1 && fail "verify with nothing ever applied exits 0"
        P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"
        "$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >/dev/null 2>&1 || fail "apply failed"
        not_empty || fail "the state directory is empty after an apply: the unit would not run"
        "$HOSTTUNE" --root "$h" --quiet rollback >/dev/null 2>&1 || fail "rollback failed"
        not_empty || fail "the state directory is empty after a rollback"
        pass "after apply and rollback the journal stays: the unit's condition holds"
        # as the unit runs it: its textfile, where no node_exporter is
        textfile=$(sed -n 's/^Environment=HOSTTUNE_TEXTFILE=//p' "$u")
        [ "$textfile" = /var/lib/prometheus/node-exporter/hosttune.prom ] || fail "the unit's HOSTTUNE_TEXTFILE: '$textfile'"
        rc=0
        "$HOSTTUNE" --root "$h" verify --boot --textfile "$textfile" >"$tmp/verify.out" 2>&1 || rc=$?
        success=" 0 $(sed -n 's/^SuccessExitStatus=//p' "$u") "
        case $success in *" $rc "*) ;; *) fail "verify --boot after a rollback exits $rc, a failure for the unit: $(cat "$tmp/verify.out")" ;; esac
        [ "$rc" = 0 ] || fail "verify --boot after a rollback: exit $rc, expected 0"
        grep -q '^Status: ok (nothing applied)$' "$tmp/verify.out" ||
                fail "verify --boot after a rollback does not say nothing is applied: $(cat "$tmp/verify.out")"
        pass "verify --boot after a rollback exits 0 and says nothing is applied"
        grep -q "^hosttune: note: not writing $h$textfile: its directory does not exist" "$tmp/verify.out" ||
                fail "verify --boot without node_exporter's directory does not say it writes no textfile: $(cat "$tmp/verify.out")"
        [ ! -e "$h/var/lib/prometheus" ] || fail "verify --boot made node_exporter's directory"
        pass "without node_exporter's directory the unit's verify writes nothing, says so, and still succeeds"
else
        t=$((t + 1)); echo "ok $t - tmpfiles and the unit's condition # SKIP need root and systemd-tmpfiles"
fi
echo "1..$t"
