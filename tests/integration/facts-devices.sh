#!/bin/sh
# The block.devices and cpu.cpufreq facts of the bare-metal fixture,
# checked against its /sys files (read here with sed and shell): SAS sda,
# NVMe nvme0n1, LVM dm-0 on sda3, loop0 and sr0; intel_pstate with eight
# policies. The facts' kinds agree with what the block backend plans;
# the text output counts rather than lists; an image has neither; a host
# without cpufreq or with garbled queue files gives nulls, not failures.
. "${top_srcdir:-.}/tests/integration/lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
B=$HOSTS/baremetal-numa
CPU=$B/sys/devices/system/cpu

facts() { "$HOSTTUNE" --root "$1" facts --json >"$tmp/facts.json" 2>"$tmp/err"; }
q() { jq -c "$1" "$tmp/facts.json"; }
# the bracketed word of a scheduler file, "null" without one
bracketed() { w=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$1"); [ -n "$w" ] && printf '"%s"' "$w" || printf null; }
# a file's words as a JSON list
words() { tr -s ' \t\n' '\n' <"$1" | sed '/^$/d' | jq -Rsc 'split("\n") | map(select(. != ""))'; }

facts "$B"
check "baremetal: facts --json exits 0" "" "$(cat "$tmp/err")"
check "block.devices: every /sys/block entry, sorted by name" \
        "$(ls "$B/sys/block" | LC_ALL=C sort | jq -Rsc 'split("\n") | map(select(. != ""))')" "$(q '[.block.devices[].name]')"
check "block.devices: kinds by the block backend's classification" \
        '[["dm-0","dm"],["loop0","loop"],["nvme0n1","disk"],["sda","disk"],["sr0","optical"]]' \
        "$(q '[.block.devices[] | [.name, .kind]]')"
for d in dm-0 loop0 nvme0n1 sda sr0; do
        dev="$B/sys/block/$d"
        e=".block.devices[] | select(.name == \"$d\")"
        rot=$(cat "$dev/queue/rotational"); rem=$(cat "$dev/removable")
        check "$d: rotational, removable as its files" \
                "[$([ "$rot" = 1 ] && echo true || echo false),$([ "$rem" = 1 ] && echo true || echo false)]" \
                "$(q "[$e | .rotational, .removable]")"
        check "$d: scheduler is the bracketed word" "$(bracketed "$dev/queue/scheduler")" "$(q "$e | .scheduler")"
        if grep -q '\[' "$dev/queue/scheduler"; then
                want=$(words "$dev/queue/scheduler" | jq -c 'map(ltrimstr("[") | rtrimstr("]"))')
        else want='[]'; fi
        check "$d: schedulers is the offered list" "$want" "$(q "$e | .schedulers")"
        check "$d: read_ahead_kb, nr_requests, rq_affinity" \
                "[$(cat "$dev/queue/read_ahead_kb"),$(cat "$dev/queue/nr_requests"),$(cat "$dev/queue/rq_affinity")]" \
                "$(q "[$e | .read_ahead_kb, .nr_requests, .rq_affinity]")"
done
check "dm-0: its slaves" '["sda3"]' "$(q '.block.devices[] | select(.name == "dm-0") | .slaves')"
check "dm-0: a bare none is no choice" 'null []' "$(q '.block.devices[] | select(.name == "dm-0") | .scheduler, .schedulers' | tr '\n' ' ' | sed 's/ $//')"
check "slaves is null for the non-stacked kinds" '[null,null,null,null]' \
        "$(q '[.block.devices[] | select(.kind != "dm") | .slaves]')"

# cpufreq
check "cpufreq.driver is policy0's scaling_driver" "\"$(cat "$CPU/cpufreq/policy0/scaling_driver")\"" "$(q .cpu.cpufreq.driver)"
check "cpufreq.intel_pstate: status and perf limits" \
        "{\"status\":\"$(cat "$CPU/intel_pstate/status")\",\"min_perf_pct\":$(cat "$CPU/intel_pstate/min_perf_pct"),\"max_perf_pct\":$(cat "$CPU/intel_pstate/max_perf_pct")}" \
        "$(q .cpu.cpufreq.intel_pstate)"
check "cpufreq.policies: one a policy directory, in number order" \
        "$(ls "$CPU/cpufreq" | grep '^policy' | sort -t y -k2 -n | jq -Rsc 'split("\n") | map(select(. != ""))')" \
        "$(q '[.cpu.cpufreq.policies[].name]')"
for p in policy0 policy7; do
        d=$CPU/cpufreq/$p
        e=".cpu.cpufreq.policies[] | select(.name == \"$p\")"
        check "$p: cpus, governor, EPP as its files" \
                "[\"$(cat "$d/affected_cpus")\",\"$(cat "$d/scaling_governor")\",\"$(cat "$d/energy_performance_preference")\"]" \
                "$(q "[$e | .cpus, .governor, .energy_performance_preference]")"
        check "$p: governors and preferences are the available lists" \
                "[$(words "$d/scaling_available_governors"),$(words "$d/energy_performance_available_preferences")]" \
                "$(q "[$e | .governors, .preferences]")"
done
check "energy_perf_bias: the distinct values of cpu*/power with their CPU counts" \
        "$(cat "$CPU"/cpu[0-9]*/power/energy_perf_bias | sort | uniq -c | awk 'BEGIN { sep = "[" } { printf "%s{\"value\":\"%s\",\"cpus\":%d}", sep, $2, $1; sep = "," } END { print "]" }')" \
        "$(q .cpu.cpufreq.energy_perf_bias)"

# The facts and the block backend agree: a read-ahead setting for every
# device (kernel:*) plans exactly the devices whose kind is not one the
# backend never touches.
mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/every.profile" <<'PROFILE'
summary = "read-ahead on every device";
block = { match = ( { kernel = "*"; queue = { read_ahead_kb = 8192; }; } ); };
PROFILE
h=$(copy_host baremetal-numa); scratch "$h"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/profiles" --json plan every >"$tmp/plan.json" 2>"$tmp/err"
check "plan every: the devices it changes are the facts' disk, dm and md devices" \
        "$(q '[.block.devices[] | select(.kind == "disk" or .kind == "dm" or .kind == "md") | .name] | sort')" \
        "$(jq -c '[.changes[] | select(.backend == "block") | .key | split(" ")[0]] | unique' "$tmp/plan.json")"

# text output: counts, not a line a device or a policy
"$HOSTTUNE" --root "$B" facts >"$tmp/text" 2>"$tmp/err"
check "text: block.kinds counts per kind" "dm (1), loop (1), disk (2), optical (1)" \
        "$(sed -n 's/^block\.kinds  *//p' "$tmp/text")"
check "text: block.schedulers counts per scheduler in use" "no choice (1), none (2), mq-deadline (2)" \
        "$(sed -n 's/^block\.schedulers  *//p' "$tmp/text")"
check "text: cpufreq governors in use" "powersave (8)" "$(sed -n 's/^cpu\.cpufreq\.governors  *//p' "$tmp/text")"
check "text: energy_perf_bias in CPUs" "6 (8 CPUs)" "$(sed -n 's/^cpu\.cpufreq\.energy_perf_bias  *//p' "$tmp/text")"
check "text: no line per device or policy" 0 "$(grep -c 'devices\[\|policies\[' "$tmp/text")"

# an offline image: no /sys of its own, so neither is known
img=$(offline_image img baremetal-numa); scratch "$img"
facts "$img"
check "image: block.devices and cpu.cpufreq are null" "null null" "$(q '.block.devices, .cpu.cpufreq' | tr '\n' ' ' | sed 's/ $//')"

# no cpufreq, a device without a queue, garbled queue files
h=$(copy_host baremetal-numa); scratch "$h"
rm -rf "$h/sys/devices/system/cpu/cpufreq" "$h/sys/devices/system/cpu/intel_pstate" "$h"/sys/devices/system/cpu/cpu*/power
rm -rf "$h/sys/devices/virtual/block/loop0/queue"
printf 'fast\n' >"$h/sys/devices/virtual/block/dm-0/queue/read_ahead_kb"
printf 'none mq-deadline\n' >"$h/$(readlink "$B/sys/block/nvme0n1" | sed 's|^\.\./||; s|^|sys/|')/queue/scheduler"
facts "$h"
check "no cpufreq: driver and intel_pstate null, no policies, no EPB" '[null,null,[],[]]' \
        "$(q '[.cpu.cpufreq | .driver, .intel_pstate, .policies, .energy_perf_bias]')"
check "no queue: the device is listed, its queue facts null" '["loop0","loop",null,null,[],null]' \
        "$(q '.block.devices[] | select(.name == "loop0") | [.name, .kind, .rotational, .scheduler, .schedulers, .nr_requests]')"
check "garbled read_ahead_kb is null" null "$(q '.block.devices[] | select(.name == "dm-0") | .read_ahead_kb')"
check "a scheduler file without brackets: no choice" 'null []' \
        "$(q '.block.devices[] | select(.name == "nvme0n1") | .scheduler, .schedulers' | tr '\n' ' ' | sed 's/ $//')"

# A plan reads the device facts only when an expression names them (the
# block and cpu backends read sysfs themselves): then with the values
# facts --json has, else not at all (strace: no cpufreq policy file).
facts "$B"
mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/devfacts.profile" <<'END'
summary = "device facts in expressions";
params = {
        a_min_perf = "= facts.cpu.cpufreq.intel_pstate.min_perf_pct";
        b_driver = "= facts.cpu.cpufreq.driver";
        c_disks = "= if(defined(facts.block.devices), 1, 0)";
};
END
"$HOSTTUNE" --root "$B" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" --json show devfacts \
        >"$tmp/show.json" 2>"$tmp/err"
param() { jq -r --arg n "$1" '.params[] | select(.name == $n) | .value' "$tmp/show.json"; }
check "show with device facts named: exit 0" "" "$(cat "$tmp/err")"
check "named in an expression: intel_pstate's min_perf_pct, as facts --json has it" \
        "$(q '.cpu.cpufreq.intel_pstate.min_perf_pct')" "$(param a_min_perf)"
check "named in an expression: the driver" "$(jq -r .cpu.cpufreq.driver "$tmp/facts.json")" "$(param b_driver)"
check "named in an expression: the block devices are there" 1 "$(param c_disks)"
if command -v strace >/dev/null 2>&1; then
        # the binary itself: under valgrind (no openat2) the trace shows components
        strace -f -e trace=open,openat,openat2 -o "$tmp/trace" "$top_builddir/hosttune" --root "$B" \
                --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" plan base >/dev/null 2>&1
        check "a plan whose expressions name no device fact: the trace has its reads" yes \
                "$(grep -q 'proc/meminfo' "$tmp/trace" && echo yes || echo no)"
        check "... and no cpufreq policy or queue file of the facts" "" \
                "$(grep -E 'cpufreq/policy[0-9]+/|queue/(nr_requests|rq_affinity)' "$tmp/trace" | head -3)"
else
        skip "a plan whose expressions name no device fact reads none" "strace is not installed"
        skip "... and no cpufreq policy or queue file of the facts" "strace is not installed"
fi
finish
