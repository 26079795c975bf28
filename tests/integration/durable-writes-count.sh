#!/bin/sh
# Durable writes stay at the documented count (issue 34): on a copy of
# the example host, `apply oracle --set sga_max_size=2G`, its rollback,
# and the recovery of an apply killed at apply-commit (by `status`) make
# exactly the fsyncs, renames and flushes waited for in a row that
# docs/DESIGN.md ("Durability") lists for them, counted with strace
# (fsync, fdatasync, syncfs; rename, renameat, renameat2), not timed. A
# change that adds one fails here and has to explain it there; one that
# saves one updates the table.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v strace >/dev/null 2>&1 || skip_all "strace is not installed"
SET="--set sga_max_size=2G"
design=$top_srcdir/docs/DESIGN.md

documented() { # fsyncs, renames and flushes waited for in a row (the 5th column's number)
        sed -n "s/^| $1 | \([0-9]*\) | \([0-9]*\) | [^|]* | \([0-9]*\).*/\1 \2 \3/p" "$design" | head -n 1
}
# flushes waited for in a row: the runs of fsyncs (issued at once on
# threads, or alone) with no other system call of the main thread between
# them; each run is one wait for the disk, whatever its number of fsyncs
in_a_row() {
        awk 'NR == 1 { main = $1 }
        /^[0-9]+ +(fsync|fdatasync|syncfs)\(/ || /^[0-9]+ +<\.\.\. (fsync|fdatasync|syncfs) resumed>/ { if (!inp) { n++; inp = 1 }; next }
        $1 == main && !/exited|killed|\+\+\+|---/ { inp = 0 }
        END { print n + 0 }' "$1"
}
counted() {
        f=$(grep -cE '^[0-9]+ +(fsync|fdatasync|syncfs)\(' "$1")
        r=$(grep -cE '^[0-9]+ +rename(at2?)?\(' "$1")
        echo "$f $r $(in_a_row "$1")"
}
traced() { # TRACE ROOT ARGS...
        t=$1 root=$2
        shift 2
        # the binary itself, not a wrapper (LeakSanitizer refuses ptrace)
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$t" \
                -e trace=fsync,fdatasync,syncfs,rename,renameat,renameat2,write,openat,unlinkat,mkdirat \
                "$top_builddir/hosttune" --root "$root" --profile-path "$PROFILES" --rules-path "$RULES" "$@" \
                >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
compare() { # OP TRACE
        want=$(documented "$1")
        got=$(counted "$2")
        if [ -z "$want" ]; then not_ok "$1: no row '| $1 | FSYNCS | RENAMES | MINIMUM | IN A ROW' in docs/DESIGN.md"
        elif [ "$want" = "$got" ]; then ok "$1: $got fsyncs, renames and flushes in a row, as documented"
        else not_ok "$1: fsyncs renames in-a-row [$got], docs/DESIGN.md says [$want] (Durability): explain the change there"; fi
}

h=$(prepare_host debian12-kvm); scratch "$h"
traced "$tmp/t-apply" "$h" apply oracle $SET
check "apply (exit status)" 0 "$rc"
compare "apply" "$tmp/t-apply"
traced "$tmp/t-rollback" "$h" rollback
check "rollback (exit status)" 0 "$rc"
compare "rollback" "$tmp/t-rollback"

c=$(prepare_host debian12-kvm); scratch "$c"
HOSTTUNE_FAULT_AFTER=apply-commit ht "$c" apply oracle $SET
check "apply killed at apply-commit" 137 "$rc"
traced "$tmp/t-recovery" "$c" status
check_contains "status recovers it" "recovered 1 unfinished transaction" "$tmp/err"
compare "recovery" "$tmp/t-recovery"
finish
