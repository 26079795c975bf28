# good, boot 2: after a real reboot through the grub.cfg hosttune's
# update-grub wrote, everything holds: checked with plain tools, by
# `hosttune verify --boot` (exit 0, status ok, every check ok), and by the
# verify unit that ran during the boot (success, journal entry "ok").
. /payload/lib.sh
check_pre_reboot_verify
check_expectations
check_verify_unit 0 ok
run_verify post 0 ok --boot
json_check post '.' 'ok|skipped'
checks_done
