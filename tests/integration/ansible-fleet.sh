#!/bin/sh
# The fleet report (the collection's playbook hosttune.hosttune.fleet_report,
# its role fleet_report) run by the real ansible-playbook over an inventory
# of fixture hosts, each a local connection whose fleet_report_root is its
# own copy of a tests/hosts fixture, put in its state by hosttune itself:
#   web1  debian12-kvm, base applied                        ok
#   db1   debian12-kvm, oracle applied, then a good boot    ok
#   db2   the same, then vm.swappiness changed at run time
#         and the sysctl drop-in edited behind its back      drift (2 checks)
#   db3   ol8-bls, oracle applied, no boot since             reboot-pending
#   old1  debian12-kvm, base applied and rolled back          ok, nothing applied
#   new1  baremetal-numa, nothing ever applied               error
#   gone1 ssh that cannot connect                            unreachable
#   spare a host outside the group                           not in the report
# Checked: the table the play prints (one row per host, in inventory order)
# and the JSON file (every field of every row, the summary).
# Needs ansible-playbook (Debian: ansible-core) and jq; a TAP skip without.
# HT_FLEET_KEEP=DIR keeps the play's output and the report there.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v ansible-playbook >/dev/null 2>&1 ||
        skip_all "ansible-playbook not installed (Debian: apt-get install ansible-core)"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
HOSTTUNE_ABS=$(cd "$(dirname "$HOSTTUNE")" && pwd)/$(basename "$HOSTTUNE")
PROFILES=$(cd "$PROFILES" && pwd)
RULES=$(cd "$RULES" && pwd)
COLLECTIONS=$(cd "$top_srcdir/packaging/ansible" && pwd)

# reboot ROOT: what a boot that took the oracle profile's boot-time
# settings changes in a fixture (as verify.sh's good boot): a new boot id,
# the command line word, the HugePages the profile asked for (2050 for
# sga_max_size=4G on 2 MiB pages: ceil(4G / 2M) + 2 of slack)
reboot() {
        echo 0b7e2c3a-9d4f-4e1a-8c6b-5f2d1e0a9b87 >"$1/proc/sys/kernel/random/boot_id"
        sed -i 's/$/ transparent_hugepage=never/' "$1/proc/cmdline"
        sed -i 's/^HugePages_Total:.*/HugePages_Total:    2050/; s/^HugePages_Free:.*/HugePages_Free:     2050/' \
                "$1/proc/meminfo"
}
# applied NAME FIXTURE PROFILE [SET]: a fixture copy with PROFILE applied;
# sets $h (its root) and $txid (the apply's)
applied() {
        h=$(prepare_host "$2"); scratch "$h"
        mv "$h" "$tmp/$1" && h=$tmp/$1
        htrun 0 "$1: apply $3 on $2" "$h" --json apply "$3" ${4:+--set "$4"}
        txid=$(jq -r .txid "$tmp/out")
}

applied web1 debian12-kvm base; web1=$h web1_tx=$txid
applied db1 debian12-kvm oracle sga_max_size=4G; db1=$h db1_tx=$txid
reboot "$db1"
applied db2 debian12-kvm oracle sga_max_size=4G; db2=$h db2_tx=$txid
reboot "$db2"
# behind hosttune's back: the running value, and the file the boot reads
echo 60 >"$db2/proc/sys/vm/swappiness"
sed -i 's/^vm.swappiness = 10$/vm.swappiness = 5/' "$db2/etc/sysctl.d/90-hosttune.conf"
check "db2: the drop-in was edited" 1 "$(grep -c '^vm.swappiness = 5$' "$db2/etc/sysctl.d/90-hosttune.conf")"
applied db3 ol8-bls oracle sga_max_size=4G; db3=$h db3_tx=$txid
applied old1 debian12-kvm base; old1=$h
htrun 0 "old1: rollback" "$old1" rollback
new1=$(prepare_host baremetal-numa); scratch "$new1"
# the states, as hosttune's verify sees them, before Ansible runs it
for x in web1:0 db1:0 db2:2 db3:3 old1:0 new1:1; do
        eval "r=\$${x%:*}"
        htrun "${x#*:}" "${x%:*}: verify before the report" "$r" verify
done
check "each apply returned its txid" "4" \
        "$(printf '%s\n' "$web1_tx" "$db1_tx" "$db2_tx" "$db3_tx" | grep -c '^20[0-9]*T[0-9]*Z-[0-9a-f]*$')"

