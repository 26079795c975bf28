# infra-sabotaged, boot 2: the sabotage took effect, and verify (the
# stand-in) and its unit report drift naming both settings.
. /payload/lib.sh
check_pre_reboot_verify
check_one "nocmdline transparent_hugepage"
check_one "sysctl vm.swappiness 33"
check_one "sysfs /sys/kernel/mm/transparent_hugepage/enabled never"
check_one "limits nobody soft nofile 12345"
check_verify_unit 2 drift
run_verify post 2 drift --boot
json_check post '^cmdline .*transparent_hugepage' drift
json_check post '^sysctl vm[.]swappiness$' drift
json_check post '^sysfs .*transparent_hugepage/enabled$' ok
checks_done
