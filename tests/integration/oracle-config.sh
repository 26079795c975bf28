#!/bin/sh
# Oracle sizes itself from its own parameter files: oratab, the binary
# spfile (read here a second way, by shell tools cutting the 512-byte
# blocks, and compared with what hosttune found), a pfile with IFILE
# includes, SID-specific values, an AMM database left out with a
# warning, --set winning, and broken files that warn without breaking
# the plan. Expected values come from the fixture files, not hosttune.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
H=/u01/app/oracle/product/19.0.0/dbhome_1
ht() { r=$1; shift; "$HOSTTUNE" --root "$r" --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" "$@"; }
d=$(copy_host oracle-running); scratch "$d"
ht "$d" --json facts >"$tmp/facts.json" 2>"$tmp/err"
db() { jq -r --arg s "$1" ".workload.oracle.databases[] | select(.sid == \$s) | .$2" "$tmp/facts.json"; }

# --- the spfile, read a second way -------------------------------------------
# Blocks 1.. each give bytes 21-508 (a 20-byte header, a 4-byte tail);
# the text ends at the first NUL. dd, tail, head and tr, not the C code.
spf="$d$H/dbs/spfileORCL.ora"
blocks=$(($(wc -c <"$spf") / 512))
i=1
: >"$tmp/spf.txt"
while [ $i -lt $blocks ]; do
        dd if="$spf" bs=512 skip=$i count=1 2>/dev/null | tail -c +21 | head -c 488 >>"$tmp/spf.txt"
        i=$((i + 1))
done
tr '\0' '\n' <"$tmp/spf.txt" | sed '/^$/,$d' >"$tmp/spf.params"
val() { sed -n "s/^\*\.$1=//p" "$tmp/spf.params" | tr -d "'"; }
bytes() { # 18G, 6144m, 1500 -> bytes
        case $1 in
        *[gG]) echo $((${1%?} * 1073741824)) ;;
        *[mM]) echo $((${1%?} * 1048576)) ;;
        *[kK]) echo $((${1%?} * 1024)) ;;
        *) echo "$1" ;;
        esac
}
check "the spfile's text holds 32 parameter lines" 32 "$(wc -l <"$tmp/spf.params")"
check "a parameter line spans a block boundary (sga_max_size at byte 972 of the text)" 972 \
        "$(grep -bo '^\*\.sga_max_size' "$tmp/spf.params" | cut -d: -f1)"
for p in sga_max_size sga_target pga_aggregate_target; do
        check "ORCL $p: the spfile's $(val $p)" "$(bytes "$(val $p)")" "$(db ORCL $p)"
done
check "ORCL processes: the spfile's" "$(val processes)" "$(db ORCL processes)"
check "ORCL use_large_pages: the spfile's" "$(val use_large_pages)" "$(db ORCL use_large_pages)"
check "ORCL reads its spfile" "$H/dbs/spfileORCL.ora" "$(db ORCL parameter_file)"
check "ORCL runs (ora_pmon_ORCL, pid 1234)" true "$(db ORCL running)"
check "ORCL starts at boot (Y)" true "$(db ORCL start)"
check "ORCL's home owner: the directory's" "$(stat -c %U "$d$H")" "$(db ORCL owner)"

# --- oratab, pfiles, IFILE -----------------------------------------------------
check "oratab: four entries, comments skipped" "ORCL +ASM TEST DEV" \
        "$(jq -r '[.workload.oracle.databases[].sid] | join(" ")' "$tmp/facts.json")"
check "+ASM is an ASM instance, not sized" "true 0 null" "$(db +ASM asm) $(db +ASM hugepages_bytes) $(db +ASM parameter_file)"
check "DEV: pfile initDEV.ora (no spfile)" "$H/dbs/initDEV.ora" "$(db DEV parameter_file)"
check "DEV: DEV.sga_max_size=2G (IFILE=?/dbs/sizes_dev.ora) wins over *.sga_max_size=1G" 2147483648 "$(db DEV sga_max_size)"
check "DEV: a value continued with a backslash (pga_aggregate_target 512M)" 536870912 "$(db DEV pga_aggregate_target)"
check "DEV: lock_sga = true" true "$(db DEV lock_sga)"
check "DEV is not running" false "$(db DEV running)"
check "TEST: processes = 300 from its IFILE" 300 "$(db TEST processes)"
check "TEST: memory_target=4G, AMM" 4294967296 "$(db TEST memory_target)"
check "TEST: left out of the HugePages sum" 0 "$(db TEST hugepages_bytes)"
check_contains "TEST: the warning names it and AMM" "oracle TEST: " "$tmp/err"
check "sga_bytes: ORCL 18G + DEV 2G" $((20 * 1073741824)) "$(jq .workload.oracle.sga_bytes "$tmp/facts.json")"
check "sga_bytes_from: the two files" "$H/dbs/spfileORCL.ora, $H/dbs/initDEV.ora" \
        "$(jq -r .workload.oracle.sga_bytes_from "$tmp/facts.json")"

