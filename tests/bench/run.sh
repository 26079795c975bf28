#!/bin/sh
# hosttune benchmarks: speed and memory of hosttune itself against a floor
# program, against the tools a user would pick instead (procps sysctl,
# tuned, Ansible's ansible.posix.sysctl), scaling with the size of the
# input, and the effect of the tuning it applies (HugePages for a SysV
# shared memory segment). BENCHMARKS.md explains the method and the results.
#
#   sh tests/bench/run.sh [--short] [--out DIR] [--no-host] [SECTION...]
#
# SECTION: self, peers, scaling, effect (default: all four). --short runs
# every section with few runs and small sizes (CI, so the scripts do not
# rot; under two minutes) and writes to a temporary directory unless --out
# is given; the full run writes tests/bench/results/. --no-host skips
# everything that touches the real host (apply/rollback on /, sysctl -p,
# tuned, the HugePages workload), which otherwise runs only as root and
# restores every value it changes, also on failure.
#
# Environment: HOSTTUNE (the binary; default: the build's ./hosttune),
# CC (default cc). Needs: a C compiler, awk; strace for the floor's file
# list; procps, tuned, dbus-daemon, ansible, gnuplot for their parts
# (each part is skipped with a note when its tool is missing).
set -eu

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
bench=$srcdir/tests/bench
HOSTTUNE=${HOSTTUNE:-$srcdir/hosttune}
CC=${CC:-cc}
short=0 out="" host=1 sections=""
while [ $# -gt 0 ]; do
        case $1 in
        --short) short=1 ;;
        --out) out=$2; shift ;;
        --out=*) out=${1#--out=} ;;
        --no-host) host=0 ;;
        self|peers|scaling|effect) sections="$sections $1" ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
        esac
        shift
done
[ -n "$sections" ] || sections="self peers scaling effect"
[ -x "$HOSTTUNE" ] || { echo "run.sh: $HOSTTUNE not built (make)" >&2; exit 2; }
HOSTTUNE=$(cd "$(dirname "$HOSTTUNE")" && pwd)/$(basename "$HOSTTUNE")

work=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-bench.XXXXXX")
if [ -z "$out" ]; then
        if [ "$short" = 1 ]; then out=$work/results; else out=$bench/results; fi
fi
mkdir -p "$out" "$work/samples"
out=$(cd "$out" && pwd)

