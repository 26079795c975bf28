# infra, boot 2: the host is as apply.sh left it after a real reboot
# through GRUB, and the verify unit ran after sysctl/tmpfiles and logged.
. /payload/lib.sh
check_pre_reboot_verify
check_expectations
check_verify_unit 0 ok
run_verify post 0 ok --boot
checks_done
