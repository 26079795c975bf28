#!/bin/sh
# Build every libFuzzer target (tests/fuzz/fuzz-*.c) with the sanitizers,
# straight from the sources (the autotools library lacks
# -fsanitize=fuzzer), and run each for a bounded time over its seeds: the
# reviewed ones in tests/fuzz/corpus/NAME and the matching files of the
# fixture hosts. With FUZZ_REPLAY=1 (make check) each target runs its
# seeds once and no more: the library is built without optimisation
# (compiled in less than half the time, in tests/fuzz/obj-replay), and the
# fuzzing itself is `make fuzz` and .ci/run's own stage. Any crash, leak, sanitizer report or broken invariant
# fails the run; the input is kept as tests/fuzz/crash-NAME-* in the build
# tree. Speaks TAP (a check per target); a skip ("1..0 # SKIP") when clang
# or its libFuzzer runtime is missing.
#   FUZZ_SECONDS  run time per target, default 20; 0 skips
#   FUZZ_REPLAY   1: run each target over its seeds once (make check's)
#   FUZZ_TARGETS  names to run (e.g. "grub limits"), default all
#   FUZZ_JOBS     parallel compiles and targets run at once, default 2
#   CLANG         compiler, default clang
set -eu

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-2}
cc=${CLANG:-clang}

case $seconds in
''|*[!0-9]*) echo "run-fuzz.sh: FUZZ_SECONDS must be a whole number, got '$seconds'" >&2; exit 1 ;;
esac

if [ "$seconds" -eq 0 ]; then
        echo "1..0 # SKIP FUZZ_SECONDS=0"
        exit 0
fi
if ! command -v "$cc" >/dev/null 2>&1; then
        echo "1..0 # SKIP $cc not found"
        exit 0
fi

replay=${FUZZ_REPLAY:-0}
outdir=$builddir/tests/fuzz
objdir=$outdir/obj
opt=-O1
if [ "$replay" = 1 ]; then
        objdir=$outdir/obj-replay opt=-O0
fi
mkdir -p "$objdir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

san="-g $opt -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"

# A toolchain without the libFuzzer runtime is a skip, not a failure.
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! "$cc" $san -fsanitize=fuzzer -o "$tmp/probe" "$tmp/probe.c" >/dev/null 2>&1; then
        echo "1..0 # SKIP $cc cannot build with -fsanitize=fuzzer"
        exit 0
fi

pkgs="libconfig libsystemd mount audit json-c"
if ! deps_cflags=$(pkg-config --cflags $pkgs) || ! deps_libs=$(pkg-config --libs $pkgs); then
        echo "run-fuzz.sh: pkg-config does not find $pkgs" >&2
        exit 1
fi

# The sources include config.h: configure's when there is one, else the
# little the library needs from it.
if [ -f "$builddir/config.h" ]; then
        cp "$builddir/config.h" "$objdir/config.h"
else
        printf '#define _GNU_SOURCE 1\n#define PACKAGE_VERSION "0.0"\n#define VERSION "0.0"\n' >"$objdir/config.h"
fi
cflags="$san -Wall -Wextra -Werror -Wno-unused-parameter -I$objdir -I$srcdir/src $(for d in "$srcdir"/src/*/; do printf -- '-I%s ' "${d%/}"; done)$deps_cflags"
cflags="$cflags -DHT_DATADIR=\"/usr/share/hosttune\" -DHT_SYSCONFDIR=\"/etc\" -DFUZZ_SRCDIR=\"$srcdir\""

