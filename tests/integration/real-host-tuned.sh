#!/bin/sh
# hosttune against tuned itself on the machine's real kernel (issue 19):
# a tuned profile with [sysctl] (an exact value, a ">" that raises, a "<"
# the host already meets) and [vm] (THP), made from the values the
# machine has now. tuned 2.20's daemon applies it (tuned --no-dbus, in a
# private mount namespace: its /etc/tuned, /run/tuned, /var/lib/tuned and
# log are throwaway copies there, so the machine's own tuned files are
# never written); the values are recorded, tuned is stopped (it puts back
# what it changed) and any value left over is written back. Then
# `hosttune apply tuned:SAME` on the same kernel, confined as the other
# real-host tests are (real-host-lib.sh), must give the same values;
# `hosttune rollback` must restore them all. Root only; whatever happens,
# the saved values are written back (trap).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
. "$top_srcdir/tests/integration/real-host-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1

[ "$(id -u)" = 0 ] || skip_all "not root"
command -v tuned >/dev/null 2>&1 || skip_all "tuned is not installed (Debian: apt-get install tuned; CI installs it)"
real_host_lock
pgrep -x tuned >/dev/null 2>&1 && skip_all "a tuned daemon runs on this machine: it would fight the test"
confine_ok || skip_all "no private mount namespace here (unshare -m, mount --bind): cannot confine tuned and hosttune"
thp=/sys/kernel/mm/transparent_hugepage
vm=/proc/sys/vm
for f in swappiness dirty_ratio dirty_background_ratio; do
        [ -w "$vm/$f" ] || skip_all "no writable $vm/$f"
done
cur() { cat "$vm/$1"; }
word() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }
# a no-op write tells whether /proc/sys takes writes (read-only in containers)
printf '%s\n' "$(cur swappiness)" 2>/dev/null >"$vm/swappiness" || skip_all "/proc/sys is read-only"

swap0=$(cur swappiness) dr0=$(cur dirty_ratio) dbr0=$(cur dirty_background_ratio)
thp_ok=no
if [ -w "$thp/enabled" ] && grep -q '\[' "$thp/enabled"; then thp0=$(word "$thp/enabled"); thp_ok=yes; fi
restore() {
        printf '%s\n' "$swap0" >"$vm/swappiness" 2>/dev/null
        printf '%s\n' "$dr0" >"$vm/dirty_ratio" 2>/dev/null
        printf '%s\n' "$dbr0" >"$vm/dirty_background_ratio" 2>/dev/null
        [ "$thp_ok" = yes ] && printf '%s\n' "$thp0" >"$thp/enabled" 2>/dev/null
        rm -rf "$tmp"
}
trap restore EXIT
trap 'restore; exit 1' INT TERM

# the profile: every value differs from what the machine has, or is met
swap1=$((swap0 == 33 ? 34 : 33))
# ">": at least one more than now (below dirty_ratio, as the kernel wants)
dbr1=$((dbr0 + 1))
[ "$dbr1" -lt "$dr0" ] || dbr1=$((dr0 - 1))
# "<": at most more than now: already met, kept
dr_max=$((dr0 + 5))
name=ht-real-tuned
mkdir -p "$tmp/tuned/$name"
{
        echo "[main]"
        echo "summary=hosttune real-host test: [sysctl] and [vm] against tuned itself"
        echo "[sysctl]"
        echo "vm.swappiness=$swap1"
        echo "vm.dirty_background_ratio=>$dbr1"
        echo "vm.dirty_ratio=<$dr_max"
        if [ "$thp_ok" = yes ]; then
                echo "[vm]"
                echo "transparent_hugepages=$([ "$thp0" = never ] && echo madvise || echo never)"
        fi
} >"$tmp/tuned/$name/tuned.conf"
chmod -R go-w "$tmp/tuned"
# values VAR: the four values now, one line
values() { printf '%s %s %s %s\n' "$(cur swappiness)" "$(cur dirty_background_ratio)" "$(cur dirty_ratio)" \
        "$([ "$thp_ok" = yes ] && word "$thp/enabled" || echo -)"; }
before=$(values)