# What restores the host: a list of shell snippets run in reverse order at
# exit, whatever the exit (error, ^C).
: >"$work/restore"
on_exit_add() { printf '%s\n' "$1" | cat - "$work/restore" >"$work/restore.new" && mv "$work/restore.new" "$work/restore"; }
cleanup() {
        rc=$?
        trap - EXIT INT TERM
        if [ -s "$work/restore" ]; then
                echo "restoring the host..." >&2
                sh "$work/restore" || echo "run.sh: restoring failed; see $work/restore" >&2
        fi
        [ "${keep_work:-0}" = 1 ] || rm -rf "$work"
        exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

is_root=0
[ "$(id -u)" = 0 ] && is_root=1
real_host=0
[ "$host" = 1 ] && [ "$is_root" = 1 ] && real_host=1
# hosttune's run lock on the machine: the real-host rows run hosttune on /,
# which leaves its lock file, as flock files stay; one that was not there
# before goes last, unless a hosttune holds it
if [ "$real_host" = 1 ] && [ ! -e /run/hosttune.lock ]; then
        on_exit_add "flock -n /run/hosttune.lock rm -f /run/hosttune.lock || true"
fi

# Runs per measurement: rounds x per-round, interleaved (see interleave).
if [ "$short" = 1 ]; then rounds=2 per=3; else rounds=10 per=10; fi

# the fixture hosts stand for running systems (HACKING.md, "Fixture hosts")
export HOSTTUNE_NO_AUDIT=1 HOSTTUNE_TEST_LIVE_FIXTURES=1 LC_ALL=C
# Each section writes summary-SECTION.txt; summary.txt is the machine and
# every section's file present, so one section can be re-run alone.
summary=$out/summary-machine.txt
: >"$summary"
say() { printf '%s\n' "$*" | tee -a "$summary"; }
note() { say "  note: $*"; }

# ---------------------------------------------------------------- helpers
$CC -O2 -Wall -o "$work/runbench" "$bench/runbench.c"
$CC -O2 -Wall -o "$work/floor" "$bench/floor.c"
# the floor with DESIGN.md's libraries: what they cost for the same work
have_floor_libs=0
if pkg-config --exists libconfig mount json-c 2>/dev/null; then
        # shellcheck disable=SC2046
        $CC -O2 -Wall -o "$work/floor-libs" "$bench/floor-libs.c" $(pkg-config --cflags --libs libconfig mount json-c) &&
                have_floor_libs=1
fi
# the fair second floor (issue 34): floor.c's work in a process that
# links the libraries hosttune links for every command, never calling them
have_floor_linked=0
if pkg-config --exists libconfig mount json-c 2>/dev/null; then
        # shellcheck disable=SC2046
        $CC -O2 -Wall -o "$work/floor-linked" "$bench/floor-linked.c" $(pkg-config --cflags --libs libconfig mount json-c) &&
                have_floor_linked=1
fi
$CC -O2 -Wall -o "$work/shm-workload" "$bench/shm-workload.c"
RB=$work/runbench
fixture=$srcdir/tests/hosts/debian12-kvm
PP="--profile-path $srcdir/profiles --rules-path $srcdir/rules"

# The profiles are checked for trust as root (root-owned, not writable by
# others); a checkout may not be, so work from copies.
mkdir -p "$work/profiles" "$work/rules"
cp "$srcdir"/profiles/*.profile "$bench"/profiles/*.profile "$work/profiles/"
cp "$srcdir"/rules/*.rules "$work/rules/"
chmod -R go-w "$work/profiles" "$work/rules"
PP="--profile-path $work/profiles --rules-path $work/rules"

# b_NAME [runbench options]: one benchmark each; interleave runs them in
# rounds so that a load change on the shared machine hits all of them alike.
interleave() {
        for name in "$@"; do
                : >"$work/samples/$name"
                "b_$name" -n 1 -w 1 >/dev/null || { echo "run.sh: benchmark $name failed" >&2; return 1; }
        done
        i=0
        while [ $i -lt $rounds ]; do
                for name in "$@"; do
                        "b_$name" -r -n $per -w 0 >>"$work/samples/$name"
                done
                i=$((i + 1))
        done
}

# stats NAME: "WALL_MEDIAN CPU_MEDIAN MAXRSS RUNS" from the samples.
stats() {
        _f=$work/samples/$1
        [ -s "$_f" ] || { echo "- - - 0"; return; }
        _n=$(wc -l <"$_f")
        _w=$(cut -d' ' -f1 "$_f" | sort -n | awk -v n="$_n" '{a[NR]=$1} END {print (n%2 ? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2)}')
        _c=$(cut -d' ' -f2 "$_f" | sort -n | awk -v n="$_n" '{a[NR]=$1} END {print (n%2 ? a[(n+1)/2] : (a[n/2]+a[n/2+1])/2)}')
        _m=$(cut -d' ' -f3 "$_f" | sort -n | tail -1)
        echo "$_w $_c $_m $_n"
}
# samples from a single runbench -r call
record() { name=$1; shift; "$RB" -r "$@" >"$work/samples/$name"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "-" || b == "-") print "-"; else printf "%.2f", a / b }'; }

# row NAME LABEL [BASE]: a table row; the ratio column compares CPU medians.
row() {
        set -- "$1" "$2" "${3:-}"
        s=$(stats "$1")
        w=${s%% *}; r=${s#* }; c=${r%% *}; r=${r#* }; m=${r%% *}; n=${r#* }
        rat=""
        if [ -n "$3" ]; then
                b=$(stats "$3"); b=${b#* }; b=${b%% *}
                rat=$(ratio "$c" "$b")
        fi
        printf '%-44s %9s %9s %9s %6s %8s\n' "$2" "$w" "$c" "$m" "$n" "$rat" | tee -a "$summary"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$w" "$c" "$m" "$n" "$rat" >>"$tsv"
}
header() {
        printf '%-44s %9s %9s %9s %6s %8s\n' "" "wall ms" "CPU ms" "RSS KB" "runs" "${1:-ratio}" | tee -a "$summary"
}

not_available() { # the command answers "not available yet" (issue 2's skeleton)
        "$@" 2>&1 | grep -q "not available yet"
}

# ---------------------------------------------------------------- machine
{
        echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
        echo "hosttune: $("$HOSTTUNE" --version) ($(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo no git))"
        echo "cpu: $(nproc) x $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
        echo "memory: $(awk '/^MemTotal/ {printf "%.1f GB", $2 / 1048576}' /proc/meminfo)"
        echo "kernel: $(uname -r)"
        echo "os: $(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}")"
        echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "mode: $([ $short = 1 ] && echo short || echo full), $rounds rounds x $per runs per measurement"
} >"$out/machine.txt"
say "== machine"
sed 's/^/  /' "$out/machine.txt" | tee -a "$summary"

# ---------------------------------------------------------------- self
section_self() {
        say ""
        say "== hosttune itself (fixture host tests/hosts/debian12-kvm; medians; ratio: CPU / floor)"
        tsv=$out/self.tsv
        : >"$tsv"
        ht_plan="$HOSTTUNE --root $fixture $PP plan oracle --set sga_max_size=4G"

        # The floor reads what plan reads: the list comes from strace.
        list=$work/plan-files.list
        if command -v strace >/dev/null 2>&1; then
                # shellcheck disable=SC2086
                sh "$bench/files-read.sh" "$list" "$fixture:$work/profiles:$work/rules" -- $ht_plan
                sed "s|$srcdir/||; s|$work/|WORK/|" "$list" >"$out/plan-files.txt"
        else
                note "strace is missing: the floor reads the list saved by the last full run"
                sed "s|WORK/|$work/|; s|^\([FD]\) \([^/]\)|\1 $srcdir/\2|" "$out/plan-files.txt" >"$list" 2>/dev/null ||
                        sed "s|WORK/|$work/|; s|^\([FD]\) \([^/]\)|\1 $srcdir/\2|" "$bench/results/plan-files.txt" >"$list"
        fi
        say "  plan oracle reads $(grep -c '^F' "$list") files and lists $(grep -c '^D' "$list") directories (results/plan-files.txt)"

        b_true() { "$RB" "$@" -- /bin/true; }
        b_floor() { "$RB" "$@" -- "$work/floor" "$list"; }
        b_floor_libs() { "$RB" "$@" -- "$work/floor-libs" "$list"; }
        b_floor_linked() { "$RB" "$@" -- "$work/floor-linked" "$list"; }
        b_version() { "$RB" "$@" -- "$HOSTTUNE" --version; }
        b_facts() { "$RB" "$@" -- "$HOSTTUNE" --root "$fixture" facts; }
        b_facts_json() { "$RB" "$@" -- "$HOSTTUNE" --root "$fixture" --json facts; }
        # shellcheck disable=SC2086
        b_plan() { "$RB" "$@" -- $ht_plan; }
        # shellcheck disable=SC2086
        b_plan_json() { "$RB" "$@" -- $ht_plan --json; }
        # apply on a fresh copy of the fixture each time (the copy is untimed)
        # shellcheck disable=SC2086
        b_apply_fixture() {
                "$RB" "$@" -p "rm -rf '$work/fx' && cp -a '$fixture' '$work/fx'" -- \
                        "$HOSTTUNE" --root "$work/fx" $PP apply oracle --set sga_max_size=4G
        }
        names="true floor version facts facts_json plan plan_json apply_fixture"
        [ "$have_floor_linked" = 1 ] && names="$names floor_linked"
        if [ "$have_floor_libs" = 1 ]; then
                names="$names floor_libs"
        else
                note "pkg-config cannot find libconfig, mount and json-c: no floor with the libraries"
        fi

        # tuned's throughput-performance read in place (issue 19's target:
        # within 2x the floor), with a floor of its own: what that plan reads
        tuned_ok=0
        tp=/usr/lib/tuned/throughput-performance
        ht_plan_tuned="$HOSTTUNE --root $fixture $PP --tuned-path /usr/lib/tuned plan tuned:throughput-performance"
        rc_t=0
        if [ -f "$tp/tuned.conf" ]; then
                # shellcheck disable=SC2086
                $ht_plan_tuned >/dev/null 2>"$work/tuned-plan.err" || rc_t=$?
        fi
        if [ ! -f "$tp/tuned.conf" ]; then
                note "no $tp/tuned.conf (Debian: apt-get install tuned): no plan tuned:throughput-performance"
        elif [ "$rc_t" != 0 ] && [ "$rc_t" != 2 ]; then
                note "plan tuned:throughput-performance fails in this build: $(head -1 "$work/tuned-plan.err")"
        else
                tlist=$work/plan-tuned-files.list
                if command -v strace >/dev/null 2>&1; then
                        # shellcheck disable=SC2086
                        sh "$bench/files-read.sh" "$tlist" "$fixture:$work/profiles:$work/rules:/usr/lib/tuned" -- $ht_plan_tuned
                        sed "s|$srcdir/||; s|$work/|WORK/|" "$tlist" >"$out/plan-tuned-files.txt"
                else
                        sed "s|WORK/|$work/|; s|^\([FD]\) \([^/]\)|\1 $srcdir/\2|" "$bench/results/plan-tuned-files.txt" >"$tlist"
                fi
                say "  plan tuned:throughput-performance reads $(grep -c '^F' "$tlist") files and lists $(grep -c '^D' "$tlist") directories (results/plan-tuned-files.txt)"
                b_floor_tuned() { "$RB" "$@" -- "$work/floor" "$tlist"; }
                # shellcheck disable=SC2086
                b_plan_tuned() { "$RB" "$@" -- $ht_plan_tuned; }
                # shellcheck disable=SC2086
                b_plan_tuned_json() { "$RB" "$@" -- $ht_plan_tuned --json; }
                names="$names floor_tuned plan_tuned plan_tuned_json"
                tuned_ok=1
        fi

        verify_ok=0
        cp -a "$fixture" "$work/fxv"
        # shellcheck disable=SC2086
        if not_available "$HOSTTUNE" --root "$work/fxv" $PP verify; then
                note "hosttune verify: 'not available yet' in this build: skipped"
        else
                # shellcheck disable=SC2086
                "$HOSTTUNE" --root "$work/fxv" $PP apply oracle --set sga_max_size=4G >/dev/null 2>&1 || true
                b_verify_fixture() { "$RB" -x "$@" -- "$HOSTTUNE" --root "$work/fxv" $PP verify; }
                names="$names verify_fixture"
                verify_ok=1
        fi

        # The real host: a profile that sets the oracle profile's sysctl keys
        # to the values they have now (no runtime change) and writes its
        # drop-in; every apply is rolled back (untimed). A temp state dir.
        if [ "$real_host" = 1 ]; then
                if [ -e /etc/sysctl.d/90-hosttune.conf ]; then
                        note "real host: /etc/sysctl.d/90-hosttune.conf exists (hosttune in use here): real-host apply skipped"
                else
                        make_peer_settings
                        st=$work/state-real
                        on_exit_add "'$HOSTTUNE' --state-dir '$st' $PP rollback >/dev/null 2>&1 || true"
                        # shellcheck disable=SC2086
                        b_plan_real() { "$RB" "$@" -- "$HOSTTUNE" --state-dir "$st" $PP plan bench-sysctl; }
                        # shellcheck disable=SC2086
                        # each apply starts with an empty journal (its size
                        # costs: see the journal series under scaling)
                        b_apply_real() {
                                "$RB" "$@" -p "rm -rf '$st'" -q "'$HOSTTUNE' --state-dir '$st' $PP rollback >/dev/null" -- \
                                        "$HOSTTUNE" --state-dir "$st" $PP apply bench-sysctl
                        }
                        names="$names plan_real apply_real"
                fi
        else
                note "real-host apply: needs root (and no --no-host): skipped"
        fi

        # shellcheck disable=SC2086
        interleave $names
        header "/floor"
        row true "process start (/bin/true)" floor
        row floor "floor (libc: reads plan's files)" floor
        [ "$have_floor_linked" = 1 ] && row floor_linked "floor linked with the libraries (no calls)" floor
        [ "$have_floor_libs" = 1 ] && row floor_libs "floor with the libraries (parses them too)" floor
        row version "hosttune --version" floor
        row facts "hosttune facts" floor
        row facts_json "hosttune --json facts" floor
        row plan "hosttune plan oracle" floor
        row plan_json "hosttune --json plan oracle" floor
        row apply_fixture "hosttune apply oracle (fixture copy)" floor
        [ "$verify_ok" = 1 ] && row verify_fixture "hosttune verify (fixture)" floor
        if [ "$tuned_ok" = 1 ]; then
                row floor_tuned "floor of plan tuned:throughput-performance" floor_tuned
                row plan_tuned "hosttune plan tuned:throughput-performance" floor_tuned
                row plan_tuned_json "hosttune --json plan tuned:throughput-perf." floor_tuned
        fi
        case " $names " in *" apply_real "*)
                row plan_real "hosttune plan (real host, 15 sysctls)" floor
                row apply_real "hosttune apply (real host, 15 sysctls)" floor ;;
        esac

        p=$(stats plan); f=$(stats floor)
        pc=$(echo "$p" | cut -d' ' -f2); fc=$(echo "$f" | cut -d' ' -f2); pm=$(echo "$p" | cut -d' ' -f3)
        r=$(ratio "$pc" "$fc")
        say ""
        say "  target: plan oracle within 2x the floor (CPU): $r x -> $(awk -v r="$r" 'BEGIN {print (r <= 2 ? "met" : "NOT met")}')"
        say "  target: peak RSS under 4 MB: $pm KB -> $(awk -v m="$pm" 'BEGIN {print (m < 4096 ? "met" : "NOT met")}')"
        if [ "$tuned_ok" = 1 ]; then
                t=$(stats plan_tuned); tf=$(stats floor_tuned)
                r=$(ratio "$(echo "$t" | cut -d' ' -f2)" "$(echo "$tf" | cut -d' ' -f2)")
                say "  target: plan tuned:throughput-performance within 2x its floor (CPU): $r x -> $(awk -v r="$r" 'BEGIN {print (r <= 2 ? "met" : "NOT met")}')"
        fi
        if [ "$have_floor_linked" = 1 ]; then
                k=$(stats floor_linked); kc=$(echo "$k" | cut -d' ' -f2)
                r=$(ratio "$pc" "$kc")
                say "  target: plan oracle within 1.3x the floor linked with the libraries (CPU): $r x -> $(awk -v r="$r" 'BEGIN {print (r <= 1.3 ? "met" : "NOT met")}')"
        fi
        if [ "$have_floor_libs" = 1 ]; then
                l=$(stats floor_libs); lc=$(echo "$l" | cut -d' ' -f2)
                say "  the libraries' share: floor with the libraries / floor $(ratio "$lc" "$fc") x; hosttune's own code: plan oracle / floor with the libraries $(ratio "$pc" "$lc") x"
        fi

        # Where the CPU time goes: user space or the kernel (exec, mapping
        # the libraries, page faults, system calls, exit). The kernel splits
        # a process's time by clock ticks, and a run is shorter than a tick,
        # so each run's split is all one or the other: only the means over
        # many runs say it (runbench -r's columns 4 and 5).
        cpu_split() { awk '{u += $4; k += $5} END {if (NR) printf "%.3f user + %.3f kernel", u / NR, k / NR}' "$work/samples/$1"; }
        fl=""
        [ "$have_floor_linked" = 1 ] && fl=", floor linked $(cpu_split floor_linked)"
        say "  CPU split, ms, means of the runs: /bin/true $(cpu_split true), floor $(cpu_split floor)$fl, plan oracle $(cpu_split plan)"

        # Times move with the machine's load; instruction counts do not.
        # One callgrind run each (user space only: exec, page faults and
        # system calls are not counted, and they are most of the floor).
        if command -v valgrind >/dev/null 2>&1; then
                ti=$(instructions /bin/true); fi_=$(instructions "$work/floor" "$list")
                li=- ki=-
                [ "$have_floor_libs" = 1 ] && li=$(instructions "$work/floor-libs" "$list")
                [ "$have_floor_linked" = 1 ] && ki=$(instructions "$work/floor-linked" "$list")
                # shellcheck disable=SC2086
                pi=$(instructions $ht_plan)
                # shellcheck disable=SC2086
                pji=$(instructions $ht_plan --json)
                say "  user-space instructions per run (callgrind; they do not move with the load): /bin/true $ti, floor $fi_, floor linked with the libraries $ki, floor with the libraries $li, plan oracle $pi ($(ratio "$pi" "$fi_") x the floor, $(ratio "$pi" "$ki") x the floor linked), --json plan oracle $pji"
                printf 'instructions\t%s\t%s\t%s\t%s\t%s\t%s\n' "$ti" "$fi_" "$pi" "$li" "$ki" "$pji" >>"$tsv"
        else
                note "valgrind is missing: no instruction counts"
        fi
        # System calls and page faults per run: they do not move with the
        # load either (strace -f -c; GNU time's %R, minor faults).
        if command -v strace >/dev/null 2>&1 && [ -x /usr/bin/time ]; then
                line=""
                for w in floor floor_linked plan; do
                        case $w in
                        floor) set -- "$work/floor" "$list" ;;
                        floor_linked) [ "$have_floor_linked" = 1 ] || continue; set -- "$work/floor-linked" "$list" ;;
                        # shellcheck disable=SC2086
                        plan) set -- $ht_plan ;;
                        esac
                        sc=$(syscalls "$@"); pf=$(/usr/bin/time -f %R "$@" 2>&1 >/dev/null | tail -1)
                        line="$line $w $sc system calls, $pf page faults;"
                        printf 'syscalls\t%s\t%s\t%s\n' "$w" "$sc" "$pf" >>"$tsv"
                done
                say "  per run:$line"
        else
                note "strace or /usr/bin/time is missing: no system call or page fault counts"
        fi
}

# System calls a command makes (strace -f -c's total).
syscalls() {
        strace -f -c -o "$work/strace-c" "$@" >/dev/null 2>&1 || true
        awk '$NF == "total" {print $4}' "$work/strace-c" | tail -1
}

# Instructions a command executes in user space, from callgrind.
instructions() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
                awk '/Collected :/ {print $NF}'
}

# The oracle profile's sysctl keys at their current values: a sysctl.conf
# for procps, a profile for hosttune, a tuned profile, an Ansible play.
make_peer_settings() {
        [ -f "$work/peer/sysctl.conf" ] && return 0
        mkdir -p "$work/peer"
        keys="vm.swappiness fs.file-max fs.aio-max-nr kernel.sem kernel.shmmni kernel.shmall kernel.shmmax
kernel.panic_on_oops net.core.rmem_default net.core.rmem_max net.core.wmem_default net.core.wmem_max
net.ipv4.ip_local_port_range net.ipv4.conf.all.rp_filter net.ipv4.conf.default.rp_filter"
        : >"$work/peer/settings"
        for k in $keys; do
                f=/proc/sys/$(echo "$k" | tr . /)
                [ -r "$f" ] || continue
                printf '%s\t%s\n' "$k" "$(tr '\t' ' ' <"$f")" >>"$work/peer/settings"
        done
        awk -F'\t' '{print $1 " = " $2}' "$work/peer/settings" >"$work/peer/sysctl.conf"
        {
                echo 'summary = "Benchmark: the oracle sysctl keys at their current values";'
                echo 'sysctl = ('
                awk -F'\t' '{printf "        { key = \"%s\"; value = \"%s\"; }%s\n", $1, $2, ""}' "$work/peer/settings" |
                        sed '$!s/$/,/'
                echo ');'
        } >"$work/profiles/bench-sysctl.profile"
        chmod go-w "$work/profiles/bench-sysctl.profile"
        mkdir -p "$work/peer/tuned"
        { echo "[main]"; echo "summary=hosttune benchmark: the oracle sysctl keys at their current values"
          echo "[sysctl]"; awk -F'\t' '{print $1 "=" $2}' "$work/peer/settings"; } >"$work/peer/tuned/tuned.conf"
}

# ---------------------------------------------------------------- peers
section_peers() {
        say ""
        say "== peers (the same 15 sysctl settings: the oracle profile's keys at this host's current values)"
        tsv=$out/peers.tsv
        : >"$tsv"
        make_peer_settings
        names=""
        st=$work/state-peers
        # hosttune on a fixture copy: plan and apply of the same profile
        # shellcheck disable=SC2086
        b_ht_plan_fx() { "$RB" "$@" -- "$HOSTTUNE" --root "$fixture" $PP plan bench-sysctl; }
        # shellcheck disable=SC2086
        b_ht_apply_fx() {
                "$RB" "$@" -p "rm -rf '$work/fxp' && cp -a '$fixture' '$work/fxp'" -- \
                        "$HOSTTUNE" --root "$work/fxp" $PP apply bench-sysctl
        }
        names="ht_plan_fx ht_apply_fx"
        if [ "$real_host" = 1 ] && command -v sysctl >/dev/null 2>&1; then
                b_sysctl_p() { "$RB" "$@" -- sysctl -q -p "$work/peer/sysctl.conf"; }
                names="$names sysctl_p"
                if [ ! -e /etc/sysctl.d/90-hosttune.conf ]; then
                        on_exit_add "'$HOSTTUNE' --state-dir '$st' $PP rollback >/dev/null 2>&1 || true"
                        # shellcheck disable=SC2086
                        b_ht_apply_real() {
                                "$RB" "$@" -p "rm -rf '$st'" -q "'$HOSTTUNE' --state-dir '$st' $PP rollback >/dev/null" -- \
                                        "$HOSTTUNE" --state-dir "$st" $PP apply bench-sysctl
                        }
                        names="$names ht_apply_real"
                fi
        else
                note "sysctl -p: needs root and procps on the real host: skipped"
        fi
        # shellcheck disable=SC2086
        interleave $names
        header "/sysctl-p"
        base=sysctl_p
        [ -s "$work/samples/sysctl_p" ] || base=ht_plan_fx
        row ht_plan_fx "hosttune plan (fixture)" $base
        row ht_apply_fx "hosttune apply (fixture copy)" $base
        case " $names " in *" sysctl_p "*)
                row sysctl_p "sysctl -p (procps, real /proc/sys)" $base ;;
        esac
        case " $names " in *" ht_apply_real "*)
                row ht_apply_real "hosttune apply (real host, + rollback untimed)" $base ;;
        esac

        peer_tuned
        peer_ansible
}

peer_tuned() {
        say ""
        say "-- tuned"
        if ! command -v tuned >/dev/null 2>&1 || ! command -v tuned-adm >/dev/null 2>&1; then
                note "tuned is not installed (Debian: apt-get install tuned): skipped"
                return 0
        fi
        if [ "$real_host" != 1 ]; then
                note "tuned changes the real host: needs root (and no --no-host): skipped"
                return 0
        fi
        if pgrep -x tuned >/dev/null 2>&1; then
                note "a tuned daemon runs on this host: skipped (it would fight the benchmark)"
                return 0
        fi
        # tuned writes /etc/tuned/{active_profile,profile_mode} and may
        # re-apply sysctl.d (reapply_sysctl): snapshot and restore all.
        cp -a /etc/tuned "$work/etc-tuned"
        sh "$bench/values.sh" snapshot "$work/values.before-tuned"
        on_exit_add "sh '$bench/values.sh' restore '$work/values.before-tuned'; rm -rf /etc/tuned && cp -a '$work/etc-tuned' /etc/tuned"
        cp -r "$work/peer/tuned" /etc/tuned/hosttune-bench

        # apply: tuned --no-dbus -p PROFILE, from the start to the log line
        # "static tuning ... applied"; CPU and peak RSS of the daemon then.
        n=$([ $short = 1 ] && echo 1 || echo 5)
        : >"$work/samples/tuned_apply"
        i=0
        while [ $i -lt $n ]; do
                log=$work/tuned-$i.log
                t0=$(date +%s%N)
                tuned --no-dbus -p hosttune-bench -l "$log" -P "$work/tuned.pid" >/dev/null 2>&1 &
                pid=$!
                j=0
                while [ $j -lt 3000 ] && ! grep -q "static tuning from profile 'hosttune-bench' applied" "$log" 2>/dev/null; do
                        sleep 0.01; j=$((j + 1))
                done
                t1=$(date +%s%N)
                tck=$(getconf CLK_TCK)
                cpu=$(awk -v t="$tck" '{printf "%.1f", ($14 + $15) * 1000 / t}' "/proc/$pid/stat" 2>/dev/null || echo -)
                rss=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo -)
                kill -TERM "$pid" 2>/dev/null || true
                wait "$pid" 2>/dev/null || true
                echo "$(( (t1 - t0) / 1000 )) $cpu $rss" | awk '{printf "%.3f %s %s\n", $1 / 1000, $2, $3}' >>"$work/samples/tuned_apply"
                i=$((i + 1))
        done
        tsv=$out/peers.tsv
        header "/hosttune"
        row tuned_apply "tuned --no-dbus -p (until applied)" ht_apply_real
        note "tuned's CPU time is in clock ticks ($(getconf CLK_TCK)/s), from /proc/PID/stat when the log says applied"

        # verify needs the daemon on a system bus: a private one in a mount namespace
        if command -v dbus-daemon >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1; then
                vruns=$([ $short = 1 ] && echo 1 || echo 10)
                switch=""
                [ -f /usr/lib/tuned/throughput-performance/tuned.conf ] && switch=throughput-performance
                if unshare -m sh "$bench/tuned-dbus.sh" "$RB" "$vruns" hosttune-bench "$work" $switch >"$work/tuned-dbus.log" 2>&1; then
                        cp "$work/tuned-verify.samples" "$work/samples/tuned_verify"
                        cp "$work/tuned-active.samples" "$work/samples/tuned_active"
                        row tuned_verify "tuned-adm verify (private system bus)"
                        row tuned_active "tuned-adm active"
                        say "  tuned-adm verify said: $(grep -v '^runs=' "$work/tuned-verify.out" | head -1)"
                        if [ -n "$switch" ]; then
                                cp "$work/tuned-profile.samples" "$work/samples/tuned_profile"
                                # the same profile planned by hosttune on this host, read in place
                                record ht_plan_tuned_real -x -n "$([ $short = 1 ] && echo 2 || echo 20)" -w 1 -- \
                                        "$HOSTTUNE" --state-dir "$work/state-tplan" $PP plan tuned:throughput-performance
                                row ht_plan_tuned_real "hosttune plan tuned:throughput-performance (this host)"
                                row tuned_profile "tuned-adm profile throughput-performance" ht_plan_tuned_real
                                note "tuned-adm profile: wall time until the daemon says applied; CPU time tuned-adm's and the daemon's meanwhile (clock ticks); RSS the daemon's"
                        fi
                else
                        note "tuned on a private system bus failed: $(tail -3 "$work/tuned-dbus.log" | tr '\n' ' ')"
                fi
        else
                note "tuned-adm verify needs dbus-daemon and unshare: skipped"
        fi
        if not_available "$HOSTTUNE" $PP verify; then
                note "hosttune verify: 'not available yet' in this build: no hosttune side for tuned-adm verify"
        else
                # the same settings applied on the real host, then verified
                # shellcheck disable=SC2086
                if "$HOSTTUNE" --state-dir "$work/state-verify" $PP apply bench-sysctl >/dev/null 2>&1; then
                        on_exit_add "'$HOSTTUNE' --state-dir '$work/state-verify' $PP rollback >/dev/null 2>&1 || true"
                        # shellcheck disable=SC2086
                        record ht_verify -x -n "$([ $short = 1 ] && echo 2 || echo 10)" -w 1 -- \
                                "$HOSTTUNE" --state-dir "$work/state-verify" $PP verify
                        # shellcheck disable=SC2086
                        "$HOSTTUNE" --state-dir "$work/state-verify" $PP rollback >/dev/null 2>&1 || true
                        row ht_verify "hosttune verify (real host, same settings)"
                        [ -s "$work/samples/tuned_verify" ] && row tuned_verify "tuned-adm verify / hosttune verify" ht_verify
                fi
        fi
        record tuned_recommend -x -n "$([ $short = 1 ] && echo 1 || echo 10)" -w "$([ $short = 1 ] && echo 0 || echo 1)" -- tuned-adm recommend
        row tuned_recommend "tuned-adm recommend (no daemon)"
        if not_available "$HOSTTUNE" recommend; then
                note "hosttune recommend: 'not available yet' in this build: no hosttune side for tuned-adm recommend"
        else
                record ht_recommend -x -n "$([ $short = 1 ] && echo 2 || echo 10)" -w 1 -- "$HOSTTUNE" $PP recommend
                row ht_recommend "hosttune recommend"
                row tuned_recommend "tuned-adm recommend / hosttune recommend" ht_recommend
        fi

        rm -rf /etc/tuned/hosttune-bench
        sh "$bench/values.sh" restore "$work/values.before-tuned" | sed 's/^/  tuned changed; /' | tee -a "$summary"
}

# Ansible: ansible.posix.sysctl once per setting (values equal to the
# current ones, sysctl_set: false, reload: false, a temp sysctl_file) against
# the hosttune module once for the same profile, on a fixture copy.
peer_ansible() {
        say ""
        say "-- Ansible"
        if ! command -v ansible-playbook >/dev/null 2>&1; then
                note "ansible-playbook is not installed (Debian: apt-get install ansible): skipped"
                return 0
        fi
        a=$work/ansible
        mkdir -p "$a/home"
        # Ansible refuses a non-UTF-8 locale
        export LC_ALL=C.UTF-8 HOME="$a/home" ANSIBLE_LOCAL_TEMP="$a/home/.ansible/tmp" ANSIBLE_REMOTE_TEMP="$a/home/.ansible/tmp" \
                ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_CONFIG="$a/ansible.cfg" \
                ANSIBLE_COLLECTIONS_PATH="$srcdir/packaging/ansible" PYTHONDONTWRITEBYTECODE=1
        : >"$a/ansible.cfg"
        if ! ansible-doc -t module ansible.posix.sysctl >/dev/null 2>&1; then
                note "ansible.posix.sysctl is missing (Debian: apt-get install ansible, not only ansible-core): skipped"
                return 0
        fi
        echo 'localhost ansible_connection=local ansible_python_interpreter="{{ ansible_playbook_python }}"' >"$a/inventory"
        {
                echo "- hosts: localhost"
                echo "  gather_facts: false"
                echo "  tasks:"
                # --short: three of the settings, to stay within CI's time
                head -n "$([ $short = 1 ] && echo 3 || echo 1000)" "$work/peer/settings" |
                awk -F'\t' -v f="$a/sysctl.conf" '{
                        printf "    - ansible.posix.sysctl:\n        name: \"%s\"\n        value: \"%s\"\n", $1, $2
                        printf "        sysctl_file: \"%s\"\n        sysctl_set: false\n        reload: false\n", f }'
        } >"$a/posix.yml"
        # the hosttune module with a wrapper binary that adds the rules path
        printf '#!/bin/sh\nexec "%s" --rules-path "%s" "$@"\n' "$HOSTTUNE" "$work/rules" >"$a/hosttune"
        chmod +x "$a/hosttune"
        cat >"$a/hosttune.yml" <<EOF
- hosts: localhost
  gather_facts: false
  tasks:
    - hosttune.hosttune.hosttune:
        binary: "$a/hosttune"
        root: "$a/root"
        state_dir: "$a/state"
        profile_path: ["$work/profiles"]
        profile: bench-sysctl
        state: applied
EOF
        printf -- '- hosts: localhost\n  gather_facts: false\n  tasks: []\n' >"$a/empty.yml"
        n=$([ $short = 1 ] && echo 1 || echo 5)
        wu=$([ $short = 1 ] && echo 0 || echo 1)
        record ansible_empty -n "$n" -w "$wu" -- ansible-playbook -i "$a/inventory" "$a/empty.yml"
        record ansible_posix -n "$n" -w "$wu" -p "rm -f '$a/sysctl.conf'" -- \
                ansible-playbook -i "$a/inventory" "$a/posix.yml"
        record ansible_hosttune -n "$n" -w "$wu" -p "rm -rf '$a/root' '$a/state' && cp -a '$fixture' '$a/root'" -- \
                ansible-playbook -i "$a/inventory" "$a/hosttune.yml"
        k=$(grep -c 'ansible.posix.sysctl:' "$a/posix.yml")
        tsv=$out/peers.tsv
        header "/hosttune"
        row ansible_posix "ansible.posix.sysctl x $k tasks" ansible_hosttune
        row ansible_hosttune "hosttune module x 1 task (fixture copy)" ansible_hosttune
        row ansible_empty "ansible-playbook, a play with no tasks" ansible_hosttune
        e=$(stats ansible_empty | cut -d' ' -f1); p=$(stats ansible_posix | cut -d' ' -f1); h=$(stats ansible_hosttune | cut -d' ' -f1)
        say "  wall above the empty play: ansible.posix.sysctl $(awk -v p="$p" -v e="$e" -v k="$k" 'BEGIN {printf "%.0f ms (%.0f ms a task)", p - e, (p - e) / k}'), hosttune module $(awk -v h="$h" -v e="$e" 'BEGIN {printf "%.0f ms", h - e}'): $(ratio "$(awk -v p="$p" -v e="$e" 'BEGIN {print p - e}')" "$(awk -v h="$h" -v e="$e" 'BEGIN {print h - e}')") x"
        note "ansible wall and CPU include ansible-playbook's start (CPU: the process and the workers it reaped)"
        if [ ! -s "$a/sysctl.conf" ] || [ "$(wc -l <"$a/sysctl.conf")" -lt "$k" ]; then
                note "ansible.posix.sysctl did not write all $k settings to its sysctl_file"
        fi
}

# ---------------------------------------------------------------- scaling
# A copy of the fixture with N sysctl keys under /proc/sys/bench and a
# profile that sets them all; limits.conf of N lines; N SysV segments.
gen_host() { rm -rf "$1" && cp -a "$fixture" "$1"; }

section_scaling() {
        say ""
        say "== scaling (plan on a fixture copy; CPU median, ms; bound: n log n)"
        tsv=$out/scaling.tsv
        : >"$tsv"
        sc=$work/scale
        mkdir -p "$sc/profiles"
        if [ "$short" = 1 ]; then
                ns_sysctl="0 10 100 1000" ns_limits="10 100 1000 10000" ns_shm="1 10 100"
                ns_block="4 40 400" ns_cpu="1 10 100"
                sruns=3
        else
                ns_sysctl="0 10 100 1000 10000" ns_limits="10 100 1000 10000 100000" ns_shm="1 10 100 1000"
                ns_block="4 40 400 4096" ns_cpu="1 10 100 1024"
                sruns=15
        fi
        : >"$out/scaling.dat"
        # sysctl: the list form ( { key; value; }, ... ), linear in hosttune;
        # sysctlgrp: the group form bench = { k00000 = 1; ... }, whose
        # libconfig parser checks each new name against all before it.
        for n in $ns_sysctl; do
                h=$sc/sysctl-$n
                gen_host "$h"
                mkdir -p "$h/proc/sys/bench"
                awk -v n="$n" -v d="$h/proc/sys/bench" 'BEGIN { for (i = 0; i < n; i++) print "0" > sprintf("%s/k%05d", d, i) }'
                awk -v n="$n" 'BEGIN {
                        print "summary = \"Benchmark: " n " sysctl settings (list form)\";"
                        if (n == 0) { print "sysctl = ( );"; exit }
                        print "sysctl = ("
                        for (i = 0; i < n; i++) printf "        { key = \"bench.k%05d\"; value = %d; }%s\n", i, i + 1, (i < n - 1 ? "," : "")
                        print ");" }' >"$sc/profiles/scale-sysctl-$n.profile"
                awk -v n="$n" 'BEGIN {
                        print "summary = \"Benchmark: " n " sysctl settings (group form)\";"
                        if (n == 0) { print "sysctl = { };"; exit }
                        print "sysctl = {\n        bench = {"
                        for (i = 0; i < n; i++) printf "                k%05d = %d;\n", i, i + 1
                        print "        };\n};" }' >"$sc/profiles/scale-sysctlgrp-$n.profile"
                scale_one sysctl "$n" "$h" "scale-sysctl-$n"
                # the group form's quadratic parse: fewer runs at 10,000
                sr=$sruns; [ "$n" -ge 10000 ] && sruns=3
                scale_one sysctlgrp "$n" "$h" "scale-sysctlgrp-$n"
                sruns=$sr
        done
        for n in $ns_limits; do
                h=$sc/limits-$n
                gen_host "$h"
                # hosttune skips (with a warning) a limits file over 1 MiB
                # (SECURITY.md), so the lines are as short as valid ones
                # get, ~10 bytes: 100,000 of them fit. Every 50th names a
                # planned user and item, for the precedence check.
                awk -v n="$n" 'BEGIN {
                        split("as cpu rss", it, " "); split("nofile nproc", pl, " ")
                        for (i = 0; i < n; i++)
                                if (i % 50 == 1) printf "u%d %s %s %d\n", i % 100 == 1 ? 1 : 2, (i % 200 < 100 ? "-" : "hard"), pl[int(i / 50) % 2 + 1], i % 10
                                else printf "* - %s %d\n", it[i % 3 + 1], i % 10 }' \
                        >"$h/etc/security/limits.conf"
                if [ ! -f "$sc/profiles/scale-limits.profile" ]; then
                        {
                                echo 'summary = "Benchmark: 8 limits against a long limits.conf";'
                                echo 'limits = ('
                                for u in u1 u2; do for t in soft hard; do for it in nofile nproc; do
                                        echo "        { domain = \"$u\"; type = \"$t\"; item = \"$it\"; value = 65536; },"
                                done; done; done | sed '$s/,$//'
                                echo ');'
                        } >"$sc/profiles/scale-limits.profile"
                fi
                scale_one limits "$n" "$h" scale-limits
        done
        for n in $ns_shm; do
                h=$sc/shm-$n
                gen_host "$h"
                awk -v n="$n" 'BEGIN {
                        print "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap"
                        for (i = 0; i < n; i++)
                                printf "%10d %10d %5d %21d %5d %5d %6d %5d %5d %5d %5d %10d %10d %10d %21d %21d\n", 0, i, 600, 4194304, 2811, 3412, 2, 54321, 54322, 54321, 54322, 1705312811, 1705312790, 1705312788, 4194304, 0 }' \
                        >"$h/proc/sysvipc/shm"
                if [ ! -f "$sc/profiles/scale-shm.profile" ]; then
                        {
                                echo 'summary = "Benchmark: HugePages sized from the live SysV segments";'
                                echo 'params = { hugepages_from = "shm"; };'
                        } >"$sc/profiles/scale-shm.profile"
                fi
                scale_one shm "$n" "$h" scale-shm
        done
        # block and cpu: the backends enumerate /sys/block and the cpufreq
        # policies while planning (facts hold neither), a change per
        # device or policy; gen-devices.py lays the trees out as sysfs does
        cat >"$sc/profiles/scale-block.profile" <<'PROFILE'
summary = "Benchmark: schedulers for every rotational and non-rotational disk";
block = {
        rotational = { queue = { scheduler = "bfq"; read_ahead_kb = { value = 4096; bound = "at-least"; }; }; };
        non-rotational = { queue = { scheduler = "mq-deadline"; }; };
};
PROFILE
        cat >"$sc/profiles/scale-cpu.profile" <<'PROFILE'
summary = "Benchmark: the performance governor on every cpufreq policy";
cpu = { governor = "performance"; energy_performance_preference = "performance"; };
PROFILE
        for n in $ns_block; do
                h=$sc/block-$n
                gen_host "$h"
                python3 "$bench/gen-devices.py" "$h" "$n" 0
                scale_one block "$n" "$h" scale-block
        done
        for n in $ns_cpu; do
                h=$sc/cpu-$n
                gen_host "$h"
                python3 "$bench/gen-devices.py" "$h" 0 "$n"
                scale_one cpu "$n" "$h" scale-cpu
        done
        # the same trees for `facts --json`, which lists every block device
        # and cpufreq policy (facts-devices.c): factsblk, factscpu
        for n in $ns_block; do scale_facts factsblk "$n" "$sc/block-$n"; done
        for n in $ns_cpu; do scale_facts factscpu "$n" "$sc/cpu-$n"; done

        # apply with a journal of n earlier transactions (apply + rollback
        # pairs on a fixture copy): every apply first looks for unfinished
        # ones to recover
        if [ "$short" = 1 ]; then ns_journal="1 10"; else ns_journal="1 10 100"; fi
        h=$sc/journal-host
        gen_host "$h"
        js=$sc/journal-state
        done_pairs=0
        for n in $ns_journal; do
                while [ $done_pairs -lt "$n" ]; do
                        # shellcheck disable=SC2086
                        "$HOSTTUNE" --root "$h" --state-dir "$js" $PP apply oracle --set sga_max_size=4G >/dev/null 2>&1
                        # shellcheck disable=SC2086
                        "$HOSTTUNE" --root "$h" --state-dir "$js" $PP rollback >/dev/null 2>&1
                        done_pairs=$((done_pairs + 1))
                done
                # shellcheck disable=SC2086
                record "scale_journal_$n" -n "$sruns" -w 0 \
                        -q "'$HOSTTUNE' --root '$h' --state-dir '$js' $PP rollback >/dev/null 2>&1" -- \
                        "$HOSTTUNE" --root "$h" --state-dir "$js" $PP apply oracle --set sga_max_size=4G
                done_pairs=$((done_pairs + sruns))
                s=$(stats "scale_journal_$n")
                echo "journal $n $(echo "$s" | cut -d' ' -f2) $(echo "$s" | cut -d' ' -f3)" >>"$out/scaling.dat"
                printf '%s\t%s\t%s\n' journal "$n" "$s" | tr ' ' '\t' >>"$tsv"
        done

        say ""
        say "  growth between sizes ten times apart: T(n)/T(n/10) for CPU above the n=smallest run's"
        say "  (fixed start-up cost removed); n log n allows 10*log(n)/log(n/10); RSS likewise (when it grew 256 KB+);"
        say "  growth under 0.5 ms at n/10 is not judged (noise)$([ $short = 1 ] && echo "; --short: $sruns runs each, indicative only")"
        printf '  %-10s %8s %10s %10s %10s %10s %8s %s\n' series n "cpu ms" "rss KB" "cpu ratio" "rss ratio" bound verdict | tee -a "$summary"
        awk -v out="$out/scaling-ratios.tsv" '
        { s[NR] = $1; n[NR] = $2; c[NR] = $3; m[NR] = $4 }
        END {
                worst = "ok"
                for (i = 1; i <= NR; i++) {
                        if (!(s[i] in first)) first[s[i]] = i
                        f = first[s[i]]; p = prev[s[i]]; prev[s[i]] = i
                        line = sprintf("  %-10s %8d %10.3f %10d", s[i], n[i], c[i], m[i])
                        mr = ""
                        if (p && n[p] > 0 && n[i] >= 100 && m[p] - m[f] >= 256) mr = sprintf("%.1f", (m[i] - m[f]) / (m[p] - m[f]))
                        if (p && n[p] > 0 && n[i] >= 100) {
                                d = c[i] - c[f]; d0 = c[p] - c[f]
                                bound = 10 * log(n[i]) / log(n[p])
                                if (d0 < 0.5) { r = "-"; v = "below noise" }
                                else { r = sprintf("%.1f", d / d0); v = (d / d0 <= bound * 1.3 ? "ok" : "WORSE than n log n") }
                                if (v ~ /WORSE/ && s[i] == "sysctlgrp") v = v " (libconfig group parsing; the list form is linear)"
                                else if (v ~ /WORSE/) worst = "WORSE"
                                if (mr != "" && mr + 0 > bound * 1.3) { v = v ", RSS WORSE"; if (s[i] != "sysctlgrp") worst = "WORSE" }
                                line = line sprintf(" %10s %10s %8.1f %s", r, (mr == "" ? "-" : mr), bound, v)
                                printf "%s\t%d\t%s\t%s\t%.1f\t%s\n", s[i], n[i], r, mr, bound, v > out
                        }
                        print line
                }
                print "  overall: " (worst == "ok" ? "no series grows worse than n log n in hosttune" : "a series grows worse than n log n")
        }' "$out/scaling.dat" | tee -a "$summary"
        plot_scaling
}

# scale_one SERIES N HOST PROFILE
scale_one() {
        name="scale_$1_$2"
        # a plan that fails is not a measurement (checked before the
        # timed runs, so a bad point costs one run)
        # shellcheck disable=SC2086
        rc=0; "$HOSTTUNE" --root "$3" --profile-path "$sc/profiles" $PP plan "$4" >"$work/scale.out" 2>&1 || rc=$?
        if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
                echo "run.sh: plan $4 on $3 failed: $(cat "$work/scale.out")" >&2
                return 1
        fi
        # nor is one that skipped the input it was to scale with
        if grep -q "cannot read it" "$work/scale.out"; then
                echo "run.sh: plan $4 on $3 skipped its input: $(grep "cannot read it" "$work/scale.out")" >&2
                return 1
        fi
        # shellcheck disable=SC2086
        record "$name" -x -n "$sruns" -w 1 -- "$HOSTTUNE" --root "$3" --profile-path "$sc/profiles" $PP plan "$4"
        s=$(stats "$name")
        echo "$1 $2 $(echo "$s" | cut -d' ' -f2) $(echo "$s" | cut -d' ' -f3)" >>"$out/scaling.dat"
        printf '%s\t%s\t%s\n' "$1" "$2" "$s" | tr ' ' '\t' >>"$tsv"
}

# scale_facts SERIES N HOST: `facts --json` on HOST, which must list the
# devices it was given (a run that read none is not a measurement)
scale_facts() {
        name="scale_$1_$2"
        rc=0; "$HOSTTUNE" --root "$3" facts --json >"$work/scale.out" 2>/dev/null || rc=$?
        got=$(python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print(len(j["block"]["devices"] or []), len((j["cpu"]["cpufreq"] or {}).get("policies") or []))' "$work/scale.out" 2>/dev/null)
        if [ "$rc" != 0 ] || [ -z "$got" ] || [ "$got" = "0 0" ]; then
                echo "run.sh: facts --json on $3 failed or listed nothing (exit $rc, devices and policies: ${got:-none})" >&2
                return 1
        fi
        record "$name" -x -n "$sruns" -w 1 -- "$HOSTTUNE" --root "$3" facts --json
        s=$(stats "$name")
        echo "$1 $2 $(echo "$s" | cut -d' ' -f2) $(echo "$s" | cut -d' ' -f3)" >>"$out/scaling.dat"
        printf '%s\t%s\t%s\n' "$1" "$2" "$s" | tr ' ' '\t' >>"$tsv"
        # instructions: the times of a few ms move with the load
        if command -v valgrind >/dev/null 2>&1; then
                i=$(instructions "$HOSTTUNE" --root "$3" facts --json)
                say "  $1 $2: $i user-space instructions (callgrind)"
                printf 'instructions_%s_%s\t%s\n' "$1" "$2" "$i" >>"$tsv"
        fi
}

plot_scaling() {
        if ! command -v gnuplot >/dev/null 2>&1; then
                note "gnuplot is missing (Debian: apt-get install gnuplot-nox): no plot"
                return 0
        fi
        for s in sysctl sysctlgrp limits shm journal; do awk -v s="$s" '$1 == s && $2 > 0' "$out/scaling.dat" >"$work/scale-$s.dat"; done
        # the n log n line goes through the largest list-form point
        k=$(awk '$1 == "sysctl" && $2 > 1 { n = $2; c = $3 } END { printf "%.10g", c / (n * log(n)) }' "$out/scaling.dat")
        gnuplot <<EOF
set terminal pngcairo size 900,560 noenhanced
set output "$out/scaling.png"
set title "hosttune plan (apply for the journal): CPU time against input size (log-log)"
set logscale xy
set yrange [1:*]
set xlabel "n (sysctl settings / limits.conf lines / SysV segments / earlier transactions)"
set ylabel "CPU ms (median)"
set key top left
set grid
plot "$work/scale-sysctl.dat" using 2:3 with linespoints title "n sysctl settings (list form)", \
     "$work/scale-sysctlgrp.dat" using 2:3 with linespoints title "n sysctl settings (group form: libconfig)", \
     "$work/scale-limits.dat" using 2:3 with linespoints title "limits.conf of n lines", \
     "$work/scale-shm.dat" using 2:3 with linespoints title "n SysV segments", \
     "$work/scale-journal.dat" using 2:3 with linespoints title "apply after n apply+rollback pairs", \
     [100:100000] $k*x*log(x) with lines dashtype 2 title "c n log n (through the last list-form point)"
EOF
        say "  plot: $(basename "$out")/scaling.png"
}

# ---------------------------------------------------------------- effect
# P processes attach one SysV segment of S MB and touch every page: with
# 4 KB pages, then with HugePages from `hosttune apply bench-hugepages
# --set sga_max_size=S` on the real host (a temp state dir), then rollback.
section_effect() {
        say ""
        say "== the tuning's effect: P processes x one SysV segment of S MB, every page touched"
        if [ "$real_host" != 1 ]; then
                note "needs root on the real host (and no --no-host): skipped"
                return 0
        fi
        if ! grep -q '^Hugepagesize:' /proc/meminfo; then
                note "this kernel has no HugePages: skipped"
                return 0
        fi
        if [ -e /etc/sysctl.d/90-hosttune.conf ]; then
                note "/etc/sysctl.d/90-hosttune.conf exists (hosttune in use here): skipped"
                return 0
        fi
        tsv=$out/effect.tsv
        : >"$tsv"
        if [ "$short" = 1 ]; then sizes="64" procs="1 4"; reps=1; else sizes="256 1024" procs="1 4 16"; reps=3; fi
        st=$work/state-effect
        nr0=$(cat /proc/sys/vm/nr_hugepages)
        on_exit_add "'$HOSTTUNE' --state-dir '$st' $PP rollback >/dev/null 2>&1 || true; echo '$nr0' >/proc/sys/vm/nr_hugepages"
        printf '  %6s %4s %10s %10s %7s %10s %10s %7s %9s %9s %6s %s\n' "S MB" P "VmPTE 4K" "VmPTE huge" ratio \
                "seg 4K" "seg huge" ratio "ms 4K" "ms huge" ratio "PageTables delta 4K / huge" | tee -a "$summary"
        for s in $sizes; do
                run_workload "$s" "" >/dev/null || true   # warm: the VM backs the memory once
                for p in $procs; do
                        run_workload "$s" "" "$p" >"$work/w4k-$s-$p"
                done
                # shellcheck disable=SC2086
                if ! "$HOSTTUNE" --state-dir "$st" $PP apply bench-hugepages --set "sga_max_size=${s}M" >"$work/apply-$s.log" 2>&1; then
                        note "hosttune apply bench-hugepages failed for ${s} MB: $(tail -2 "$work/apply-$s.log" | tr '\n' ' ')"
                fi
                want=$(awk -v s="$s" 'BEGIN { print int((s * 1024 + 2047) / 2048) + 2 }')
                got=$(awk '/^HugePages_Total/ {print $2}' /proc/meminfo)
                [ "$got" -lt "$want" ] && note "asked for $want HugePages, the kernel gave $got (fragmented memory)"
                if run_workload "$s" -H >/dev/null; then     # warm the huge pages
                        for p in $procs; do
                                run_workload "$s" -H "$p" >"$work/whuge-$s-$p" || : >"$work/whuge-$s-$p"
                        done
                else
                        note "SHM_HUGETLB segment of $s MB could not be created with $got HugePages"
                        for p in $procs; do : >"$work/whuge-$s-$p"; done
                fi
                # shellcheck disable=SC2086
                "$HOSTTUNE" --state-dir "$st" $PP rollback >"$work/rollback-$s.log" 2>&1 ||
                        note "rollback failed: $(tail -2 "$work/rollback-$s.log" | tr '\n' ' ')"
                [ "$(cat /proc/sys/vm/nr_hugepages)" = "$nr0" ] || note "after rollback vm.nr_hugepages is $(cat /proc/sys/vm/nr_hugepages), not $nr0"
                for p in $procs; do
                        awk -v s="$s" -v p="$p" -v tsv="$tsv" '
                        FNR == 1 { f++ }
                        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[f, kv[1]] = kv[2] } }
                        END {
                                pt4 = v[1, "vmpte_kb"]; pth = v[2, "vmpte_kb"]; t4 = v[1, "wall_ms"]; th = v[2, "wall_ms"]
                                g4 = v[1, "pagetables_kb"]; gh = v[2, "pagetables_kb"]
                                s4 = pt4 - v[1, "base_kb"]; sh = (pth == "" ? "" : pth - v[2, "base_kb"])
                                if (sh != "" && sh < 4) sh = 4   # at least the one table page (below: noise)
                                r1 = (pth > 0 ? sprintf("%.0f", pt4 / pth) : "-"); r2 = (th > 0 ? sprintf("%.1f", t4 / th) : "-")
                                r3 = (sh != "" ? sprintf("%.0f", s4 / sh) : "-")
                                line = sprintf("  %6d %4d %10s %10s %7s %10s %10s %7s %9s %9s %6s %s / %s", s, p, pt4, (pth == "" ? "-" : pth), r1,
                                               s4, (sh == "" ? "-" : sh), r3, t4, (th == "" ? "-" : th), r2, g4, (gh == "" ? "-" : gh))
                                print line
                                printf "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s, p, pt4, pth, r1, t4, th, r2, g4, gh, s4, sh, r3 >> tsv
                        }' "$work/w4k-$s-$p" "$work/whuge-$s-$p" | tee -a "$summary"
                done
        done
        say "  VmPTE: the sum of the P processes' own page tables (/proc/PID/status) while all are attached;"
        say "  seg: VmPTE minus what P processes of the workload have without the segment (at least 4 KB: one table page)"
        say "  PageTables: /proc/meminfo while attached minus before; moves with everything else on a shared machine"
        say "  ms: from the first fork until every process has touched every page (median of $reps)"
        plot_effect
}

# run_workload S [-H] [P]: the median-time run of $reps (one line of output)
run_workload() {
        s=$1 h=$2 p=${3:-1}
        i=0
        : >"$work/wl"
        while [ $i -lt "${reps:-1}" ]; do
                # shellcheck disable=SC2086
                "$work/shm-workload" -p "$p" -s "$s" $h >>"$work/wl" || return 1
                i=$((i + 1))
        done
        sort -t= -k5 -n "$work/wl" | awk '{ a[NR] = $0 } END { print a[int((NR + 1) / 2)] }'
}

plot_effect() {
        command -v gnuplot >/dev/null 2>&1 || { note "gnuplot is missing: no plot"; return 0; }
        [ -s "$out/effect.tsv" ] || return 0
        awk -F'\t' '{ printf "\"%d MB, P=%d\" %s %s %s %s\n", $1, $2, $3, ($4 == "" ? 0 : $4), $6, ($7 == "" ? 0 : $7) }' \
                "$out/effect.tsv" >"$work/effect.dat"
        gnuplot <<EOF
set terminal pngcairo size 1000,560 noenhanced
set output "$out/effect.png"
set multiplot layout 1,2 title "P processes attach one SysV segment and touch every page: 4 KB pages vs HugePages"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xtics rotate by -40
set logscale y
set grid ytics
set ylabel "page tables of the P processes, KB (VmPTE sum, log)"
plot "$work/effect.dat" using 2:xtic(1) title "4 KB pages", "" using 3 title "HugePages"
set ylabel "time to touch every page, ms (log)"
plot "$work/effect.dat" using 4:xtic(1) title "4 KB pages", "" using 5 title "HugePages"
unset multiplot
EOF
        say "  plot: $(basename "$out")/effect.png"
}

# ---------------------------------------------------------------- main
t_start=$(date +%s)
for sec in $sections; do
        summary=$out/summary-$sec.txt
        : >"$summary"
        "section_$sec"
done
summary=$out/summary-end.txt
: >"$summary"
say ""
say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); took $(( $(date +%s) - t_start )) s"
say "results: $out"
for sec in machine self peers scaling effect end; do
        [ -f "$out/summary-$sec.txt" ] && cat "$out/summary-$sec.txt"
done >"$out/summary.txt"
