#!/bin/sh
# What apply's durable writes cost (issue 34): for `apply oracle --set
# sga_max_size=2G`, its rollback and the recovery of a crashed apply
# (killed at apply-commit, recovered by `status`), on copies of the
# example host (tests/hosts/debian12-kvm) and of baremetal-numa (64 block
# devices): fsyncs (fsync, fdatasync, syncfs), renames and bytes written
# to files, from `strace -f -y`, and instructions from callgrind; against
# the least a crash-safe transaction needs (docs/DESIGN.md, "Durability").
# Then apply's wall time with every fsync delayed by 10 ms (an LD_PRELOAD
# shim this script builds from slow-fsync.c) and with fsync disabled (the
# same shim, HT_FSYNC_SKIP=1), median of 7 runs each, on copies in
# /dev/shm (so the delay is all an fsync costs); the same for the
# rollback of that apply.
#
# Usage: sh tests/bench/durability.sh [NEW [OLD]]   (default ./hosttune;
# OLD: a hosttune built from before the change, for the "before" rows)
# Output: tests/bench/results/durability.txt. Needs strace, valgrind, cc.
# Counts do not depend on the machine's load; wall times do (the load is
# printed with them).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
new=${1:-$top/hosttune}
old=${2:-}
results=$top/tests/bench/results
mkdir -p "$results"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ht-durability.XXXXXX")
wdir=
trap 'rm -rf "$tmp" ${wdir:+"$wdir"}' EXIT INT TERM
cc -O2 -shared -fPIC -o "$tmp/slow-fsync.so" "$top/tests/bench/slow-fsync.c" -ldl
export HOSTTUNE_NO_AUDIT=1
# the fixture copies have a /proc and a /sys: a live host, as the tests
# treat them (tests/integration/lib.sh), not an image (issue 32)
export HOSTTUNE_TEST_LIVE_FIXTURES=1
unset HOSTTUNE_FAULT_AFTER HOSTTUNE_FAULT_TRACE 2>/dev/null || true
SET="--set sga_max_size=2G"

