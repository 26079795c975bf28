# infra-sabotaged, boot 1: the infra apply, then both sabotages the
# hosttune scenario "sabotaged" uses. Proves they really break the boot
# (this scenario fails if the word still reaches /proc/cmdline).
. /payload/lib.sh
sh $P/scenarios/infra/apply.sh || exit 1
sabotage_grub
sabotage_sysctl vm.swappiness 33
