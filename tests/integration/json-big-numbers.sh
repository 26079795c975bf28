#!/bin/sh
# Whole numbers above 2^53 and above INT64_MAX in --json, digit for digit
# (checked on the text: jq 1.6 reads numbers as doubles and would round
# them itself). A my.cnf's innodb_buffer_pool_size = 15E (MySQL's own
# suffixes: 17293822569102704640, above INT64_MAX) was null, as if
# unknown; 2^53+1 in a my.cnf, an shm segment and a JVM's -Xmx stay
# exact; the sysctl values of plan --json are strings (kernel.shmmax
# 18446744073692774399, the kernel's default); --facts reads a number
# above INT64_MAX as written (json-c's get_int64 gave INT64_MAX) and
# refuses one for a signed fact. TAP.
. "${top_srcdir:-.}/tests/integration/lib.sh"

h=$(copy_host debian12-kvm); scratch "$h"
big=17293822569102704640        # 15 << 60: 15E
odd=9007199254740993            # 2^53 + 1: a double holds 2^53 + 2 or 2^53
printf '[mysqld]\ninnodb_buffer_pool_size = 15E\nkey_buffer_size = %s\n' "$odd" \
        >"$h/etc/mysql/mariadb.conf.d/99-big.cnf"
{
        head -n 1 "$h/proc/sysvipc/shm"
        echo "         0      32769   600 $odd  1234  1234      1     0     0     0     0 0 0 0 0 0"
} >"$tmp/shm" && cp "$tmp/shm" "$h/proc/sysvipc/shm"
sed "s/-Xmx8g/-Xmx$odd/" "$h/proc/3001/cmdline" >"$tmp/cmdline" && cp "$tmp/cmdline" "$h/proc/3001/cmdline"

run 0 "facts --json" --root "$h" facts --json
cp "$tmp/out" "$tmp/facts.json"
# json-c before 0.14 (RHEL 8's 0.13.1) has no uint64: null there, as documented
jc=$(pkg-config --modversion json-c 2>/dev/null || echo 0.16)
case $jc in
0.1[0-3]|0.1[0-3].*) skip "15E in a my.cnf: exact, not null" "json-c $jc has no uint64" ;;
*) check_contains "15E in a my.cnf: exact, not null" "\"innodb_buffer_pool_size\": $big," "$tmp/facts.json" ;;
esac
check_contains "2^53+1 in a my.cnf: exact" "\"key_buffer_size\": $odd," "$tmp/facts.json"
check_contains "2^53+1 bytes of shm: exact" "\"size_bytes\": $odd," "$tmp/facts.json"
check_contains "2^53+1 bytes of shm: the total too" "\"total_bytes\": $odd," "$tmp/facts.json"
check_contains "-Xmx of 2^53+1 bytes: exact" "\"max_heap_bytes\": $odd," "$tmp/facts.json"
run 0 "facts (text)" --root "$h" facts
case $jc in
0.1[0-3]|0.1[0-3].*) skip "facts (text): 15E exact" "json-c $jc has no uint64" ;;
*) check "facts (text): 15E exact" "$big" \
        "$(sed -n 's/^workload\.mysql\.config\.innodb_buffer_pool_size  *//p' "$tmp/out")" ;;
esac

# plan --json: the sysctl values are strings, as the kernel prints them
run 2 "plan --json" --root "$h" --profile-path "$top_srcdir/profiles" --rules-path "$top_srcdir/rules" \
        plan oracle --json
check_contains "plan --json: kernel.shmmax's current value as the kernel prints it" \
        '"current": "18446744073692774399"' "$tmp/out"
# a profile reads the 15E as unknown (an expression's numbers are int64),
# never as json-c's INT64_MAX
mkdir -p "$tmp/p"
cat >"$tmp/p/e.profile" <<'EOP'
summary = "a fact above INT64_MAX in an expression";
params = { pool = "= facts.workload.mysql.config.innodb_buffer_pool_size"; };
sysctl = { kernel = { shmmax = "= pool"; }; };
EOP
run 1 "a profile reading 15E" --root "$h" --profile-path "$tmp/p" --rules-path "$top_srcdir/rules" plan e
check_contains "... reads it as unknown" "sysctl kernel.shmmax: the value is unknown on this host" "$tmp/err"

# --facts: above INT64_MAX as written; a signed fact refuses it
img=$(offline_image img debian12-kvm)
sed 's/"swap_total_kb": [0-9]*/"swap_total_kb": 9223372036854775808/' "$tmp/facts.json" >"$tmp/f1.json"
run 0 "--facts with swap_total_kb 2^63" --root "$img" --facts "$tmp/f1.json" facts --json
case $jc in
0.1[0-3]|0.1[0-3].*) skip "--facts: 2^63 read as written" "json-c $jc has no uint64" ;;
*) check_contains "--facts: 2^63 read as written" '"swap_total_kb": 9223372036854775808' "$tmp/out" ;;
esac
sed 's/"pad_threshold": [0-9null]*/"pad_threshold": 9223372036854775808/' "$tmp/facts.json" >"$tmp/f2.json"
case $jc in
0.1[0-3]|0.1[0-3].*) skip "--facts: the signed fact refused" "json-c $jc reads 2^63 as 2^63-1" ;;
*)
        run 1 "--facts with hugetext.pad_threshold 2^63" --root "$img" --facts "$tmp/f2.json" facts --json
        check_contains "--facts: the signed fact refused, named" \
                "hugetext.pad_threshold: 9223372036854775808 is not a value this fact can have" "$tmp/err" ;;
esac
finish