# ---- tuned ---------------------------------------------------------------------
# Its files in the namespace: a copy of /etc/tuned with the profile and a
# main configuration without dynamic tuning and without re-applying the
# system's sysctl.d (neither is what is compared here), tmpfs for
# /run/tuned and /var/lib/tuned.
mkdir -p "$tmp/etc-tuned"
[ -d /etc/tuned ] && cp -a /etc/tuned/. "$tmp/etc-tuned/"
cp -a "$tmp/tuned/$name" "$tmp/etc-tuned/$name"
printf 'daemon = 1\ndynamic_tuning = 0\nreapply_sysctl = 0\n' >"$tmp/etc-tuned/tuned-main.conf"
host_files >"$tmp/host-files-before"
tuned_etc_before=$(find /etc/tuned -type f -exec sha256sum {} + 2>/dev/null | LC_ALL=C sort)
cat >"$tmp/run-tuned.sh" <<'EOS'
# inside unshare -m: tuned applies PROFILE, the values are recorded, tuned stops
set -u
t=$1 name=$2 vm=/proc/sys/vm thp=/sys/kernel/mm/transparent_hugepage
mount --make-rprivate / 2>/dev/null
mount --bind "$t/etc-tuned" /etc/tuned || exit 1
mkdir -p /run/tuned /var/lib/tuned 2>/dev/null
mount -t tmpfs tmpfs /run/tuned || exit 1
mount -t tmpfs tmpfs /var/lib/tuned || exit 1
tuned --no-dbus -p "$name" -l "$t/tuned.log" -P /run/tuned/tuned.pid >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "static tuning from profile '$name' applied" "$t/tuned.log" 2>/dev/null; do
        sleep 0.05; i=$((i + 1))
done
if grep -q "static tuning from profile '$name' applied" "$t/tuned.log" 2>/dev/null; then
        printf '%s %s %s %s\n' "$(cat $vm/swappiness)" "$(cat $vm/dirty_background_ratio)" "$(cat $vm/dirty_ratio)" \
                "$(if grep -q '\[' $thp/enabled 2>/dev/null; then sed 's/.*\[\(.*\)\].*/\1/' $thp/enabled; else echo -; fi)" >"$t/tuned.values"
fi
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
printf '%s %s %s %s\n' "$(cat $vm/swappiness)" "$(cat $vm/dirty_background_ratio)" "$(cat $vm/dirty_ratio)" \
        "$(if grep -q '\[' $thp/enabled 2>/dev/null; then sed 's/.*\[\(.*\)\].*/\1/' $thp/enabled; else echo -; fi)" >"$t/tuned.after"
EOS
unshare -m --propagation private sh "$tmp/run-tuned.sh" "$tmp" "$name" >"$tmp/tuned.out" 2>&1
if [ -s "$tmp/tuned.values" ]; then ok "tuned applied the profile"
else
        not_ok "tuned applied the profile: $(tail -5 "$tmp/tuned.log" 2>/dev/null | tr '\n' ' ') $(head -c 400 "$tmp/tuned.out")"
        finish
fi
tuned_values=$(cat "$tmp/tuned.values")
expect_thp=$([ "$thp_ok" = yes ] && { [ "$thp0" = never ] && echo madvise || echo never; } || echo -)
check "tuned's values: swappiness, the raised dirty_background_ratio, the kept dirty_ratio, THP" \
        "$swap1 $dbr1 $dr0 $expect_thp" "$tuned_values"
check "stopping tuned put its values back" "$before" "$(cat "$tmp/tuned.after")"
# whatever tuned left, back to the saved values before hosttune runs
printf '%s\n' "$swap0" >"$vm/swappiness"; printf '%s\n' "$dbr0" >"$vm/dirty_background_ratio"
printf '%s\n' "$dr0" >"$vm/dirty_ratio"; [ "$thp_ok" = yes ] && printf '%s\n' "$thp0" >"$thp/enabled"
check "the machine's /etc/tuned is untouched by tuned" "$tuned_etc_before" \
        "$(find /etc/tuned -type f -exec sha256sum {} + 2>/dev/null | LC_ALL=C sort)"

# ---- hosttune ------------------------------------------------------------------
CROOT=$tmp/root
mkconfined_root "$CROOT"
mkdir -p "$tmp/profiles"
PROFILES=$tmp/profiles RULES=$top_srcdir/rules
state=$tmp/state
hr() { hc "$@" --state-dir "$state" --tuned-path "$tmp/tuned"; }
hr 2 "plan tuned:$name on the real host" --json plan "tuned:$name"
cp "$tmp/out" "$tmp/plan.json"
check "plan: nothing that is not carried over" "" "$(jq -r ".warnings[]" "$tmp/plan.json" | grep "not carried over")"
check "plan: no actions" "0" "$(jq_get "$tmp/plan.json" actions.#)"
hr 0 "apply tuned:$name on the real host" apply "tuned:$name"
check "hosttune's values are tuned's" "$tuned_values" "$(values)"
hr 0 "verify" verify
hr 0 "rollback" rollback
check "rollback: swappiness, dirty ratios and THP as before" "$before" "$(values)"

host_files >"$tmp/host-files-after"
if d=$(diff "$tmp/host-files-before" "$tmp/host-files-after"); then
        ok "the machine's own /etc, /boot, /var/lib/hosttune and /run/hosttune.lock are untouched"
else not_ok "the machine's files changed: $(printf '%s' "$d" | head -c 800)"; fi
finish