# --- the profile sizes itself ---------------------------------------------------
ht "$d" --color=never show oracle >"$tmp/show" 2>&1
sga_line=$(grep -n 'sga_max_size = "= facts' "$top_srcdir/profiles/oracle.profile" | cut -d: -f1)
check_contains "show: sga_max_size with its files" \
        "profiles/oracle.profile:$sga_line from $H/dbs/spfileORCL.ora, $H/dbs/initDEV.ora" "$tmp/show"
ht "$d" --json plan oracle >"$tmp/plan.json" 2>"$tmp/err"
check "plan: nr_hugepages = ceil(20G / 2M) + 2" 10242 \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan.json")"
check "plan: the AMM database is a warning, not an error" "1 0" \
        "$(jq '[.warnings[] | select(startswith("oracle TEST:"))] | length' "$tmp/plan.json") $(jq '.errors | length' "$tmp/plan.json")"
ht "$d" --json plan oracle --set sga_max_size=4G >"$tmp/plan4.json" 2>"$tmp/err"
check "--set sga_max_size=4G wins: 2050 pages" 2050 \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan4.json")"
ht "$d" --json show oracle --set sga_max_size=4G >"$tmp/show4.json" 2>"$tmp/err"
check "--set: the source is --set, no files" "--set" \
        "$(jq -r '.params[] | select(.name == "sga_max_size") | .source' "$tmp/show4.json")"

# --- broken files warn, the rest of the host is planned -------------------------
b=$(copy_host oracle-running); scratch "$b"
printf 'garbage' | dd of="$b$H/dbs/spfileORCL.ora" bs=1 seek=513 conv=notrunc 2>/dev/null
printf 'IFILE=%s\n' "$H/dbs/initDEV.ora" >>"$b$H/dbs/sizes_dev.ora"
printf "*.sga_target='18G\n" >>"$b$H/dbs/initDEV.ora"
ht "$b" --json plan oracle >"$tmp/bad.json" 2>"$tmp/err"
rc=$?
check "broken files: the plan still works (exit 2, no errors)" "2 0" "$rc $(jq '.errors | length' "$tmp/bad.json")"
jq -r '.warnings[]' "$tmp/bad.json" >"$tmp/bad.warn"
check_contains "a torn spfile block is named" "spfileORCL.ora: not a server parameter file Oracle writes (block 1:" "$tmp/bad.warn"
check_contains "an IFILE loop is named and not followed" "initDEV.ora: included again (an IFILE loop)" "$tmp/bad.warn"
check_contains "an unterminated quote names file:line" "initDEV.ora:8: a quoted value does not end" "$tmp/bad.warn"
check "only DEV's 2G is left: 1026 pages" 1026 \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/bad.json")"

# --- SGA_TARGET above SGA_MAX_SIZE: the instance starts with SGA_TARGET ----------
# Oracle Database Administrator's Guide, "Setting Maximum SGA Size": an
# SGA_MAX_SIZE below what the components need at startup is ignored. A
# DBA who raised DEV's sga_target to 3G in its file and left
# sga_max_size at 2G gets a 3G SGA; 2G of HugePages would leave 1G of it
# in 4 KB pages. Before, sga_max_size alone was taken when set.
g=$(copy_host oracle-running); scratch "$g"
printf 'DEV.sga_target = 3G\n' >>"$g$H/dbs/sizes_dev.ora"
ht "$g" --json facts >"$tmp/fg.json" 2>/dev/null
check "DEV: sga_max_size 2G and sga_target 3G as written, 3G for HugePages" \
        "2147483648 3221225472 3221225472" \
        "$(jq -r '.workload.oracle.databases[] | select(.sid == "DEV") | "\(.sga_max_size) \(.sga_target) \(.hugepages_bytes)"' "$tmp/fg.json")"
check "sga_bytes: ORCL 18G + DEV 3G" $((21 * 1073741824)) "$(jq .workload.oracle.sga_bytes "$tmp/fg.json")"

