#!/bin/sh
# The bootloader of an offline image (a fixture copied without proc/ and
# sys/): grub-mkconfig never runs for it (its grub-probe would write the
# build machine's disks into root=), grub.cfg's kernel lines are edited in
# place with /etc/default/grub; a Debian image without any GRUB
# configuration yet gets /etc/default/grub.d/hosttune.cfg, and Debian's
# real grub-mkconfig puts its words on the kernel lines; an image of an
# unknown layout plans the rest and says where the words must go, never
# the container advice; reboot_required is false on the first apply and
# on a no-op re-apply; a failed apply says changed: false; rollback gives
# the image back byte for byte. Needs jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
H=$(cd "$HOSTS" && pwd)
P=$(cd "$PROFILES" && pwd)
R=$(cd "$top_srcdir/rules" && pwd)

# a listing of the tree with checksums and modes: what "as it was" means
snapshot() { (cd "$1" && find . -path ./var/lib/hosttune -prune -o -path ./run -prune -o -print | sort |
        while read -r f; do if [ -f "$f" ]; then sha256sum "$f"; else echo "dir $f"; fi; done); }
same_as() { # NAME PRISTINE TREE
        snapshot "$3" >"$tmp/now"
        if cmp -s "$2" "$tmp/now"; then ok "$1"; else not_ok "$1: $(diff "$2" "$tmp/now" | head -5)"; fi
}

mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/thp.profile" <<'EOF'
inherit = "base";
cmdline = { add = [ "transparent_hugepage=never" ]; };
EOF
cat >"$tmp/profiles/thpreq.profile" <<'EOF'
inherit = "base";
cmdline = { add = [ "transparent_hugepage=never" ]; required = true; };
EOF
PR="--profile-path $tmp/profiles --profile-path $P --rules-path $R"

# Stand-ins on PATH for the build machine's GRUB tools: each records that
# it ran. hosttune must run none of them for an image.
mkdir -p "$tmp/bin"
for t in grub-mkconfig grub2-mkconfig grub-probe update-grub; do
        printf '#!/bin/sh\necho "%s $*" >>"%s/ran"\n' "$t" "$tmp" >"$tmp/bin/$t"
        chmod 755 "$tmp/bin/$t"
done
REAL_MKCONFIG=$(command -v grub-mkconfig || true)
PATH=$tmp/bin:$PATH
export PATH
ran_nothing() { # NAME
        if [ -e "$tmp/ran" ]; then not_ok "$1: ran $(cat "$tmp/ran")"; rm -f "$tmp/ran"; else ok "$1"; fi
}

# ---- an image with /etc/default/grub and grub.cfg (debian12-kvm) -----------
I=$(offline_image img debian12-kvm)
scratch "$I"
# and with grub-mkconfig of its own, which records a run too
mkdir -p "$I/usr/sbin"
printf '#!/bin/sh\necho ran >/ran-grub-mkconfig\n' >"$I/usr/sbin/grub-mkconfig"
chmod 755 "$I/usr/sbin/grub-mkconfig"
snapshot "$I" >"$tmp/pristine"
cp "$I/boot/grub/grub.cfg" "$tmp/grub.cfg.orig"
run 2 "grub image: plan" --root "$I" $PR --json plan thp
cp "$tmp/out" "$tmp/plan.json"
check "grub image: no action (no regeneration)" '[]' "$(jq -c .actions "$tmp/plan.json")"
check "grub image: grub.cfg and /etc/default/grub planned" '["/boot/grub/grub.cfg","/etc/default/grub","/etc/sysctl.d/90-hosttune.conf"]' \
        "$(jq -c '[.files[].path] | sort' "$tmp/plan.json")"
check "grub image: no reboot" 'false' "$(jq -c .reboot_required "$tmp/plan.json")"
check "grub image: no message about boots but the image's" "" \
        "$(jq -r '.warnings[], .changes[].note // empty' "$tmp/plan.json" | grep -i 'reboot\|next boot\|first boot')"
run 0 "grub image: apply" --root "$I" $PR --json apply thp
check "grub image: apply changed, no reboot" 'true false' "$(jq -c '.changed, .reboot_required' "$tmp/out" | paste -sd' ' -)"
ran_nothing "grub image: no GRUB tool of the build machine ran"
check "grub image: the image's grub-mkconfig did not run" no "$([ -e "$I/ran-grub-mkconfig" ] && echo yes || echo no)"
check_contains "grub image: /etc/default/grub has the word" 'GRUB_CMDLINE_LINUX="transparent_hugepage=never"' "$I/etc/default/grub"
# every linux line of the three entries (default, advanced, recovery), and nothing else
check "grub image: every kernel line has the word" 3 "$(grep -c '^[[:space:]]*linux[[:space:]].* transparent_hugepage=never$' "$I/boot/grub/grub.cfg")"
grub_script_check "grub image: grub-script-check accepts the edited grub.cfg" "$I/boot/grub/grub.cfg"
check "grub image: grub.cfg otherwise as it was (root= the image's own)" "" \
        "$(diff "$tmp/grub.cfg.orig" "$I/boot/grub/grub.cfg" | grep '^[<>]' | sed 's/ transparent_hugepage=never$//' | sed 's/^[<>] //' | sort | uniq -u)"
