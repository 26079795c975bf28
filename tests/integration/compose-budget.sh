#!/bin/sh
# Issue 37: workload profiles compose by meaning, and one memory budget.
# On fixture copies: oracle+jvm and jvm+oracle plan the same (Oracle's
# HugePages kept, THP never because Oracle requires it, swappiness the
# lowest); mysql+jvm sums both pools; two workloads that require values
# that exclude each other, or whose bounds leave no value, are an error
# naming both files and lines; where nothing is declared the order
# decides and the plan says so; budget agrees with plan on every fixture;
# a what-if that fits and one that does not.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
RULES=$top_srcdir/rules
p=$tmp/profiles
mkdir -p "$p"
ht() { # ROOT ARGS...: hosttune on a fixture with the site profiles first
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$p" --profile-path "$PROFILES" --rules-path "$RULES" "$@" \
                >"$tmp/out" 2>"$tmp/err"
}
# pages FILE: the plan's vm.nr_hugepages ("" when it plans none)
pages() { jq -r '[.changes[] | select(.backend == "sysctl" and .key == "vm.nr_hugepages") | .desired][0] // ""' "$1"; }
# the plan without the profile's own name (the managed files' headers say it)
same_plan() { jq -S 'del(.profile)' "$1" | sed 's/(profile [a-z0-9+-]*)/(profile P)/g'; }

# --- Oracle with a Java agent: the order of the inherit list changes nothing
printf 'inherit = [ "oracle", "jvm" ];\n' >"$p/ora-jvm.profile"
printf 'inherit = [ "jvm", "oracle" ];\n' >"$p/jvm-ora.profile"
o=$(copy_host oracle-running); scratch "$o"
ht "$o" --json plan oracle; cp "$tmp/out" "$tmp/oracle.json"
ht "$o" --json plan ora-jvm; rc1=$?; cp "$tmp/out" "$tmp/ora-jvm.json"; cp "$tmp/err" "$tmp/ora-jvm.err"
ht "$o" --json plan jvm-ora; rc2=$?; cp "$tmp/out" "$tmp/jvm-ora.json"
ht "$o" --json plan oracle+jvm; rc3=$?; cp "$tmp/out" "$tmp/cmdline.json"
check "oracle+jvm: plan exits 2 (changes)" "2 2 2" "$rc1 $rc2 $rc3"
check "oracle+jvm: Oracle's own HugePages (10242), not none" "$(pages "$tmp/oracle.json")" "$(pages "$tmp/ora-jvm.json")"
check "oracle+jvm and jvm+oracle plan the same" "$(same_plan "$tmp/ora-jvm.json")" "$(same_plan "$tmp/jvm-ora.json")"
check "oracle+jvm on the command line plans as the site profile" "$(same_plan "$tmp/ora-jvm.json")" \
        "$(same_plan "$tmp/cmdline.json")"
check "THP stays never (Oracle requires it; the JVM only prefers madvise)" "" \
        "$(jq -r '[.changes[] | select(.key | test("transparent_hugepage")) | select(.desired | test("madvise"))] | length | select(. > 0)' "$tmp/ora-jvm.json")"
check "swappiness: the lowest of Oracle's 10 and Elastic's 1" "1" \
        "$(jq -r '[.changes[] | select(.key == "vm.swappiness") | .desired][0]' "$tmp/ora-jvm.json")"
check "no order-based conflict is reported" "0" \
        "$(jq '[.warnings[] | select(test("conflict:|order decides"))] | length' "$tmp/ora-jvm.json")"
ht "$o" show jvm-ora
check_contains "show: THP composed by requires" "= never (requires): oracle requires never" "$tmp/out"
check_contains "show: THP lists the JVM's preference and where it is declared" "jvm only prefers madvise at $PROFILES/jvm.profile:" "$tmp/out"
check_contains "show: every contributor with its source" "rule thp-sysfs (" "$tmp/out"
check_contains "show: swappiness, lowest" "sysctl vm.swappiness = 1 (lowest)" "$tmp/out"

