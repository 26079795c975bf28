#!/bin/sh
# Issue 38: sysfs values persisted in tmpfiles.d. systemd-tmpfiles reads
# the *.conf files of /etc, /run, /usr/local/lib and /usr/lib/tmpfiles.d
# by name (a same-named file earlier hiding a later one, a link to
# /dev/null masking it) and, unlike sysctl.d, keeps the FIRST "w" line for
# a path: a later one with another value is a "Duplicate line", ignored.
# So a vendor's 00-thp.conf beats hosttune's hosttune.conf. plan warns
# about it, naming the file and line; `explain /sys/PATH` lists the lines
# and the winner, compared with what systemd-tmpfiles --root=DIR --create
# itself writes into the fixture (no privilege, nothing of the machine).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
thp=/sys/kernel/mm/transparent_hugepage

h=$(prepare_host ol8-bls); scratch "$h"
mkdir -p "$h/usr/lib/tmpfiles.d"
printf 'w %s/enabled - - - - always\n' "$thp" >"$h/usr/lib/tmpfiles.d/00-thp.conf"
htrun 2 "plan mysql with a vendor's 00-thp.conf" "$h" --color=never plan mysql
check_contains "plan: the line that wins at boot, and why" \
        "warning: $h/usr/lib/tmpfiles.d/00-thp.conf:1 writes $thp/enabled = always and is read before /etc/tmpfiles.d/hosttune.conf: systemd-tmpfiles ignores the later line for the same path, so at boot $thp/enabled will be always, not never" "$tmp/out"
# masked by a link of the same name in /etc: no warning
ln -s /dev/null "$h/etc/tmpfiles.d/00-thp.conf" 2>/dev/null || { mkdir -p "$h/etc/tmpfiles.d"; ln -s /dev/null "$h/etc/tmpfiles.d/00-thp.conf"; }
htrun 2 "plan mysql with 00-thp.conf masked" "$h" --color=never plan mysql
check "plan: a masked file warns nothing" 0 "$(grep -c '00-thp.conf' "$tmp/out")"

# --- the fixture both read -------------------------------------------------
r=$tmp/root
mkdir -p "$r/etc/tmpfiles.d" "$r/run/tmpfiles.d" "$r/usr/local/lib/tmpfiles.d" "$r/usr/lib/tmpfiles.d" "$r$thp" \
        "$r/sys/block/sda/queue"
printf 'w %s/defrag - - - - defer\n' "$thp" >"$r/usr/lib/tmpfiles.d/10-vendor.conf"
printf 'w %s/enabled - - - - always\n' "$thp" >"$r/usr/lib/tmpfiles.d/50-masked.conf"
ln -s /dev/null "$r/etc/tmpfiles.d/50-masked.conf"
printf 'w /sys/block/sda/queue/read_ahead_kb - - - - 512\n' >"$r/usr/lib/tmpfiles.d/60-over.conf"
printf 'w /sys/block/sda/queue/read_ahead_kb - - - - 1024\n' >"$r/run/tmpfiles.d/60-over.conf"
printf 'w %s/defrag - - - - madvise\n' "$thp" >"$r/usr/local/lib/tmpfiles.d/70-local.conf"
printf '# Managed by hosttune (profile t).\nw %s/enabled - - - - never\nw %s/defrag - - - - never\n' "$thp" "$thp" \
        >"$r/etc/tmpfiles.d/hosttune.conf"
printf 'w %s/enabled - - - - madvise\n' "$thp" >"$r/etc/tmpfiles.d/zz.conf"
attrs="$thp/enabled $thp/defrag /sys/block/sda/queue/read_ahead_kb"
# empty: "w" writes without truncating
for a in $attrs; do : >"$r$a"; done
: >"$tmp/ours"
for a in $attrs; do
        ht "$r" --json explain "$a"
        printf '%s %s\n' "$a" "$(jq -r '.boot.winner.value // "unset"' "$tmp/out")" >>"$tmp/ours"
done
check "explain: the hand-worked winners (the first line for a path)" "$thp/enabled never
$thp/defrag defer
/sys/block/sda/queue/read_ahead_kb 1024" "$(cat "$tmp/ours")"
ht "$r" --json explain "$thp/enabled"
check "explain: systemd-tmpfiles reads them; the masked name" "systemd-tmpfiles /etc/tmpfiles.d/50-masked.conf" \
        "$(jq -r '"\(.boot.consumer) \(.boot.masked | join(" "))"' "$tmp/out")"
check "explain: every line for the path, in order" "/etc/tmpfiles.d/hosttune.conf:2=never /etc/tmpfiles.d/zz.conf:1=madvise" \
        "$(jq -r '[.boot.assignments[] | "\(.file):\(.line)=\(.value)"] | join(" ")' "$tmp/out")"
ht "$r" explain /sys/../etc/shadow
check "explain: a path out of /sys is refused" 1 "$rc"

# the real tool, on the same fixture
if command -v systemd-tmpfiles >/dev/null 2>&1; then
        systemd-tmpfiles --root="$r" --create >"$tmp/st.out" 2>&1
        : >"$tmp/theirs"
        for a in $attrs; do printf '%s %s\n' "$a" "$(cat "$r$a")" >>"$tmp/theirs"; done
        check "each attribute: hosttune's winner is what systemd-tmpfiles writes" "$(cat "$tmp/theirs")" "$(cat "$tmp/ours")"
        check_contains "systemd-tmpfiles says it ignored the later lines" "Duplicate line for path" "$tmp/st.out"
else
        skip "systemd-tmpfiles --root --create" "systemd-tmpfiles is not installed"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
