# sabotaged, boot 2: the sabotage took effect, and `hosttune verify
# --boot` reports drift (exit 2) naming the command line word and the
# overridden sysctl; the verify unit failed and logged "drift".
. /payload/lib.sh
check_pre_reboot_verify
check_one "nocmdline transparent_hugepage"
check_one "sysctl vm.swappiness $(cat /var/lib/ht-boot-test/swappiness-override)"
check_one "sysfs /sys/kernel/mm/transparent_hugepage/enabled never"
check_verify_unit 2 drift
run_verify post 2 drift --boot
json_drift post '^(cmdline|bootloader)[^ ]* .*transparent_hugepage'
json_drift post '^sysctl[^ ]* .*vm[.]swappiness'
checks_done