# limits: of different users they never meet; of one user the highest minimum
ht "$o" --json show oracle+jvm --set jvm_user=elastic
check "two users: each keeps its own nofile limits" \
        "elastic hard nofile 65535|elastic soft nofile 65535|oracle hard nofile 65536|oracle soft nofile 1024" \
        "$(jq -r '[.settings[] | select(.backend == "limits" and .item == "nofile") | "\(.key) \(.value)"] | sort | join("|")' "$tmp/out")"
ht "$o" --json show oracle+jvm --set jvm_user=oracle
check "one user: the highest minimum of each (Elastic's soft 65535, Oracle's hard 65536)" \
        "oracle hard nofile 65536|oracle soft nofile 65535" \
        "$(jq -r '[.settings[] | select(.backend == "limits" and .item == "nofile") | "\(.key) \(.value)"] | sort | join("|")' "$tmp/out")"

# --- MySQL beside a JVM with large pages: both pools, summed --------------
d=$(copy_host debian12-kvm); scratch "$d"
printf 'inherit = [ "mysql", "jvm" ];\nparams = { innodb_buffer_pool_size = "2G"; };\n' >"$p/my-jvm.profile"
ht "$d" --json plan mysql --set innodb_buffer_pool_size=2G; my=$(pages "$tmp/out")
ht "$d" --json plan jvm; jv=$(pages "$tmp/out")
ht "$d" --json plan my-jvm; both=$(pages "$tmp/out")
check "mysql+jvm: each workload sizes its own pool (mysql 1026, jvm 4370)" "1026 4370" "$my $jv"
check "mysql+jvm: the HugePages are the sum of both pools" "$((my + jv))" "$both"
ht "$d" show my-jvm
check_contains "show: the sum names each workload's pages" "jvm 4370 (rule hugepages-from-size" "$tmp/out"
check_contains "show: ... and mysql's" "mysql 1026 (rule hugepages-from-size" "$tmp/out"

# --- contradictions: an error naming both files and lines ----------------
cat >"$p/needs-never.profile" <<'EOF'
inherit = "base";
params = {
        thp = "never";
        requires = "thp";
};
EOF
cat >"$p/needs-always.profile" <<'EOF'
inherit = "base";
params = {
        thp = "always";
        requires = "thp";
};
EOF
printf 'inherit = [ "needs-never", "needs-always" ];\n' >"$p/clash.profile"
ht "$o" plan clash
check "two workloads requiring different THP: plan fails" 1 $?
check_contains "the error names the first file and line" "$p/needs-never.profile:4" "$tmp/err"
check_contains "the error names the second file and line" "$p/needs-always.profile:4" "$tmp/err"
check_contains "the error says what excludes what" "two workloads require values that exclude each other" "$tmp/err"
cat >"$p/maps-min.profile" <<'EOF'
inherit = "base";
params = { prefers = ""; };
sysctl = { vm = { max_map_count = { value = 300000; bound = "at-least"; }; }; };
EOF
cat >"$p/maps-max.profile" <<'EOF'
inherit = "base";
params = { prefers = ""; };
sysctl = { vm = { max_map_count = { value = 200000; bound = "at-most"; }; }; };
EOF
printf 'inherit = [ "maps-min", "maps-max" ];\n' >"$p/empty-range.profile"
ht "$o" plan empty-range
check "a minimum above a maximum: plan fails" 1 $?
check_contains "the empty range names the minimum's file and line" "$p/maps-min.profile:3" "$tmp/err"
check_contains "... and the maximum's" "$p/maps-max.profile:3" "$tmp/err"
# bounds that meet: the highest minimum, the lowest maximum, a range
sed 's/200000/400000/' "$p/maps-max.profile" >"$p/maps-max2.profile"
printf 'inherit = [ "maps-max2", "maps-min" ];\n' >"$p/range.profile"
ht "$o" --json show range
check "a minimum and a maximum that meet become a range" "300000..400000 range" \
        "$(jq -r '.settings[] | select(.key == "vm.max_map_count") | "\(.value) \(.bound)"' "$tmp/out")"
