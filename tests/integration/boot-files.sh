#!/bin/sh
# Fast checks of the files the real-boot test depends on, so they cannot
# rot between runs of the slow `make check-boot`:
#  - packaging/systemd/hosttune-verify.service passes `systemd-analyze
#    verify` (with ExecStart pointed at the built binary) and keeps its
#    contract (oneshot, after sysctl and tmpfiles, verify --boot, exit 3
#    is success, wanted by multi-user.target);
#  - every script under tests/boot parses (sh -n / bash -n).
set -u
: "${top_srcdir:?}" "${HOSTTUNE:?}"
UNIT=$top_srcdir/packaging/systemd/hosttune-verify.service
fails=0
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; fails=$((fails + 1)); }

has() { # DIRECTIVE=VALUE-REGEX
        if grep -Eq "^$1\$" "$UNIT"; then ok "unit has $1"; else not_ok "unit lacks $1"; fi
}
has 'Type=oneshot'
has 'After=.*systemd-sysctl\.service.*'
has 'After=.*systemd-tmpfiles-setup\.service.*'
has 'ExecStart=/usr/sbin/hosttune verify --boot'
has 'SuccessExitStatus=3'
has 'WantedBy=multi-user\.target'

if command -v systemd-analyze >/dev/null 2>&1; then
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
        sed "s|^ExecStart=/usr/sbin/hosttune|ExecStart=$HOSTTUNE|" "$UNIT" >"$tmp/hosttune-verify.service"
        if systemd-analyze verify --man=no "$tmp/hosttune-verify.service" >"$tmp/out" 2>&1; then
                ok "systemd-analyze verify"
        else
                not_ok "systemd-analyze verify: $(cat "$tmp/out")"
        fi
        # The check is real: a unit whose command is missing fails it.
        mkdir "$tmp/bad"
        sed "s|^ExecStart=.*|ExecStart=$tmp/no-such-binary verify --boot|" "$UNIT" >"$tmp/bad/hosttune-verify.service"
        if systemd-analyze verify --man=no "$tmp/bad/hosttune-verify.service" >/dev/null 2>&1; then
                not_ok "systemd-analyze verify accepts a unit with a missing ExecStart"
        else
                ok "systemd-analyze verify refuses a unit with a missing ExecStart"
        fi
else
        echo "ok - # SKIP systemd-analyze not installed"
fi

for f in "$top_srcdir"/tests/boot/*.sh; do
        if bash -n "$f"; then ok "bash -n ${f##*/}"; else not_ok "bash -n ${f##*/}"; fi
done
for f in "$top_srcdir"/tests/boot/guest/harness.sh "$top_srcdir"/tests/boot/scenarios/lib.sh \
        "$top_srcdir"/tests/boot/scenarios/*/*.sh "$top_srcdir"/tests/boot/scenarios/infra/hosttune-standin; do
        if sh -n "$f"; then ok "sh -n ${f#"$top_srcdir"/tests/boot/}"; else not_ok "sh -n ${f#"$top_srcdir"/tests/boot/}"; fi
done
[ "$fails" = 0 ]
