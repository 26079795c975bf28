#!/bin/sh
# The tuning knowledge of issue 15 on fixture hosts, end to end: optional
# settings a host cannot take are listed as skipped (show, plan, --json),
# never warned about, and left out under -q; vm.swappiness the profile's
# own on every kernel (issue 33); the cgroup v1 warning; the JVM's
# limits for its unit (applied, kept, refused for an absent unit). Needs
# jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
export HOSTTUNE_INSECURE_PROFILES=1

# ---- hugetext on a kernel without it: skipped once, no warning
htrun 2 "plan mysql on debian12-kvm" "$HOSTS/debian12-kvm" plan mysql
check "no warning names hugetext" 0 "$(grep '^warning:' "$tmp/out" | grep -c hugetext)"
check "one skipped line for hugetext" 1 "$(grep -c '^skipped (optional): hugetext=1: this kernel (6.1.0-18-amd64) has no ' "$tmp/out")"
check_contains "the reason names the kernels that have it" "Alibaba Cloud Linux 3 with kernel 5.10.112-11 or later (rule hugetext-unavailable (" "$tmp/out"
check "no hugetext word planned for the command line" 0 "$(grep -c '+GRUB_CMDLINE.*hugetext' "$tmp/out")"
htrun 2 "plan -q mysql" "$HOSTS/debian12-kvm" -q plan mysql
check "-q: no skipped lines" 0 "$(grep -c '^skipped' "$tmp/out")"
check_contains "-q: the plan itself is still there" "vm.swappiness: 60 → 1" "$tmp/out"
htrun 2 "plan --json mysql" "$HOSTS/debian12-kvm" --json plan mysql
check "--json: skipped lists hugetext's three settings" \
        "sysfs /sys/kernel/mm/transparent_hugepage/hugetext_enabled, sysfs /sys/kernel/mm/transparent_hugepage/hugetext_pad_threshold, cmdline hugetext" \
        "$(jq -r '.skipped[] | select(.source | startswith("rule hugetext-unavailable")) | .setting' "$tmp/out")"
check "--json: the units the host lacks are skipped, not warned" "2 0" \
        "$(jq -r '[(.skipped | map(select(.setting | startswith("service "))) | length), (.warnings | map(select(contains("no such unit"))) | length)] | join(" ")' "$tmp/out")"
check "--json: each skip has a reason and a source" "true" \
        "$(jq -r '.skipped | all(.reason != "" and .source != "")' "$tmp/out")"
htrun 0 "show mysql" "$HOSTS/debian12-kvm" show mysql
check_contains "show: a skipped section" "skipped (optional):" "$tmp/out"
check_contains "show: hugetext in it" "  hugetext=1: this kernel (6.1.0-18-amd64) has no" "$tmp/out"
check "show: no warning about hugetext" 0 "$(sed -n '/^warnings:/,$p' "$tmp/out" | grep -c hugetext)"
htrun 0 "show --json mysql" "$HOSTS/debian12-kvm" --json show mysql
check "show --json: one skip, from the hugetext rule" "1 rule" \
        "$(jq -r '"\(.skipped | length) \(.skipped[0].source | split(" ")[0])"' "$tmp/out")"
# where the kernel has it, nothing is skipped and it is planned
htrun 2 "plan mysql on alinux3-hugetext" "$HOSTS/alinux3-hugetext" --json plan mysql
check "alinux3: hugetext_enabled 0 → 1" "0 1" \
        "$(jq -r '.changes[] | select(.key == "/sys/kernel/mm/transparent_hugepage/hugetext_enabled") | "\(.current) \(.desired)"' "$tmp/out")"
check "alinux3: nothing about hugetext skipped" 0 "$(jq '[.skipped[] | select(.setting | contains("hugetext"))] | length' "$tmp/out")"

# ---- swappiness by kernel release (an EL 8 fixture with another release):
# the vendor's 1 on every kernel, before 3.5 too (issue 33: it used to
# become 10 there, which no source asks for)
for rel in 2.6.32-754.35.1.el6.x86_64:1 2.6.32-358.el6.x86_64:1 2.6.32-279.el6.x86_64:1 \
           2.6.32-400.37.15.el6uek.x86_64:1 3.0.13-0.27-default:1 3.10.0-1160.el7.x86_64:1; do
        r=${rel%:*} sw=${rel#*:}
        k=$(copy_host oracle-running); scratch "$k"
        printf '%s\n' "$r" >"$k/proc/sys/kernel/osrelease"
        htrun 2 "plan base, kernel $r" "$k" --json plan base
        check "kernel $r: vm.swappiness $sw" "$sw" \
                "$(jq -r '.changes[] | select(.key == "vm.swappiness") | .desired' "$tmp/out")"
        check "kernel $r: no swappiness warning" "0" \
                "$(jq '[.warnings[] | select(contains("swappiness") and (contains("cgroup v1") | not))] | length' "$tmp/out")"
done

# ---- cgroup v1: memory cgroups keep their own swappiness
htrun 2 "plan base on ol8-bls (cgroup v1)" "$HOSTS/ol8-bls" plan base
check_contains "cgroup v1 warning" "runs the memory controller as cgroup v1, where every memory cgroup keeps its own memory.swappiness" "$tmp/out"
htrun 2 "plan base on debian12-kvm (cgroup2)" "$HOSTS/debian12-kvm" plan base
check "cgroup2: no such warning" 0 "$(grep -c 'cgroup v1' "$tmp/out")"

# ---- the JVM's limits for its unit
h=$(prepare_host ol8-bls); scratch "$h"
unit=$h/usr/lib/systemd/system/elasticsearch.service
check "the fixture's unit has Elastic's limits" "LimitNOFILE=65535 LimitNPROC=4096" \
        "$(grep -E '^Limit(NOFILE|NPROC)=' "$unit" | paste -sd' ' -)"
htrun 2 "plan jvm with jvm_unit" "$h" --json plan jvm --set jvm_unit=elasticsearch.service
check "the unit's own limits are kept" "kept kept" \
        "$(jq -r '[.changes[] | select(.backend == "service") | .outcome] | join(" ")' "$tmp/out")"
check "no drop-in when the unit already has them" 0 \
        "$(jq '[.files[] | select(.path | contains("elasticsearch.service.d"))] | length' "$tmp/out")"
htrun 0 "apply jvm with jvm_unit and more open files" "$h" apply jvm --set jvm_unit=elasticsearch.service --set nofile=131072
dropin=$h/etc/systemd/system/elasticsearch.service.d/hosttune.conf
check "the drop-in raises LimitNOFILE only" "[Service] LimitNOFILE=131072" \
        "$(grep -v '^#' "$dropin" | paste -sd' ' -)"
check "limits.conf gets them too" "2" "$(grep -c 'java .*nofile *131072' "$h/etc/security/limits.d/90-hosttune.conf")"
# 3: the THP command-line word waits for a reboot; the unit's limit is in place
htrun 3 "verify after apply" "$h" --json verify
check "verify: the unit's LimitNOFILE ok" "ok" \
        "$(jq -r '.checks[] | select(.backend == "service" and (.key | contains("LimitNOFILE"))) | .status' "$tmp/out")"
htrun 0 "apply again changes nothing" "$h" apply jvm --set jvm_unit=elasticsearch.service --set nofile=131072
check_contains "and says so" "no changes" "$tmp/out"
htrun 1 "an absent unit is an error" "$HOSTS/debian12-kvm" plan jvm --set jvm_unit=elasticsearch.service
check_contains "naming the unit and the fix" "LimitNOFILE=65535 for elasticsearch.service: no such unit on this host; install the service first" "$tmp/out"
finish