run 0 "grub image: apply again" --root "$I" $PR --json apply thp
check "grub image: re-apply: nothing changed, the same reboot_required" 'false false' \
        "$(jq -c '.changed, .reboot_required' "$tmp/out" | paste -sd' ' -)"
check "grub image: re-apply: the word kept, for when the image boots" \
        '"kept" "in the image'"'"'s bootloader configuration; takes effect when the image boots"' \
        "$(jq -c '.changes[] | select(.backend == "cmdline") | .outcome, .note' "$tmp/out" | paste -sd' ' -)"
run 0 "grub image: verify" --root "$I" $PR verify
check "grub image: verify says image, and nothing of reboots or boots" "" "$(grep -i 'reboot\|boot as' "$tmp/out")"
check_contains "grub image: verify: an offline image" "; an offline image" "$tmp/out"
check_contains "grub image: verify: the word ok" "ok       cmdline transparent_hugepage: expected transparent_hugepage=never" "$tmp/out"
run 0 "grub image: rollback" --root "$I" rollback
check "grub image: rollback does not ask for a reboot" "" "$(grep -i reboot "$tmp/out")"
same_as "grub image: rollback gives grub.cfg and the rest back byte for byte" "$tmp/pristine" "$I"
ran_nothing "grub image: rollback ran no GRUB tool"

# ---- an image with /etc/default/grub and no grub.cfg yet ---------------------
N=$(offline_image nocfg debian12-kvm)
scratch "$N"
rm -f "$N/boot/grub/grub.cfg"
run 2 "no grub.cfg: plan" --root "$N" $PR --json plan thp
check "no grub.cfg: /etc/default/grub only, no action" '["/etc/default/grub","/etc/sysctl.d/90-hosttune.conf"] []' \
        "$(jq -c '([.files[].path] | sort), .actions' "$tmp/out" | paste -sd' ' -)"
check "no grub.cfg: the plan says who generates it" true \
        "$(jq -c '.warnings | any(startswith("this image has no grub.cfg yet") and contains("generates grub.cfg with them"))' "$tmp/out")"
ran_nothing "no grub.cfg: no GRUB tool ran"

# ---- a Debian image before grub-pc: no /etc/default/grub, no grub.cfg -------
D=$(offline_image debootstrap debian12-kvm)
scratch "$D"
rm -rf "$D/etc/default/grub" "$D/boot/grub"
snapshot "$D" >"$tmp/pristine-d"
run 2 "debootstrap: plan" --root "$D" $PR --json plan thp
cp "$tmp/out" "$tmp/plan-d.json"
check "debootstrap: hosttune.cfg planned with the rest" '["/etc/default/grub.d/hosttune.cfg","/etc/sysctl.d/90-hosttune.conf"]' \
        "$(jq -c '[.files[].path] | sort' "$tmp/plan-d.json")"
check "debootstrap: no errors" '[]' "$(jq -c .errors "$tmp/plan-d.json")"
check "debootstrap: never the container advice" "" "$(grep -i 'container' "$tmp/plan-d.json")"
check "debootstrap: the plan says where the words go" true \
        "$(jq -c '.warnings | any(contains("/etc/default/grub.d/hosttune.cfg, which Debian'"'"'s grub-mkconfig reads after /etc/default/grub"))' "$tmp/plan-d.json")"
run 0 "debootstrap: apply" --root "$D" $PR --json apply thp
check "debootstrap: apply changed, no reboot" 'true false' "$(jq -c '.changed, .reboot_required' "$tmp/out" | paste -sd' ' -)"
check "debootstrap: the file appends to the earlier value" 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX transparent_hugepage=never"' \
        "$(grep -v '^#' "$D/etc/default/grub.d/hosttune.cfg")"
run 0 "debootstrap: apply again" --root "$D" $PR --json apply thp
check "debootstrap: re-apply: nothing changed, the same reboot_required" 'false false' \
        "$(jq -c '.changed, .reboot_required' "$tmp/out" | paste -sd' ' -)"
ran_nothing "debootstrap: no GRUB tool ran"

