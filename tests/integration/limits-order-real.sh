#!/bin/sh
# Issue 38: `hosttune explain limits.USER.ITEM` names the limits.conf and
# limits.d lines that set a user's soft and hard limit, in pam_limits'
# order and precedence (a user line beats a group line beats "*", whatever
# the file), and they are the limits pam_limits itself gives: runuser's
# PAM session (session required pam_limits.so) in a private mount
# namespace where the fixture's files are bound over /etc/security (no
# file of the machine is touched; the limits are the session's own).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

# the machine's accounts, so that nobody and nogroup are the ids runuser sees
r=$tmp/root
mkdir -p "$r/etc/security/limits.d"
cp /etc/passwd /etc/group "$r/etc/"
grep -q '^nobody:' "$r/etc/passwd" || skip_all "no user nobody on this machine"
grp=$(id -gn nobody)
printf 'nobody soft nofile 1000\n* hard nofile 5000\n' >"$r/etc/security/limits.conf"
printf 'nobody hard nofile 4000\n@%s soft nofile 2000\n@%s hard nproc 300\n' "$grp" "$grp" >"$r/etc/security/limits.d/10-a.conf"
printf '# Managed by hosttune (profile t).\nnobody soft nofile 3000\n' >"$r/etc/security/limits.d/90-hosttune.conf"
printf '* soft nofile 9000\n* soft nproc 200\n' >"$r/etc/security/limits.d/99-z.conf"
echo 'not read' >"$r/etc/security/limits.d/README"

ht "$r" --json explain limits.nobody.nofile
check "explain limits.nobody.nofile: exit 0" 0 "$rc"
check "explain: pam_limits reads them" pam_limits "$(jq -r .boot.consumer "$tmp/out")"
check "explain: the files in pam_limits' order" \
        "/etc/security/limits.conf /etc/security/limits.d/10-a.conf /etc/security/limits.d/90-hosttune.conf /etc/security/limits.d/99-z.conf" \
        "$(jq -r '.boot.files | join(" ")' "$tmp/out")"
check "explain: the soft winner (the user's line, not the later *)" "/etc/security/limits.d/90-hosttune.conf:2 3000" \
        "$(jq -r '.boot.winners.soft | "\(.file):\(.line) \(.value)"' "$tmp/out")"
check "explain: the hard winner" "/etc/security/limits.d/10-a.conf:1 4000" \
        "$(jq -r '.boot.winners.hard | "\(.file):\(.line) \(.value)"' "$tmp/out")"
ht "$r" --json explain limits.nobody.nproc
check "explain limits.nobody.nproc: the group's hard line, *'s soft line" "300 200" \
        "$(jq -r '"\(.boot.winners.hard.value) \(.boot.winners.soft.value)"' "$tmp/out")"
ht "$r" --color=never explain limits.nobody.nofile
check_contains "explain text: the soft winner marked" "/etc/security/limits.d/90-hosttune.conf:2  nobody soft nofile 3000   <- wins (soft)" "$tmp/out"
ht "$r" explain limits.nosuchuser.nofile
check "explain for a user that does not exist: exit 1" 1 "$rc"
check_contains "... and says so" "user nosuchuser does not exist on this host" "$tmp/err"
ht "$r" explain limits.nobody.bogus
check "explain for an item pam_limits does not know: exit 1" 1 "$rc"

# the real tool: pam_limits in runuser's session
if ! is_root || ! command -v unshare >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1 ||
   ! grep -qs '^session.*pam_limits' /etc/pam.d/runuser; then
        skip "pam_limits' own limits" "needs root, unshare and runuser with pam_limits"
else
        unshare --mount --propagation private sh -c '
                mount --bind "$1/etc/security/limits.conf" /etc/security/limits.conf &&
                mount --bind "$1/etc/security/limits.d" /etc/security/limits.d &&
                runuser -u nobody -- cat /proc/self/limits' sh "$r" >"$tmp/limits" 2>"$tmp/ns.err"
        # "Max open files  SOFT  HARD  files", "Max processes  SOFT  HARD  processes"
        awk '/^Max open files/ { f = $4 " " $5 } /^Max processes/ { p = $3 " " $4 } END { print f " " p }' \
                "$tmp/limits" >"$tmp/theirs"
        ours=$(for i in nofile nproc; do
                "$HOSTTUNE" --root "$r" --json explain "limits.nobody.$i" | jq -r '"\(.boot.winners.soft.value) \(.boot.winners.hard.value)"'
        done | tr '\n' ' ' | sed 's/ $//')
        check "hosttune's winners are the limits pam_limits gives (soft, hard nofile; soft, hard nproc)" \
                "$(cat "$tmp/theirs")" "$ours"
fi

# A value with something after its number: pam_limits reads the number
# (strtoul(), refused only when no digit was read: Linux-PAM's
# modules/pam_limits/pam_limits.c, 0.80 to 1.7.2), so "3000k" is 3000 and
# "0x20" is 0; hosttune said "pam_limits skips that line too" and left
# them out of the winners. Real pam_limits is the judge again.
r2=$tmp/root2
mkdir -p "$r2/etc/security/limits.d"
cp /etc/passwd /etc/group "$r2/etc/"
printf 'nobody soft nofile 3000k\nnobody hard nofile 4000 # the site limit\n' >"$r2/etc/security/limits.conf"
printf 'nobody hard nofile 5000 extra\nnobody soft nproc 0x20\nnobody hard nproc 300procs\n' \
        >"$r2/etc/security/limits.d/10-a.conf"
ht "$r2" --json explain limits.nobody.nofile
check "explain: a value's leading number is what pam_limits reads" "3000 5000" \
        "$(jq -r '"\(.boot.winners.soft.value) \(.boot.winners.hard.value)"' "$tmp/out")"
check_contains "explain: ... and a warning says so" \
        "limits.conf:1: nofile \\\"3000k\\\" is read by pam_limits as 3000, the number it starts with" "$tmp/out"
if ! is_root || ! command -v unshare >/dev/null 2>&1 || ! command -v runuser >/dev/null 2>&1 ||
   ! grep -qs '^session.*pam_limits' /etc/pam.d/runuser; then
        skip "pam_limits' own limits for numbers with a suffix" "needs root, unshare and runuser with pam_limits"
else
        unshare --mount --propagation private sh -c '
                mount --bind "$1/etc/security/limits.conf" /etc/security/limits.conf &&
                mount --bind "$1/etc/security/limits.d" /etc/security/limits.d &&
                runuser -u nobody -- cat /proc/self/limits' sh "$r2" >"$tmp/limits" 2>"$tmp/ns.err"
        awk '/^Max open files/ { f = $4 " " $5 } /^Max processes/ { p = $3 " " $4 } END { print f " " p }' \
                "$tmp/limits" >"$tmp/theirs"
        ours=$(for i in nofile nproc; do
                "$HOSTTUNE" --root "$r2" --json explain "limits.nobody.$i" 2>/dev/null |
                        jq -r '"\(.boot.winners.soft.value) \(.boot.winners.hard.value)"'
        done | tr '\n' ' ' | sed 's/ $//')
        check "hosttune's winners are pam_limits' for 3000k, '5000 extra', 0x20, 300procs" "$(cat "$tmp/theirs")" "$ours"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
