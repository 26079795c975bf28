#!/bin/sh
# Multi-field sysctl values on the real kernel (audit-sysctl): kernel.sem
# (4 fields), net.ipv4.ip_local_port_range (a range: its ends are
# minimums each, hosttune's reading of Oracle's guide), net.ipv4.tcp_rmem
# and tcp_wmem (3 fields), all printed by the kernel with tabs. Minimums
# from the host's own values: one field a key short of them, the others
# below what the host has. apply raises only the short field, lowers none,
# verify is ok, rollback gives back the kernel's exact text (od -c, tabs
# and all). Root only; confined (real-host-lib.sh); whatever happens the
# saved values are written back (trap).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
. "$top_srcdir/tests/integration/real-host-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "not root"
real_host_lock
confine_ok || skip_all "no private mount namespace here (unshare -m, mount --bind): cannot confine hosttune"
keys="kernel/sem net/ipv4/ip_local_port_range net/ipv4/tcp_rmem net/ipv4/tcp_wmem"
for k in $keys; do [ -w "/proc/sys/$k" ] || skip_all "/proc/sys/$k is not writable here"; done
for k in $keys; do cp "/proc/sys/$k" "$tmp/$(echo "$k" | tr / _).0"; done
# a no-op write tells whether /proc/sys takes writes (read-only in containers)
cat "$tmp/kernel_sem.0" 2>/dev/null >/proc/sys/kernel/sem || skip_all "/proc/sys is read-only"
restore() {
        for k in $keys; do cat "$tmp/$(echo "$k" | tr / _).0" >"/proc/sys/$k" 2>/dev/null; done
        rm -rf "$tmp"
}
trap restore EXIT
trap 'restore; exit 1' INT TERM
CROOT=$tmp/root
mkconfined_root "$CROOT"

set -- $(cat /proc/sys/kernel/sem)
sem0="$1 $2 $3 $4"
# SEMMNI one more (at most IPCMNI, 32768), the other three halved: below the host's
semmni=$(($4 < 32768 ? $4 + 1 : $4 - 1))
[ "$semmni" -gt "$4" ] || skip_all "kernel.sem's SEMMNI is at its maximum already"
sem_min="$(($1 / 2)) $(($2 / 2)) $(($3 / 2)) $semmni" sem1="$1 $2 $3 $semmni"
set -- $(cat /proc/sys/net/ipv4/ip_local_port_range)
# the low end below the host's (kept), the high end one more (raised)
[ "$2" -lt 65535 ] || skip_all "ip_local_port_range ends at 65535 already"
pr_min="$(($1 - 1)) $(($2 + 1))" pr1="$1 $(($2 + 1))"
set -- $(cat /proc/sys/net/ipv4/tcp_rmem)
rmem_min="$(($1 / 2)) $(($2 + 4096)) $(($3 / 2))" rmem1="$1 $(($2 + 4096)) $3"
set -- $(cat /proc/sys/net/ipv4/tcp_wmem)
wmem_min="$(($1 + 4096)) $(($2 / 2)) $(($3 / 2))" wmem1="$(($1 + 4096)) $2 $3"
PROFILES=$tmp/profiles
mkdir -p "$PROFILES"
cat >"$PROFILES/fields.profile" <<EOF
summary = "hosttune real-host test: multi-field sysctl minimums";
sysctl = {
        kernel = { sem = { value = "$sem_min"; bound = "at-least"; }; };
        net = { ipv4 = {
                ip_local_port_range = { value = "$pr_min"; bound = "at-least"; };
                tcp_rmem = { value = "$rmem_min"; bound = "at-least"; };
                tcp_wmem = { value = "$wmem_min"; bound = "at-least"; };
        }; };
};
EOF
host_files >"$tmp/host.before"
hc 0 "apply the minimums" apply fields
now() { tr '\t' ' ' <"/proc/sys/$1"; }
check "kernel.sem: SEMMNI raised, the other fields kept (above their minimums)" "$sem1" "$(now kernel/sem)"
check "port range: the low end kept, the high end raised" "$pr1" "$(now net/ipv4/ip_local_port_range)"
check "tcp_rmem: the default raised, min and max kept" "$rmem1" "$(now net/ipv4/tcp_rmem)"
check "tcp_wmem: the min raised, default and max kept" "$wmem1" "$(now net/ipv4/tcp_wmem)"
check "the drop-in persists what the kernel now has, field by field" "kernel.sem = $sem1
net.ipv4.ip_local_port_range = $pr1
net.ipv4.tcp_rmem = $rmem1
net.ipv4.tcp_wmem = $wmem1" "$(grep -v '^#' "$CROOT/etc/sysctl.d/90-hosttune.conf")"
hc 0 "verify" verify
hc 0 "apply again: nothing to do" apply fields
hc 0 "rollback" rollback
for k in $keys; do
        check "$k: the kernel's exact text back (tabs and all)" "$(od -c "$tmp/$(echo "$k" | tr / _).0")" \
                "$(od -c "/proc/sys/$k")"
done
host_files >"$tmp/host.after"
check "the machine's own files untouched" "$(cat "$tmp/host.before")" "$(cat "$tmp/host.after")"
finish
