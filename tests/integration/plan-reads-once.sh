#!/bin/sh
# A plan reads each host file at most once (issue 34): the facts, the
# backends and the editors parse the same files (/etc/default/grub,
# /etc/passwd, /proc/cmdline, THP's enabled), and the root context's
# per-plan cache serves the second reader. Counted with strace: every
# open of a file for reading (not an O_PATH probe, not a directory
# listing) under the fixture root, per path as asked (the directory fd's
# path and the name opened below it), on the example host and on the
# bare-metal fixture whose devices' files are opened below their sysfs
# directories. Also the system calls of the example host's plan, against
# the count BENCHMARKS.md gives (a regression guard, not a timing).
. "${top_srcdir:-.}/tests/integration/lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1
command -v strace >/dev/null 2>&1 || skip_all "strace is not installed (scripts/deps.sh --ci installs it)"
strace -f -o /dev/null true 2>/dev/null || skip_all "strace cannot trace here (ptrace refused)"
# the binary itself: strace of a wrapper (tests/json/capture, valgrind)
# would count the wrapper's opens
bin=$top_builddir/hosttune
[ -x "$bin" ] || skip_all "$bin not built"

# opens ROOT ARGS...: "COUNT PATH" for every file under ROOT opened for
# reading more than once by hosttune ARGS
opens() {
        oroot=$(cd "$1" && pwd -P)
        shift
        strace -f -y -qq -e trace=openat,openat2 -o "$tmp/trace" "$bin" "$@" >/dev/null 2>&1
        awk -v root="$oroot/" '
                / = -1 / || /O_PATH/ || /O_DIRECTORY/ { next }
                {
                        # openat(3</dir>, "name", ...) or openat2(3</dir>, "name", {...})
                        if (!match($0, /\(([0-9]+<[^>]*>|AT_FDCWD<[^>]*>), "[^"]*"/)) next
                        s = substr($0, RSTART + 1, RLENGTH - 1)
                        d = s; sub(/^[^<]*</, "", d); sub(/>, ".*$/, "", d)
                        f = s; sub(/^.*, "/, "", f); sub(/"$/, "", f)
                        p = (f ~ /^\//) ? f : d "/" f
                        if (index(p, root) != 1) next
                        n[substr(p, length(root))]++
                }
                END { for (p in n) if (n[p] > 1) print n[p], p }' "$tmp/trace" | sort -rn
}

kvm=$HOSTS/debian12-kvm
opens "$kvm" --root "$kvm" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" \
        plan oracle --set sga_max_size=4G >"$tmp/twice"
if [ -s "$tmp/twice" ]; then
        not_ok "example host: plan oracle opens host files more than once: $(tr '\n' ';' <"$tmp/twice")"
else
        # the trace was read: the files plan must read are in it
        if grep -q 'etc/default/grub"' "$tmp/trace" && grep -q 'etc/passwd"' "$tmp/trace"; then
                ok "example host: plan oracle reads each host file once (/etc/default/grub, /etc/passwd among them)"
        else
                not_ok "example host: the trace lacks /etc/default/grub or /etc/passwd: $(head -c 400 "$tmp/trace")"
        fi
fi

bm=$HOSTS/baremetal-numa
opens "$bm" --root "$bm" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" plan oracle >"$tmp/twice"
if [ -s "$tmp/twice" ]; then
        not_ok "bare metal: plan oracle opens host files more than once: $(tr '\n' ';' <"$tmp/twice")"
elif grep -q '"queue/rotational"' "$tmp/trace"; then
        ok "bare metal: each file once, the devices' queue files opened below their directories"
else
        not_ok "bare metal: queue/rotational not opened below a device directory: $(grep rotational "$tmp/trace" | head -3)"
fi

# System calls of the example host's plan: 489 before issue 34, 411
# after (BENCHMARKS.md); a change that adds more than a few fails here.
strace -f -qq -o "$tmp/all" "$bin" --root "$kvm" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" \
        plan oracle --set sga_max_size=4G >/dev/null 2>&1
calls=$(grep -cv -e '+++ exited' -e '--- SIG' "$tmp/all")
if [ "$calls" -le 430 ]; then ok "example host: plan oracle makes $calls system calls (at most 430)"
else not_ok "example host: plan oracle makes $calls system calls, more than 430 (BENCHMARKS.md: 411)"; fi
# no read(2) of 0 bytes only to see the end of a file the rules say ends
# at a short read (/proc/filesystems is libselinux's, through libmount)
eofs=$(grep -c 'read(.*, "", [0-9]*) *= 0$' "$tmp/all")
if [ "$eofs" -le 1 ]; then ok "example host: $eofs read(2) only to confirm the end of a file (at most 1)"
else not_ok "example host: $eofs reads of 0 bytes: $(grep 'read(.*= 0$' "$tmp/all" | head -3)"; fi

echo "1..$n"
[ "$failed" -eq 0 ]