# The library, once for all targets, instrumented for coverage; an object
# is rebuilt when its source, any header or the flags changed.
echo "$cflags" >"$tmp/flags"
if ! cmp -s "$tmp/flags" "$objdir/flags" 2>/dev/null; then
        rm -f "$objdir"/*.o
        cp "$tmp/flags" "$objdir/flags"
fi
newest_h=$(ls -t "$srcdir"/src/*/*.h "$srcdir"/tests/fuzz/*.h | head -1)
: >"$tmp/todo"
for c in "$srcdir"/src/*.c "$srcdir"/src/*/*.c; do
        name=$(basename "$c" .c)
        [ "$name" = hosttune ] && continue
        o=$objdir/$name.o
        if [ ! -f "$o" ] || [ "$c" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then
                echo "$c" >>"$tmp/todo"
        fi
done
if [ -s "$tmp/todo" ]; then
        echo "# run-fuzz.sh: compiling $(wc -l <"$tmp/todo") library sources"
        # shellcheck disable=SC2016
        xargs -P "$jobs" -I{} sh -c '"$1" $2 -fsanitize=fuzzer-no-link -c -o "$3/$(basename "$4" .c).o" "$4"' \
                sh "$cc" "$cflags" "$objdir" {} <"$tmp/todo"
fi
objs=
for c in "$srcdir"/src/*.c "$srcdir"/src/*/*.c; do
        name=$(basename "$c" .c)
        [ "$name" = hosttune ] || objs="$objs $objdir/$name.o"
done

# Seeds from the fixture hosts: files of the format each target reads.
fixture_seeds() {
        hosts=$srcdir/tests/hosts
        case $1 in
        profile) ls "$srcdir"/profiles/*.profile "$srcdir"/rules/*.rules ;;
        grub) find "$hosts" -path '*/etc/default/grub*' -type f ;;
        bls) find "$hosts" \( -path '*/loader/entries/*.conf' -o -name grubenv -o -path '*/etc/kernel/cmdline' \) -type f ;;
        grub-legacy) find "$hosts" \( -name grub.conf -o -name menu.lst \) -type f ;;
        limits) find "$hosts" -path '*/etc/security/limits*' -type f ;;
        mycnf) find "$hosts" \( -name '*.cnf' -o -name my.cnf.fallback \) -type f ;;
        jvm) find "$hosts" "$srcdir/tests/integration/jvm-elasticsearch" -path '*/proc/*' \( -name cmdline -o -name environ \) -type f ;;
        oracle) find "$hosts" \( -path '*/dbs/*.ora' -o -path '*/pfile/*.ora' \) -type f ;;
        sysctl) find "$hosts" \( -path '*/sysctl.d/*' -o -name sysctl.conf \) -type f ;;
        meminfo) find "$hosts" -path '*/proc/meminfo' -type f ;;
        block) find "$hosts" -path '*/queue/scheduler' -type f ;;
        accounts) find "$hosts" \( -path '*/etc/passwd' -o -path '*/etc/group' \) -type f ;;
        shm) find "$hosts" -path '*/proc/sysvipc/shm' -type f ;;
        cmdline-words) find "$hosts" -path '*/proc/cmdline' -type f ;;
        facts) find "$hosts" \( -name os-release -o -name '*-release' -o -name cpuinfo -o -name mountinfo -o -path '*/proc/cmdline' \) -type f ;;
        diff) find "$hosts" -path '*/etc/default/grub' -type f ;;
        udev) find "$hosts" -name '*.rules' -path '*/udev/*' -type f ;;
        systemd-conf) find "$hosts" \( -path '*/systemd/logind.conf*' -o -path '*/systemd/system.conf*' \) -type f ;;
        tuned) find /usr/lib/tuned "$srcdir/tests/fixtures/tuned-format" -name '*.conf' -type f 2>/dev/null ;;
        unit) find "$srcdir/tests/units" "$hosts" \( -name '*.service' -o -path '*.service.d/*.conf' \) -type f ;;
        esac
}

