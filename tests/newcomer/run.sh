#!/bin/sh
# tests/newcomer/run.sh: README's two commands on a machine that never saw
# the project. Builds a Debian 12 minbase root with mmdebstrap (the
# smallest Debian 12 there is: README's download sizes are measured in
# one), clones this tree's HEAD into it (/root/hosttune: committed work
# only), and runs, as root inside it and exactly as README gives them,
#
#     sh scripts/example.sh
#     sh scripts/test.sh
#
# then prints each command's time and the suite's counts, and every check
# that skipped with its reason. Exit status: that of the first command
# that failed, else 0.
#
# Needs root, mmdebstrap (installed here when missing), network access to
# Debian's mirror (about 470 packages, 467 MB, through apt), several GB in
# /var/tmp and the better part of an hour. Not run by .ci/run (it would
# take CI past its time): run it after changing scripts/, README's
# commands or what a test needs from the machine.
#
# Inside the root, itself a mount point (bound onto itself) as a
# machine's / is: /proc, /sys and /dev are the machine's (the suite's
# real-host tests read and write the real kernel, as on any machine, and
# restore it), mounted in a private mount namespace that ends with the
# run. The host's real-host test lock (HT_REAL_HOST_LOCK, default
# /tmp/hosttune-real-host-tests.lock) is bound to the root's, so a suite
# running on the host and this one never change the kernel at once.
#
# HT_NEWCOMER_MIRROR: the Debian mirror (default: the one this machine's apt
# uses, from /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list).
# HT_NEWCOMER_DIR: where the root is made (default /var/tmp).
# HT_NEWCOMER_KEEP=1: keep the root afterwards (its path is printed).
# HT_NEWCOMER_SUITE_LOCK=FILE: hold this lock (flock) around the second
# command, so its suite never runs beside another one that takes it (a
# shared machine).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "newcomer: run as root (mmdebstrap, chroot)" >&2; exit 2; }
if ! command -v mmdebstrap >/dev/null 2>&1; then
        echo "newcomer: installing mmdebstrap"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
fi
# the machine's own Debian mirror, as apt is set up here: deb822 first
machine_mirror() {
        sed -n '/^Types:.*deb/,/^$/ s/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1 | grep . ||
                sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n 1
}
mirror=${HT_NEWCOMER_MIRROR:-$(machine_mirror)}
[ -n "$mirror" ] || { echo "newcomer: no Debian mirror in this machine's apt sources; set HT_NEWCOMER_MIRROR" >&2; exit 2; }
lock=${HT_REAL_HOST_LOCK:-/tmp/hosttune-real-host-tests.lock}
( umask 0; : >>"$lock" )

work=$(mktemp -d "${HT_NEWCOMER_DIR:-/var/tmp}/hosttune-newcomer.XXXXXX")
root=$work/root
cleanup() {
        if [ "${HT_NEWCOMER_KEEP:-0}" = 1 ]; then
                echo "newcomer: root kept in $root"
        else
                rm -rf "$work"
        fi
}
trap cleanup EXIT

t0=$(date +%s)
echo "newcomer: mmdebstrap --variant=minbase bookworm $root $mirror"
mmdebstrap --quiet --variant=minbase bookworm "$root" "$mirror"
t1=$(date +%s)
echo "newcomer: the root: $(chroot "$root" dpkg-query -W | wc -l) packages, $((t1 - t0)) s"
# what a machine has that mmdebstrap leaves out: the name server
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$top" "$root/root/hosttune"
echo "newcomer: cloned $(git -C "$top" rev-parse --short HEAD) into /root/hosttune"
: >"$root/tmp/hosttune-real-host-tests.lock"

# Each README command in the root, as a root login shell would run it:
# a clean environment, the C locale a minbase root has.
cat >"$work/in-root.sh" <<'SH'
set -u
root=$1 lock=$2 cmd=$3
# a machine's / is a mount point: hosttune takes a chroot into a plain
# directory with the machine's /proc for an offline image (and reads
# nothing of the kernel), which a newcomer's machine is not
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount --bind "$lock" "$root/tmp/hosttune-real-host-tests.lock"
exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        sh -c "cd /root/hosttune && $cmd"
SH
status=0
for cmd in "sh scripts/example.sh" "sh scripts/test.sh"; do
        s=$(date +%s)
        echo "newcomer: # $cmd"
        rc=0
        case $cmd in
        *test.sh) set -- ${HT_NEWCOMER_SUITE_LOCK:+flock "$HT_NEWCOMER_SUITE_LOCK"} ;;
        *) set -- ;;
        esac
        "$@" unshare -m --propagation private sh "$work/in-root.sh" "$root" "$lock" "$cmd" || rc=$?
        echo "newcomer: $cmd: exit $rc, $(( $(date +%s) - s )) s"
        [ "$rc" -eq 0 ] || { [ "$status" -ne 0 ] || status=$rc; }
        [ "$rc" -eq 0 ] || break
done

log=$root/root/hosttune/test-suite.log
if [ -f "$log" ]; then
        echo "newcomer: $(sed -n 's/^# \(TOTAL\|PASS\|SKIP\|XFAIL\|FAIL\|XPASS\|ERROR\): *\(.*\)/\1 \2/p' "$log" | tr '\n' ' ')"
        echo "newcomer: the skipped checks, each with its reason:"
        find "$root/root/hosttune/tests" -name '*.log' ! -name test-suite.log -exec grep -h '^SKIP: ' {} + | sort || :
fi
echo "newcomer: $(( $(date +%s) - t0 )) s in all"
exit "$status"
