#!/bin/sh
# A plan reads only the workload facts its expressions name: the facts of
# one workload (oracle) come without MySQL's option files, and a second
# workload named later (mysql after oracle, or oracle after mysql) and
# the process list add to what was read, with the values `facts` gives
# when it reads everything.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
d=$(copy_host debian12-kvm); scratch "$d"
echo 'oracle:x:54321:54321::/home/oracle:/bin/bash' >>"$d/etc/passwd"
mkdir -p "$tmp/profiles"
# if(defined(...)): a fact this host lacks reads as -1, not as an error
val() { printf '"= if(defined(facts.workload.%s), facts.workload.%s, -1)"' "$1" "$1"; }
cat >"$tmp/profiles/oracle-first.profile" <<END
summary = "oracle's facts, then mysql's";
params = {
        a_uid = $(val oracle.uid);
        b_pool = $(val mysql.config.innodb_buffer_pool_size);
        c_files = "= facts.workload.mysql.config.files";
};
END
cat >"$tmp/profiles/mysql-first.profile" <<END
summary = "mysql's facts, then oracle's";
params = {
        a_pool = $(val mysql.config.innodb_buffer_pool_size);
        b_uid = $(val oracle.uid);
};
END
cat >"$tmp/profiles/oracle-only.profile" <<END
summary = "oracle's facts only";
params = {
        a_uid = $(val oracle.uid);
};
END
ht() { "$HOSTTUNE" --root "$d" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" "$@"; }

ht --json facts >"$tmp/facts.json" 2>"$tmp/err"
uid=$(jq -r .workload.oracle.uid "$tmp/facts.json")
pool=$(jq -r .workload.mysql.config.innodb_buffer_pool_size "$tmp/facts.json")
check "the fixture has an oracle user and a buffer pool (facts reads every workload)" "54321 yes" \
        "$uid $([ "$pool" -gt 0 ] 2>/dev/null && echo yes || echo "no: $pool")"
param() { jq -r --arg n "$1" '.params[] | select(.name == $n) | .value' "$tmp/out"; }

run 0 "show oracle-first" --root "$d" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" \
        --json show oracle-first
check "oracle first: the oracle uid" "$uid" "$(param a_uid)"
check "oracle first: then mysql's pool, as facts has it" "$pool" "$(param b_pool)"
check "oracle first: mysql's option files read too" "$(jq -r '.workload.mysql.config.files | join(" ")' "$tmp/facts.json")" \
        "$(param c_files)"
run 0 "show mysql-first" --root "$d" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" \
        --json show mysql-first
check "mysql first: the pool" "$pool" "$(param a_pool)"
check "mysql first: then the oracle uid" "$uid" "$(param b_uid)"

# what a plan that names only oracle's facts opens: no MySQL option file
# The binary itself, not check-valgrind's wrapper: under valgrind, which
# has no openat2, the root context opens path components one by one and
# the trace would never show a whole path.
if command -v strace >/dev/null 2>&1; then
        strace -f -e trace=open,openat,openat2 -o "$tmp/trace" "$top_builddir/hosttune" --root "$d" \
                --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" show oracle-only >/dev/null 2>&1
        check "oracle only: the trace has the plan's passwd read" yes \
                "$(grep -q 'etc/passwd' "$tmp/trace" && echo yes || echo no)"
        check "oracle only: no MySQL file or unit looked at" "" \
                "$(grep -E 'etc/mysql|my\.cnf|mysqld|mariadb' "$tmp/trace" | head -3)"
else
        skip "oracle only: no MySQL file looked at" "strace is not installed"
        skip "oracle only: the trace has the plan's passwd read" "strace is not installed"
fi
finish
