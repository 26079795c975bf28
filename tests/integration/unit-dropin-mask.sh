#!/bin/sh
# A unit drop-in masked by a link to /dev/null in /etc hides the drop-in
# of that name in /run and /usr/lib (systemd.unit(5); `systemd-analyze
# cat-config --root=ROOT systemd/system/foo.service` on systemd 252 lists
# the /etc link, not the /usr/lib file). hosttune read the link as a
# missing file when the tree has no /dev (an image, --root), so the
# masked /usr/lib drop-in's LimitNOFILE=1024 won over the unit's 4096.
# The same tree also gets a foo-.service.d prefix drop-in, and a
# service.d type drop-in, each in /usr/lib under a name /run overrides.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"

R=$(copy_host debian12-kvm); scratch "$R"
rm -rf "$R/dev"
U=$R/usr/lib/systemd/system
mkdir -p "$U/foo-bar.service.d" "$U/foo-.service.d" "$U/service.d" "$R/etc/systemd/system/foo-bar.service.d" \
        "$R/run/systemd/system/foo-.service.d"
printf '[Service]\nExecStart=/bin/true\nLimitNOFILE=4096\nLimitNPROC=100\nLimitMEMLOCK=64K\n' >"$U/foo-bar.service"
printf '[Service]\nLimitNOFILE=1024\n' >"$U/foo-bar.service.d/50-limits.conf"
ln -s /dev/null "$R/etc/systemd/system/foo-bar.service.d/50-limits.conf"
# the prefix drop-in: /run's 60-nproc.conf hides /usr/lib's
printf '[Service]\nLimitNPROC=200\n' >"$U/foo-.service.d/60-nproc.conf"
printf '[Service]\nLimitNPROC=300\n' >"$R/run/systemd/system/foo-.service.d/60-nproc.conf"
# the type's drop-in, read last by name order (z after 6)
printf '[Service]\nLimitMEMLOCK=1M\n' >"$U/service.d/zz-memlock.conf"

explain() { "$HOSTTUNE" --root "$R" explain "unit.foo-bar.$1" >"$tmp/out" 2>&1; }
explain LimitNOFILE
check_contains "masked /usr/lib drop-in: the unit's own 4096 is in effect" \
        "in effect:  4096 (/usr/lib/systemd/system/foo-bar.service:3)" "$tmp/out"
check_contains "masked /usr/lib drop-in: named as hidden" \
        "/usr/lib/systemd/system/foo-bar.service.d/50-limits.conf is hidden" "$tmp/out"
explain LimitNPROC
check_contains "foo-.service.d: /run's drop-in hides /usr/lib's of that name" \
        "in effect:  300 (/run/systemd/system/foo-.service.d/60-nproc.conf:2)" "$tmp/out"
explain LimitMEMLOCK
check_contains "service.d: the type's drop-in applies" \
        "in effect:  1M (/usr/lib/systemd/system/service.d/zz-memlock.conf:2)" "$tmp/out"
finish