# nothing declared: the order decides, and the plan says so
cat >"$p/dirty-a.profile" <<'EOF'
inherit = "base";
params = { prefers = ""; };
sysctl = { vm = { dirty_ratio = 10; }; };
EOF
sed 's/= 10;/= 25;/' "$p/dirty-a.profile" >"$p/dirty-b.profile"
printf 'inherit = [ "dirty-a", "dirty-b" ];\n' >"$p/dirty.profile"
ht "$o" --json plan dirty
check "nothing declared: the later in the inherit list wins" "25" \
        "$(jq -r '[.changes[] | select(.key == "vm.dirty_ratio") | .desired][0]' "$tmp/out")"
check "... and the plan says the order decided" "1" \
        "$(jq '[.warnings[] | select(startswith("order decides: sysctl vm.dirty_ratio"))] | length' "$tmp/out")"

# --- the budget agrees with the plan on every fixture --------------------
for h in "$HOSTS"/*/; do
        h=${h%/}
        name=${h##*/}
        ht "$h" --json budget
        bprof=$(jq -r .profile "$tmp/out")
        bpages=$(jq -r .hugepages.planned_pages "$tmp/out")
        bschema=$(jq -r '[.consumers[] | select(.kind == "reserve")] | length' "$tmp/out")
        ht "$h" --json plan "$bprof"
        ppages=$(pages "$tmp/out")
        check "$name: budget ($bprof) and plan plan the same HugePages, with the reserve listed" \
                "${ppages:-0} 1" "$bpages $bschema"
done
ht "$o" --json budget
check "oracle-running: the budget composes what the facts find" "oracle+jvm" "$(jq -r .profile "$tmp/out")"
check "oracle-running: each Oracle instance, AMM marked, and the JVM" \
        "oracle ORCL 19327352832|oracle TEST 0 AMM|oracle DEV 2147483648|jvm 2210 0" \
        "$(jq -r '[.consumers[] | select(.kind == "oracle" or .kind == "jvm") | "\(.name) \(.hugepages_bytes)\(if (.note // "" | test("AMM")) then " AMM" else "" end)"] | join("|")' "$tmp/out")"
check "oracle-running: the cap is Oracle's 70 %" "70" "$(jq -r .hugepages.cap_percent "$tmp/out")"

# --- what-if: one that fits, one that does not ---------------------------
b=$(copy_host baremetal-numa); scratch "$b"
ht "$b" --json budget --what-if oracle:sga_max_size=48G
check "what-if 48 GB SGA on 251 GB: exit 0, it fits" "0 true" "$? $(jq -r .what_if.fits "$tmp/out")"
check "what-if: 48 GB of HugePages planned (24578 pages), as plan would" "24578" \
        "$(jq -r .what_if.hugepages.planned_pages "$tmp/out")"
check "what-if: apply would set vm.nr_hugepages" "24578" \
        "$(jq -r '.what_if.apply_would_change[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/out")"
check "what-if: the planned consumer is listed" "oracle (what-if)" \
        "$(jq -r '.what_if.consumers[] | select(.kind == "planned") | .name' "$tmp/out")"
ht "$b" budget --what-if oracle:sga_max_size=200G
check "what-if 200 GB SGA: exit 2, it does not fit" 2 $?
check_contains "the answer says it does not fit" "fits: no" "$tmp/out"
check_contains "... that HugePages may take at most Oracle's 70 %" "may take at most 70%" "$tmp/out"
check_contains "... and what must give" "23.87 GB must give" "$tmp/out"
ht "$b" budget --what-if 'oracle:sga_max_size'
check "a what-if that is not NAME=VALUE: exit 1" 1 $?
check_contains "... named" "--what-if oracle:sga_max_size: 'sga_max_size' is not NAME=VALUE" "$tmp/err"

echo "1..$n"
[ "$failed" = 0 ]
