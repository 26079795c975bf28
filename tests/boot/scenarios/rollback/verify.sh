# rollback, boot 2: the apply holds after the reboot, checked as in good.
exec sh /payload/scenarios/good/verify.sh