targets=${FUZZ_TARGETS:-$(cd "$srcdir/tests/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')}
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$srcdir/tests/fuzz/lsan.supp:print_suppressions=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# run_target NAME N: link target NAME, gather its seeds and run it; its
# TAP line (check N) goes to $tmp/tap-N, and $tmp/failed-N marks a failure.
run_target() {
        t=$1 t_n=$2
        src=$srcdir/tests/fuzz/fuzz-$t.c
        bin=$outdir/fuzz-$t
        # shellcheck disable=SC2086
        if ! "$cc" $cflags -fsanitize=fuzzer -o "$bin" "$src" $objs $deps_libs >"$tmp/log-$t" 2>&1; then
                sed 's/^/# /' "$tmp/log-$t"
                echo "not ok $t_n - fuzz-$t: does not build"
                : >"$tmp/failed-$t_n"
                return 0
        fi

        # libFuzzer adds what it finds to the first corpus directory: keep
        # that a scratch copy so the seeds in the source tree stay reviewed.
        corpus=$tmp/corpus-$t
        mkdir -p "$corpus"
        if [ -d "$srcdir/tests/fuzz/corpus/$t" ]; then
                cp "$srcdir/tests/fuzz/corpus/$t"/* "$corpus/"
        fi
        i=0
        for f in $(fixture_seeds "$t" | sort); do
                [ -L "$f" ] && continue
                i=$((i + 1))
                cp "$f" "$corpus/fixture-$i"
        done

        if [ "$replay" = 1 ]; then
                # every seed once (-runs=0: the corpus is read and run, no more)
                set -- -runs=0
                echo "# run-fuzz.sh: replaying $t's $(ls "$corpus" | wc -l) seeds"
        else
                # make check sets FUZZ_RUNS: a fixed seed and count make
                # its short runs repeatable (a slow machine only stops
                # earlier in the same sequence); `make fuzz` explores at random
                set -- ${FUZZ_RUNS:+-runs=$FUZZ_RUNS -seed=1} -max_total_time="$seconds"
                echo "# run-fuzz.sh: fuzzing $t for ${seconds}s ($(ls "$corpus" | wc -l) seeds)"
        fi
        # each target gets its own scratch TMPDIR: a target that empties its
        # scratch space must never reach this script's logs and corpora
        mkdir -p "$tmp/scratch-$t"
        if TMPDIR=$tmp/scratch-$t "$bin" "$@" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
                -artifact_prefix="$outdir/crash-$t-" -print_final_stats=1 \
                "$corpus" >"$tmp/log-$t" 2>&1; then
                execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log-$t")
                cov=$(grep -o 'cov: [0-9]*' "$tmp/log-$t" | tail -1)
                if [ "$replay" = 1 ]; then
                        echo "ok $t_n - fuzz-$t: its seeds replayed (${execs:-?} executions, $cov)"
                else
                        echo "ok $t_n - fuzz-$t: ${execs:-?} executions, $cov"
                fi
        else
                tail -60 "$tmp/log-$t" | sed 's/^/# /'
                echo "not ok $t_n - fuzz-$t: failed (input kept as $outdir/crash-$t-*)"
                : >"$tmp/failed-$t_n"
        fi
}

# FUZZ_JOBS targets at a time, each a process of its own: a fuzzer keeps
# one CPU busy, so in turn the targets left the other CPU idle for the
# whole stage (25 targets x FUZZ_SECONDS). Each still gets its
# FUZZ_SECONDS; their reports are printed in order once all have run.
t_n=0
running=0
for t in $targets; do
        [ -f "$srcdir/tests/fuzz/fuzz-$t.c" ] || { echo "run-fuzz.sh: no target $t" >&2; exit 1; }
        t_n=$((t_n + 1))
        run_target "$t" "$t_n" >"$tmp/tap-$t_n" 2>&1 &
        running=$((running + 1))
        if [ "$running" -ge "$jobs" ]; then
                wait
                running=0
        fi
done
wait
failed=
i=0
for t in $targets; do
        i=$((i + 1))
        cat "$tmp/tap-$i"
        grep -q "^\(not \)\?ok $i " "$tmp/tap-$i" || { echo "not ok $i - fuzz-$t: gave no report"; : >"$tmp/failed-$i"; }
        if [ -e "$tmp/failed-$i" ]; then failed="$failed $t"; fi
done
echo "1..$t_n"
if [ -n "$failed" ]; then
        echo "# run-fuzz.sh: failures:$failed"
        exit 1
fi
