#!/bin/sh
# The rooms' layering (issue 36), read from the built objects by
# tools/check-layering.py: nothing under src/plan uses the backend
# registry (the planner is a command); no .c file of plan/, render/,
# commands/ or backends/ is over 1,500 lines; the cmdline backend's
# bootloader kinds never call back into backend-cmdline.c (a call back
# would make a ring with it, which -v lists edge by edge); backend.h does
# not include plan.h (the profile room includes backend.h). TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"
command -v nm >/dev/null 2>&1 || skip_all "nm (binutils) is not installed"
lib=$top_builddir/libhosttune.a cli=$top_builddir/src/hosttune.o
[ -f "$lib" ] && [ -f "$cli" ] || skip_all "$lib or $cli not built"

python3 "$top_srcdir/tools/check-layering.py" -v "$top_srcdir" "$lib" "$cli" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "check-layering.py ran (exit 0 or 1: findings)" yes "$([ "$rc" -le 1 ] && [ ! -s "$tmp/err" ] && echo yes || echo no)"
check "no file under src/plan uses the registry" "" "$(grep '^registry:' "$tmp/out")"
check "no .c file of plan/, render/, commands/, backends/ over 1,500 lines" "" \
        "$(grep -E '^size: src/(plan|render|commands|backends)/' "$tmp/out")"
check "no cmdline kind file calls backend-cmdline.c" "" \
        "$(grep -E '^  src/backends/cmdline-[a-z0-9-]+\.c -> src/backends/backend-cmdline\.c ' "$tmp/out")"
check "no cycle between render/ or the planner and the rest" "" \
        "$(grep '^cycle:' "$tmp/out" | grep -E 'src/render/|src/commands/planner\.c')"
check "backend.h does not include plan.h" "" "$(grep -n '^#include "plan.h"' "$top_srcdir/src/backends/backend.h")"
check "the planner and rendering are out of src/plan" "" \
        "$(cd "$top_srcdir/src/plan" && ls planner.c render.c render-plan.c 2>/dev/null)"

finish