# --- oracle_user: the homes' owner, named through the root's /etc/passwd -------
# The fixture's home is owned by whoever checked it out: not an Oracle
# installation owner (root, or a uid the fixture does not know), so it
# is not taken. A copy whose home belongs to orasw, in oinstall, is.
check "the checkout's owner of the home is not taken" null "$(jq .workload.oracle.owner "$tmp/facts.json")"
o=$(copy_host oracle-running); scratch "$o"
if [ "$(id -u)" -eq 0 ]; then ouid=54329; chown "$ouid" "$o$H"; else ouid=$(id -u); fi
if cut -d: -f3 "$o/etc/passwd" | grep -qx "$ouid"; then
        skip "oracle_user from the home's owner" "uid $ouid is already in the fixture's /etc/passwd"
else
        echo "orasw:x:$ouid:54321:Oracle software owner:/home/orasw:/bin/bash" >>"$o/etc/passwd"
        ht "$o" --json facts >"$tmp/fo.json" 2>/dev/null
        check "the home's owner in oinstall: orasw, from the home" "orasw $H" \
                "$(jq -r '.workload.oracle | "\(.owner) \(.owner_from)"' "$tmp/fo.json")"
        ht "$o" --color=never show oracle >"$tmp/showo" 2>&1
        check_contains "show: oracle_user from the home" "from $H" "$tmp/showo"
        ht "$o" --color=never plan oracle >"$tmp/plano" 2>&1
        check_contains "plan: the limits go to orasw" "orasw soft nofile" "$tmp/plano"
        ht "$o" --json plan oracle --set oracle_user=oracle >"$tmp/planos.json" 2>/dev/null
        check "--set oracle_user=oracle wins" oracle \
                "$(jq -r '[.changes[] | select(.backend == "limits") | .key | split(" ")[0]] | unique | join(",")' "$tmp/planos.json")"
        # not in oinstall or dba: not an installation owner
        sed -i "s/^orasw:x:$ouid:54321:/orasw:x:$ouid:100:/" "$o/etc/passwd"
        ht "$o" --json facts >"$tmp/fo2.json" 2>/dev/null
        check "an owner in neither oinstall nor dba is not taken" null "$(jq .workload.oracle.owner "$tmp/fo2.json")"
fi

# --- oracle_group: the Oracle Inventory group oraInst.loc names -------------------
# Oracle's "Configuring HugePages on Linux" gives vm.hugetlb_shm_group the
# gid of the oracle user, whose primary group is the Oracle Inventory
# group; the installer records its name in /etc/oraInst.loc (inst_group=,
# "by default, oinstall"). A host installed with one dba group has no
# oinstall: before, the plan looked for oinstall alone and set no group.
check "facts: the fixture's oraInst.loc names oinstall" "oinstall /etc/oraInst.loc" \
        "$(jq -r '.workload.oracle | "\(.inventory_group) \(.inventory_group_from)"' "$tmp/facts.json")"
v=$(copy_host oracle-running); scratch "$v"
sed -i '/^oinstall:/d' "$v/etc/group"
sed -i 's/^oracle:x:54321:54321:/oracle:x:54321:54322:/' "$v/etc/passwd"
printf 'inventory_loc=/u01/app/oraInventory\ninst_group=dba\n' >"$v/etc/oraInst.loc"
dba_gid=$(sed -n 's/^dba:x:\([0-9]*\):.*/\1/p' "$v/etc/group")
ht "$v" --json plan oracle >"$tmp/pv.json" 2>/dev/null
check "inst_group=dba, no oinstall: vm.hugetlb_shm_group is dba's gid" "$dba_gid" \
        "$(jq -r '.changes[] | select(.key == "vm.hugetlb_shm_group") | .desired' "$tmp/pv.json")"
check "inst_group=dba: no warning of a missing group" 0 \
        "$(jq '[.warnings[], .errors[] | tostring | select(contains("is not in /etc/group"))] | length' "$tmp/pv.json")"
ht "$v" --color=never show oracle >"$tmp/showv" 2>&1
check_contains "show: oracle_group from /etc/oraInst.loc" "oracle_group = dba" "$tmp/showv"
check_contains "show: ... and says where from" "from /etc/oraInst.loc" "$tmp/showv"
printf 'inventory_loc=/u01/app/oraInventory\ninst_group=dba;rm\n' >"$v/etc/oraInst.loc"
ht "$v" --json plan oracle >"$tmp/pv2.json" 2>/dev/null
check_contains "a name groupadd would not take is refused with a warning" \
        "/etc/oraInst.loc: inst_group=dba;rm is not a group name" "$tmp/pv2.json"
printf 'inst_group=dba\ninst_group=oinstall\n' >"$v/etc/oraInst.loc"
ht "$v" --json facts >"$tmp/fv3.json" 2>/dev/null
check "two different inst_group lines: none taken" null "$(jq .workload.oracle.inventory_group "$tmp/fv3.json")"

