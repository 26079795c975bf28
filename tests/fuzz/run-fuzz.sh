#!/bin/sh
# Build the expression fuzz target with libFuzzer and the sanitizers,
# straight from the sources (not the autotools library, whose flags lack
# -fsanitize=fuzzer), and run it for a bounded time over the seed corpus.
# Exit 77 (skipped) when clang or its libFuzzer runtime is missing.
#   FUZZ_SECONDS  run time, default 20
#   CLANG         compiler, default clang
set -eu

srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${top_builddir:-$srcdir}
seconds=${FUZZ_SECONDS:-20}
cc=${CLANG:-clang}

case $seconds in
''|*[!0-9]*) echo "run-fuzz.sh: FUZZ_SECONDS must be a whole number, got '$seconds'" >&2; exit 1 ;;
esac

if ! command -v "$cc" >/dev/null 2>&1; then
        echo "run-fuzz.sh: $cc not found, skipping"
        exit 77
fi

outdir=$builddir/tests/fuzz
mkdir -p "$outdir"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"

# A toolchain without the libFuzzer runtime is a skip, not a failure.
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! "$cc" $flags -o "$tmp/probe" "$tmp/probe.c" >/dev/null 2>&1; then
        echo "run-fuzz.sh: $cc cannot build with -fsanitize=fuzzer, skipping"
        exit 77
fi

# The sources include config.h; the library needs nothing from it but
# the GNU extensions configure would turn on.
printf '#define _GNU_SOURCE 1\n' >"$tmp/config.h"

bin=$outdir/fuzz-expr
"$cc" $flags -Wall -Wextra -Werror -Wno-unused-parameter -I"$tmp" -I"$srcdir/src" \
        -o "$bin" \
        "$srcdir/src/util.c" "$srcdir/src/expr.c" "$srcdir/tests/fuzz/fuzz-expr.c"

# libFuzzer adds what it finds to the first corpus directory: keep that a
# scratch copy so the seeds in the source tree stay as reviewed.
mkdir "$tmp/corpus"
cp "$srcdir"/tests/fuzz/corpus/expr/* "$tmp/corpus/"

echo "run-fuzz.sh: fuzzing the expression parser for ${seconds}s"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS UBSAN_OPTIONS
"$bin" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$outdir/crash-expr-" -print_final_stats=1 \
        "$tmp/corpus"