# gone1: ssh that exits 255, as ssh does when it cannot connect (ssh(1),
# EXIT STATUS), which Ansible takes for an unreachable host
printf '#!/bin/sh\necho "ssh: connect to host 192.0.2.1 port 22: Connection refused" >&2\nexit 255\n' >"$tmp/ssh-down"
chmod 0755 "$tmp/ssh-down"
mkdir -p "$tmp/home" && : >"$tmp/ansible.cfg"
cat >"$tmp/inventory" <<EOF
[fleet]
web1 fleet_report_root=$web1
db1 fleet_report_root=$db1
db2 fleet_report_root=$db2
db3 fleet_report_root=$db3
old1 fleet_report_root=$old1
new1 fleet_report_root=$new1
gone1 ansible_connection=ssh ansible_host=192.0.2.1 ansible_ssh_executable=$tmp/ssh-down

[other]
spare fleet_report_root=$tmp/no-such-root

[all:vars]
ansible_connection=local
ansible_python_interpreter="{{ ansible_playbook_python }}"
fleet_report_binary=$HOSTTUNE_ABS
EOF

# ansible-core refuses a locale that is not UTF-8 (ansible.sh); the
# playbook asks for become, which the test (root already, maybe without
# sudo) turns off for every host, the controller's delegated tasks included.
start=$(date +%s)
rc=0
(cd "$tmp" && env HOME="$tmp/home" LC_ALL=C.UTF-8 ANSIBLE_CONFIG="$tmp/ansible.cfg" ANSIBLE_NOCOLOR=1 \
        ANSIBLE_LOCAL_TEMP="$tmp/home/.ansible/tmp" ANSIBLE_RETRY_FILES_ENABLED=0 \
        ANSIBLE_HOST_KEY_CHECKING=0 PYTHONDONTWRITEBYTECODE=1 \
        ANSIBLE_COLLECTIONS_PATH="$COLLECTIONS" \
        ansible-playbook -i "$tmp/inventory" hosttune.hosttune.fleet_report \
        -e fleet_report_hosts=fleet -e ansible_become=false \
        -e fleet_report_file="$tmp/report.json") >"$tmp/play.out" 2>"$tmp/play.err" || rc=$?
echo "# ansible-playbook took $(($(date +%s) - start)) s"
# 4: a host was unreachable (ansible-playbook(1)); gone1 is
check "ansible-playbook exit status 4 (gone1 unreachable)" 4 "$rc"
if [ "$rc" != 4 ]; then
        sed 's/^/# /' "$tmp/play.out" | tail -40
        sed 's/^/# /' "$tmp/play.err" | tail -20
fi

# ---- the table: the debug task's lines, each a quoted string
sed -n 's/^        "\(.*\)",\{0,1\}$/\1/p' "$tmp/play.out" >"$tmp/table"
row() { awk -v h="$1" '$1 == h' "$tmp/table"; }
check "table: header" "HOST STATUS REBOOT PROFILE TRANSACTION DRIFT CHECKS" \
        "$(awk '$1 == "HOST"' "$tmp/table" | tr -s ' ')"
check "table: web1" "web1 ok no base $web1_tx -" "$(row web1 | tr -s ' ')"
check "table: db1" "db1 ok no oracle $db1_tx -" "$(row db1 | tr -s ' ')"
check "table: db2 with its drift checks" \
        "db2 drift no oracle $db2_tx sysctl vm.swappiness, file /etc/sysctl.d/90-hosttune.conf" \
        "$(row db2 | tr -s ' ' | sed 's/, /,/g; s/,/, /g')"
check "table: db3" "db3 reboot-pending yes oracle $db3_tx -" "$(row db3 | tr -s ' ')"
check "table: old1" "old1 ok no - - -" "$(row old1 | tr -s ' ')"
check "table: new1" "new1 error no - - -" "$(row new1 | tr -s ' ')"
check "table: gone1" "gone1 unreachable no - - -" "$(row gone1 | tr -s ' ')"
check "table: hosts in inventory order" "HOST web1 db1 db2 db3 old1 new1 gone1" \
        "$(awk '$1 ~ /^(HOST|web1|db[0-9]|old1|new1|gone1)$/ && NF >= 6 { print $1 }' "$tmp/table" | paste -sd' ' -)"
check "table: spare (not in the group) is not there" "" "$(row spare)"
# the columns line up: every row's STATUS starts where the header's does
col=$(awk '$1 == "HOST" { print index($0, "STATUS") }' "$tmp/table")
check "table: columns aligned" "7" \
        "$(awk -v c="$col" 'NF >= 6 && $1 != "HOST" && substr($0, c - 2, 2) == "  " && substr($0, c, 1) != " " { n++ } END { print n + 0 }' "$tmp/table")"