# What grub-mkconfig makes of the file. Debian's grub-mkconfig sources
# /etc/default/grub when it exists, then every /etc/default/grub.d/*.cfg,
# with sh; 10_linux puts "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT"
# after root= and ro. Proven here with the real sh, (a) without
# /etc/default/grub (as now) and (b) after grub-pc's postinst has
# installed its template (grub2-common's /usr/share/grub/default/grub) as
# /etc/default/grub: the word is in GRUB_CMDLINE_LINUX, next to what the
# template sets.
source_like_mkconfig() { # DEFAULT-DIR
        sh -c 'if test -f "$1/grub"; then . "$1/grub"; fi
               for x in "$1"/grub.d/*.cfg; do if [ -e "$x" ]; then . "$x"; fi; done
               printf "%s|%s" "$GRUB_CMDLINE_LINUX" "$GRUB_CMDLINE_LINUX_DEFAULT"' sh "$1"
}
check "sh, as grub-mkconfig sources it, no /etc/default/grub: the word" " transparent_hugepage=never|" \
        "$(source_like_mkconfig "$D/etc/default")"
TEMPLATE=/usr/share/grub/default/grub
if [ -f "$TEMPLATE" ]; then
        mkdir -p "$tmp/with-template"
        cp -R "$D/etc/default/." "$tmp/with-template/"
        cp "$TEMPLATE" "$tmp/with-template/grub"
        check "sh, after grub-pc installs /etc/default/grub from its template: the word and the template's quiet" \
                " transparent_hugepage=never|quiet" "$(source_like_mkconfig "$tmp/with-template" 2>/dev/null)"
        # and hosttune, asked again once that file is there, keeps it as it is
        W=$(offline_image grubpc-later debian12-kvm)
        scratch "$W"
        rm -rf "$W/etc/default" "$W/boot/grub"
        cp -R "$tmp/with-template" "$W/etc/default"
        run 2 "grub-pc installed later: plan" --root "$W" $PR --json plan thp
        check "grub-pc installed later: the defaults need no edit" '["/etc/sysctl.d/90-hosttune.conf"] []' \
                "$(jq -c '[.files[].path], .errors' "$tmp/out" | paste -sd' ' -)"
else
        skip "sh, after grub-pc installs /etc/default/grub from its template" "no $TEMPLATE (grub2-common)"
        skip "grub-pc installed later: the defaults need no edit" "no $TEMPLATE (grub2-common)"
fi
# The real grub-mkconfig, in a throwaway mount namespace where
# /etc/default is the image's and /boot a scratch directory with a kernel
# of the fixture's version (root only).
if [ -n "$REAL_MKCONFIG" ] && [ "$(id -u)" = 0 ] && [ -d /etc/grub.d ] && unshare -m true 2>/dev/null &&
   grep -q 'default/grub.d/\*.cfg' "$REAL_MKCONFIG"; then
        boot=$(mktemp -d /var/tmp/ht-boot.XXXXXX)
        mkdir -p "$boot/grub"
        : >"$boot/vmlinuz-6.1.0-18-amd64"
        : >"$boot/initrd.img-6.1.0-18-amd64"
        mkconfig() { # DEFAULT-DIR OUTPUT
                PATH=/usr/sbin:/usr/bin:/sbin:/bin timeout 120 unshare -m sh -c 'mount --bind "$1" /etc/default &&
                        mount --bind "$2" /boot && "$4" -o "$3"' sh "$1" "$boot" "$2" "$REAL_MKCONFIG" >"$tmp/mk.out" 2>&1
        }
        for case in image:"$D/etc/default" template:"$tmp/with-template"; do
                name=${case%%:*} dir=${case#*:}
                [ -d "$dir" ] || continue
                if mkconfig "$dir" "$tmp/mk-$name.cfg" && [ -s "$tmp/mk-$name.cfg" ]; then
                        line=$(grep -m1 '^[[:space:]]*linux[[:space:]].*vmlinuz-6.1.0-18-amd64' "$tmp/mk-$name.cfg")
                        case " $line " in
                        *" transparent_hugepage=never "*) ok "real grub-mkconfig ($name): the kernel line has the word" ;;
                        *) not_ok "real grub-mkconfig ($name): kernel line without the word: $line" ;;
                        esac
                        if [ "$name" = template ]; then
                                case " $line " in
                                *" quiet "*) ok "real grub-mkconfig (template): ... and the template's quiet" ;;
                                *) not_ok "real grub-mkconfig (template): kernel line without quiet: $line" ;;
                                esac
                        fi
                else
                        skip "real grub-mkconfig ($name)" "grub-mkconfig fails here: $(tail -n 2 "$tmp/mk.out" | tr '\n' ' ')"
                fi
        done
        rm -rf "$boot"
else
        skip "real grub-mkconfig on hosttune.cfg" "needs root, Debian's grub-mkconfig (grub-common), /etc/grub.d and unshare -m"
fi
run 0 "debootstrap: rollback" --root "$D" rollback
check "debootstrap: rollback does not ask for a reboot" "" "$(grep -i reboot "$tmp/out")"
same_as "debootstrap: rollback removes hosttune.cfg, the image as it was" "$tmp/pristine-d" "$D"

# ---- an image of a layout hosttune does not know (Oracle Linux, no GRUB) ---
U=$(offline_image unknown ol8-bls)
scratch "$U"
rm -rf "$U/boot" "$U/etc/default/grub" "$U/etc/kernel/cmdline"
run 2 "unknown layout: plan" --root "$U" $PR --json plan thp
cp "$tmp/out" "$tmp/plan-u.json"
check "unknown layout: the rest of the profile is planned" '["/etc/sysctl.d/90-hosttune.conf"] []' \
        "$(jq -c '[.files[].path], .errors' "$tmp/plan-u.json" | paste -sd' ' -)"
check "unknown layout: the word skipped" '"skipped"' \
        "$(jq -c '.changes[] | select(.backend == "cmdline") | .outcome' "$tmp/plan-u.json")"
check "unknown layout: one warning, saying where the words must go" true \
        "$(jq -c '[.warnings[] | select(startswith("kernel command line not planned (transparent_hugepage=never): this image has no bootloader configuration yet") and contains("GRUB_CMDLINE_LINUX in /etc/default/grub once the GRUB package has created it"))] | length == 1' "$tmp/plan-u.json")"
check "unknown layout: never the container advice" "" "$(grep -i 'container' "$tmp/plan-u.json")"
# kernel-install in the image, no /etc/kernel/cmdline: it would take the
# build machine's /proc/cmdline, and hosttune cannot make the line up
mkdir -p "$U/usr/lib/kernel/install.d"
run 2 "kernel-install: plan" --root "$U" $PR --json plan thp
check "kernel-install: the warning names /etc/kernel/cmdline and why" true \
        "$(jq -c '.warnings | any(contains("else /proc/cmdline (in an image build the build machine'"'"'s): write the image'"'"'s complete line (root= and the rest) with these words to /etc/kernel/cmdline"))' "$tmp/out")"
run 1 "kernel-install: a required word is an error" --root "$U" $PR plan thpreq
check_contains "kernel-install: the error names the word and where" \
        "the kernel command line word transparent_hugepage=never is marked required, but this image has no bootloader configuration yet" "$tmp/out"
check "kernel-install: still no container advice" "" "$(grep -i 'container' "$tmp/out")"
run 1 "kernel-install: apply of a required word refused" --root "$U" $PR --json apply thpreq
check "kernel-install: refused apply says changed: false" false "$(jq -c .changed "$tmp/out")"
# a complete /etc/kernel/cmdline in the image: edited there
mkdir -p "$U/etc/kernel"
echo "root=UUID=6a1c1b2e-0f3d-4d7e-9a5b-2c8e4f6a1b3d ro crashkernel=auto" >"$U/etc/kernel/cmdline"
snapshot "$U" >"$tmp/pristine-u"
run 0 "kernel-install with /etc/kernel/cmdline: apply" --root "$U" $PR --json apply thp
check "kernel-install: the line keeps its words and gets the word" \
        "root=UUID=6a1c1b2e-0f3d-4d7e-9a5b-2c8e4f6a1b3d ro crashkernel=auto transparent_hugepage=never" "$(cat "$U/etc/kernel/cmdline")"
check "kernel-install: no reboot" false "$(jq -c .reboot_required "$tmp/out")"
run 0 "kernel-install: rollback" --root "$U" rollback
same_as "kernel-install: rollback restores /etc/kernel/cmdline byte for byte" "$tmp/pristine-u" "$U"

# ---- a failed apply: changed false, the image as it was --------------------
F=$(offline_image failing debian12-kvm)
scratch "$F"
# a directory others may write on the way to grub.cfg: apply refuses it
# when it records grub.cfg's prior state, with every other item, before
# anything is written (issue 34: the begin record comes first), so there
# is nothing to roll back
chmod g+w "$F/boot/grub"
snapshot "$F" >"$tmp/pristine-f"
run 1 "failed apply" --root "$F" $PR --json apply thp
check "failed apply: changed false" false "$(jq -c .changed "$tmp/out")"
check "failed apply: the error names grub.cfg" true "$(jq -c '.errors | any(contains("/boot/grub/grub.cfg"))' "$tmp/out")"
check "failed apply: refused before any write, nothing rolled back" true "$(jq -c '.rollback | length == 0' "$tmp/out")"
same_as "failed apply: the image as it was" "$tmp/pristine-f" "$F"
ran_nothing "failed apply: no GRUB tool ran"

finish