# --- a database that runs but oratab does not list -------------------------------
# A RAC node's oratab names the database (ORCL) while its instance is
# ORCL1; a standby made with RMAN gets no oratab entry (root.sh writes
# oratab, DBCA and ASMCA add to it: its header). Its SGA cannot be found
# and so is not in the sum: before, nothing said so (ORCL's 18 GB SGA
# left out, 2 GB of HugePages planned, no word). Only a process that
# would be trusted, or runs as the owner of a home oratab lists, is named.
u=$(copy_host oracle-running); scratch "$u"
sed -i 's/^ORCL:/PROD:/' "$u/etc/oratab"
ht "$u" --json plan oracle >"$tmp/pu.json" 2>/dev/null
check_contains "ora_pmon_ORCL runs, oratab lists no ORCL: a warning names it, its pid and oratab" \
        "oracle ORCL runs (ora_pmon_ORCL, pid 1234) but $u/etc/oratab does not list it" "$tmp/pu.json"
check "... once (not for its other ora_ processes)" 1 \
        "$(jq '[.warnings[] | select(startswith("oracle ORCL runs"))] | length' "$tmp/pu.json")"
check "the listed databases are not named" 0 \
        "$(jq '[.warnings[] | select(test("oracle (DEV|TEST|PROD) runs"))] | length' "$tmp/pu.json")"
# the same process in a user's session, owned by someone who owns no home
# (a uid that is neither the home's owner, whoever checked it out, nor 0)
xuid=4242; [ "$(stat -c %u "$u$H")" = $xuid ] && xuid=4243
sed -i 's|/system.slice/dbora.service|/user.slice/user-1000.slice/session-4.scope|' "$u"/proc/1234/cgroup
sed -i "s/^Uid:.*/Uid:\t$xuid\t$xuid\t$xuid\t$xuid/" "$u/proc/1234/status"
ht "$u" --json plan oracle >"$tmp/pu2.json" 2>/dev/null
check "an untrusted ora_pmon_ORCL (uid $xuid, a session) is not named" 0 \
        "$(jq '[.warnings[] | select(startswith("oracle ORCL runs"))] | length' "$tmp/pu2.json")"

# --- a read-only Oracle home: the parameter files in $ORACLE_BASE/dbs -------------
# 18c and later can make a home read-only (the default from 21c): the
# instance's dbs directory is then ORACLE_BASE_CONFIG, $ORACLE_BASE/dbs,
# and $ORACLE_HOME/install/orabasetab says so (a line as runInstaller
# writes it: HOME:BASE:HOME_NAME:Y). Before, only $ORACLE_HOME/dbs was
# looked at: the SGA was unknown.
mkdir -p "$tmp/ro" && ro=$(copy_host oracle-running "$tmp/ro"); scratch "$ro"
mkdir -p "$ro/u01/app/oracle/dbs" "$ro$H/install"
mv "$ro$H/dbs/spfileORCL.ora" "$ro/u01/app/oracle/dbs/"
printf '#orabasetab file is used to track Oracle Home associated with Oracle Base\n%s:/u01/app/oracle:OraDB19Home1:Y:\n' \
        "$H" >"$ro$H/install/orabasetab"
ht "$ro" --json facts >"$tmp/fro.json" 2>/dev/null
check "read-only home: ORCL's spfile from \$ORACLE_BASE/dbs, its sga_max_size as before" \
        "/u01/app/oracle/dbs/spfileORCL.ora $(bytes "$(val sga_max_size)")" \
        "$(jq -r '.workload.oracle.databases[] | select(.sid == "ORCL") | "\(.parameter_file) \(.sga_max_size)"' "$tmp/fro.json")"
printf '%s:/u01/app/oracle:OraDB19Home1:N:\n' "$H" >"$ro$H/install/orabasetab"
ht "$ro" --json facts >"$tmp/fro2.json" 2>/dev/null
check_contains "a read-write home (N): \$ORACLE_HOME/dbs only, the warning names it" \
        "no spfileORCL.ora, spfile.ora or initORCL.ora in $H/dbs" "$tmp/fro2.json"

# --- no oratab: unchanged --------------------------------------------------------
n0=$(copy_host debian12-kvm); scratch "$n0"
ht "$n0" --json facts >"$tmp/f0.json" 2>/dev/null
check "no oratab: databases null, sga_bytes 0" "null 0 null" \
        "$(jq -c '.workload.oracle | [.databases, .sga_bytes, .sga_bytes_from] | map(tostring) | join(" ")' "$tmp/f0.json" | tr -d '"')"
finish