check_contains "table: new1's error is told" "new1: error: hosttune: nothing to verify: no journal" "$tmp/table"
check_contains "table: gone1's reason is told" "gone1: unreachable: not verified" "$tmp/table"
check_contains "table: the summary" \
        "7 hosts: 3 ok, 1 drift, 1 reboot-pending, 1 error, 1 unreachable; JSON report: $tmp/report.json" "$tmp/table"

# ---- the JSON file
J=$tmp/report.json
if jq -e . "$J" >/dev/null 2>&1; then ok "report.json is JSON"; else
        not_ok "report.json is JSON: $(head -c 300 "$J" 2>&1)"; fi
q() { jq -c "$1" "$J" 2>&1; }
check "json: hosts in inventory order" '["web1","db1","db2","db3","old1","new1","gone1"]' "$(q '[.hosts[].host]')"
check "json: every row has the same fields" \
        '[["applied","applied_at","drift","host","message","profile","reboot_pending","status","txid"]]' \
        "$(q '[.hosts[] | keys] | unique')"
r() { q ".hosts[] | select(.host == \"$1\") | [.status, .reboot_pending, .applied, .profile, .txid, (.drift | length), .message]"; }
check "json: web1" "[\"ok\",false,true,\"base\",\"$web1_tx\",0,null]" "$(r web1)"
check "json: db1" "[\"ok\",false,true,\"oracle\",\"$db1_tx\",0,null]" "$(r db1)"
check "json: db2" "[\"drift\",false,true,\"oracle\",\"$db2_tx\",2,\"hosttune verify found drift: sysctl vm.swappiness, file /etc/sysctl.d/90-hosttune.conf\"]" \
        "$(r db2)"
check "json: db2's drift checks" \
        '[["sysctl","vm.swappiness","drift"],["file","/etc/sysctl.d/90-hosttune.conf","drift"]]' \
        "$(q '[.hosts[] | select(.host == "db2") | .drift[] | [.backend, .key, .status]]')"
# expected from the profile (oracle's vm.swappiness 10), actual as set above
check "json: db2's runtime drift, expected and actual" '["10","60"]' \
        "$(q '.hosts[] | select(.host == "db2") | .drift[] | select(.key == "vm.swappiness") | [.expected, .actual]')"
check "json: db2's file drift is a hash change" "true" \
        "$(q '[.hosts[] | select(.host == "db2") | .drift[] | select(.backend == "file") | (.expected | startswith("sha256:")) and .expected != .actual] == [true]')"
check "json: db3" "[\"reboot-pending\",true,true,\"oracle\",\"$db3_tx\",0,null]" "$(r db3)"
check "json: old1, rolled back: ok, nothing applied" '["ok",false,false,null,null,0,null]' "$(r old1)"
check "json: new1 is an error with hosttune's message" "error false false null null 0 true" \
        "$(q '.hosts[] | select(.host == "new1") | [.status, .reboot_pending, .applied, .profile, .txid, (.drift | length), (.message | test("^hosttune: nothing to verify: no journal"))] | map(tostring) | join(" ")' | tr -d '"')"
check "json: gone1 unreachable" '["unreachable",false,false,null,null,0,"not verified: the host failed or was unreachable before verify"]' "$(r gone1)"
check "json: applied_at of the applied hosts, null for the others" "4 3" \
        "$(q '[.hosts[] | select(.applied_at != null and (.applied_at | test("^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}Z$")))] | length' ) $(q '[.hosts[] | select(.applied_at == null)] | length')"
check "json: summary" '{"drift":1,"error":1,"hosts":7,"ok":3,"reboot-pending":1,"unreachable":1}' "$(q .summary)"
check "json: generated_at is UTC ISO 8601" "true" "$(q '.generated_at | test("^20[0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-9:]{8}Z$")')"

# verify is read-only: the report changed nothing on the hosts
for x in web1:0 db1:0 db2:2 db3:3 old1:0 new1:1; do
        eval "r=\$${x%:*}"
        htrun "${x#*:}" "${x%:*}: verify after the report, the same" "$r" verify
done
check "no root made for spare" "no" "$([ -e "$tmp/no-such-root" ] && echo yes || echo no)"
[ -z "${HT_FLEET_KEEP:-}" ] || cp "$tmp/play.out" "$tmp/report.json" "$HT_FLEET_KEEP"/
finish
