# image, boot 1: the first boot ever of the image image-offline.sh tuned
# offline on the host (hosttune installed as a package would be, its
# verify unit enabled with `systemctl --root`, `hosttune --root IMG apply`
# with --facts, no grub-mkconfig). Nothing is applied here: this boot
# checks that the image-build promise holds. The plan the host applied
# (input/plan.json) gives the expectations, checked with plain tools
# (sysctl, /proc/cmdline, sysfs, su -l for limits); the verify unit ran
# in this boot, exited 0 and logged "ok"; `hosttune --json verify --boot`
# exits 0 with status ok. A single boot: the scenario has no verify.sh.
. /payload/lib.sh
IN=$P/input
[ -s $IN/plan.json ] || { echo "FAIL no input/plan.json from the host"; exit 1; }
check "the image's journal: the last transaction, the host's apply" \
        "$(hosttune --json history | jq -c '.transactions[-1] | [.command, .status]')" '["apply","committed"]'
plan_expectations $IN/plan.json >$EXPECT
# ... and every key of the sysctl.d drop-in the plan wrote (its content in
# the plan's files[]), whether or not changes[] lists it
jq -r '.files[] | select(.path | test("^/etc/sysctl\\.d/")) | .after // empty' $IN/plan.json |
        awk -F= '/^[^#;]/ && NF > 1 { k = $1; v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", k)
                gsub(/^[ \t]+|[ \t]+$/, "", v); print "sysctl", k, v }' >>$EXPECT
expect cmdline transparent_hugepage=never
expect sysfs /sys/kernel/mm/transparent_hugepage/enabled never
sort -u -o $EXPECT $EXPECT
cat $EXPECT
swp=$(awk '$1 == "sysctl" && $2 == "vm.swappiness" { print $3 }' $EXPECT)
[ -n "$swp" ] && [ "$swp" != 60 ] || fail "vm.swappiness '$swp' proves nothing (default 60)"
check_expectations
check_verify_unit 0 ok
run_verify first 0 ok --boot
json_check first '.' 'ok|skipped'
json_check first '^cmdline .*transparent_hugepage' 'ok'
# The apply was made on the build machine, never in a boot of the image:
# this first boot is the boot it waited for (a word missing now is drift)
check "first boot counts as the reboot since the apply" "$(jq -c .rebooted_since_apply $OUT/first.json)" true
checks_done