copy() { # NAME DIR: a fixture copy ready for apply
        rm -rf "$2"
        cp -a "$top/tests/hosts/$1" "$2"
        chmod -R u+rwX,go+rX,go-w "$2"
        mkdir -p "$2/run" "$2/var/lib"
}
ht() { # BIN ROOT ARGS...
        b=$1 r=$2
        shift 2
        "$b" --root "$r" --profile-path "$top/profiles" --rules-path "$top/rules" "$@"
}
# counts TRACE: "fsyncs renames bytes flushes-in-a-row" (a flush waited
# for: a run of fsyncs with no other traced call of the main thread
# between them, as tests/integration/durable-writes-count.sh counts)
counts() {
        f=$(grep -cE '^[0-9]+ +(fsync|fdatasync|syncfs)\(' "$1" || true)
        n=$(grep -cE '^[0-9]+ +rename(at2?)?\(' "$1" || true)
        b=$(grep -E '^[0-9]+ +p?write(64)?\([0-9]+</' "$1" | sed -n 's/.*= \([0-9]*\)$/\1/p' |
                awk '{ s += $1 } END { print s + 0 }')
        w=$(awk 'NR == 1 { main = $1 }
                /^[0-9]+ +(fsync|fdatasync|syncfs)\(/ || /^[0-9]+ +<\.\.\. (fsync|fdatasync|syncfs) resumed>/ { if (!inp) { k++; inp = 1 }; next }
                $1 == main && !/exited|killed|\+\+\+|---/ { inp = 0 }
                END { print k + 0 }' "$1")
        echo "$f $n $b $w"
}
traced() { # TRACE BIN ROOT ARGS...
        t=$1 b=$2 r=$3
        shift 3
        strace -f -y -qq -o "$t" -e trace=fsync,fdatasync,syncfs,rename,renameat,renameat2,write,pwrite64,openat,unlinkat,mkdirat \
                "$b" --root "$r" --profile-path "$top/profiles" --rules-path "$top/rules" "$@" >/dev/null 2>&1 || true
}
instr() { # BIN ROOT ARGS...: instructions (callgrind's total)
        b=$1 r=$2
        shift 2
        valgrind --tool=callgrind --callgrind-out-file=/dev/null \
                "$b" --root "$r" --profile-path "$top/profiles" --rules-path "$top/rules" "$@" 2>&1 >/dev/null |
                sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -n 1
}
files_of() { # ROOT: file items of the newest transaction
        m=$(ls -d "$1"/var/lib/hosttune/journal/2*/manifest.json | sort | tail -n 1)
        grep -cE '"kind": ?"file"' "$m" || true
}

measure() { # LABEL BIN HOST
        label=$1 bin=$2 host=$3 w=$tmp/w
        mkdir -p "$w"
        # apply
        copy "$host" "$w/a"
        traced "$tmp/t-apply" "$bin" "$w/a" apply oracle $SET
        F=$(files_of "$w/a")
        set -- $(counts "$tmp/t-apply")
        copy "$host" "$w/ai"
        i=$(instr "$bin" "$w/ai" apply oracle $SET)
        printf '%s\t%s\tapply\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\n' "$label" "$host" "$F" "$1" "$2" "$4" "$3" "$i" \
                $((3 * F + 4)) $((F + 2))
        # rollback of that apply
        cp -a "$w/a" "$w/r"
        traced "$tmp/t-rb" "$bin" "$w/r" rollback
        set -- $(counts "$tmp/t-rb")
        i=$(instr "$bin" "$w/ai" rollback)
        printf '%s\t%s\trollback\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\n' "$label" "$host" "$F" "$1" "$2" "$4" "$3" "$i" \
                $((3 * F + 6)) $((F + 3))
        # recovery of an apply killed once every change was made
        copy "$host" "$w/c"
        HOSTTUNE_FAULT_AFTER=apply-commit ht "$bin" "$w/c" apply oracle $SET >/dev/null 2>&1 || true
        cp -a "$w/c" "$w/ci"
        traced "$tmp/t-rec" "$bin" "$w/c" status
        set -- $(counts "$tmp/t-rec")
        i=$(instr "$bin" "$w/ci" status)
        printf '%s\t%s\trecovery\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\n' "$label" "$host" "$F" "$1" "$2" "$4" "$3" "$i" \
                $((2 * F + 2)) $((F + 1))
        rm -rf "$w"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
# The copies of the timed applies live in memory (/dev/shm, when there is
# one): the real flush then costs nothing and the shim's delay is the whole
# price of an fsync, whatever this machine's disk is doing.
wdir=$tmp
if [ -d /dev/shm ] && [ -w /dev/shm ]; then wdir=$(mktemp -d /dev/shm/ht-durability.XXXXXX); fi
wall() { # BIN OP ENV...: median wall ms of 7 applies (OP apply) or
        # rollbacks of an apply (OP rollback) on fresh copies
        bin=$1 op=$2
        shift 2
        for k in 1 2 3 4 5 6 7; do
                copy debian12-kvm "$wdir/s"
                [ "$op" = apply ] || ht "$bin" "$wdir/s" apply oracle $SET >/dev/null 2>&1 || true
                t0=$(date +%s%N)
                env LD_PRELOAD="$tmp/slow-fsync.so" "$@" "$bin" --root "$wdir/s" --profile-path "$top/profiles" \
                        --rules-path "$top/rules" $([ "$op" = apply ] && echo apply oracle $SET || echo rollback) \
                        >/dev/null 2>&1 || true
                t1=$(date +%s%N)
                echo $(((t1 - t0) / 1000000))
        done | median
}

{
        echo "# durability: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
        printf 'binary\thost\top\tfiles\tfsyncs\trenames\tin a row\tbytes\tinstructions\tminimum fsyncs/renames\n'
        for host in debian12-kvm baremetal-numa; do
                [ -z "$old" ] || measure before "$old" "$host"
                measure after "$new" "$host"
        done
        echo
        echo "# apply oracle on debian12-kvm and its rollback, wall ms, median of 7 (load $(cut -d' ' -f1-3 /proc/loadavg))"
        printf 'binary\top\tfsync +10ms\tfsync disabled\tratio\n'
        for op in apply rollback; do
                for b in ${old:+before:$old} after:$new; do
                        slow=$(wall "${b#*:}" $op HT_FSYNC_DELAY_MS=10)
                        none=$(wall "${b#*:}" $op HT_FSYNC_SKIP=1)
                        printf '%s\t%s\t%s\t%s\t%s\n' "${b%%:*}" $op "$slow" "$none" \
                                "$(awk -v a="$slow" -v b="$none" 'BEGIN { printf "%.1f", a / b }')"
                done
        done
        echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$results/durability.txt"
