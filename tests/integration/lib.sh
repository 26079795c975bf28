# Shared by the integration tests: TAP helpers and a scratch directory.
# Sourced; expects HOSTTUNE, top_srcdir and top_builddir from make check.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
HOSTTUNE=${HOSTTUNE:-$top_builddir/hosttune}
HOSTS=$top_srcdir/tests/hosts
# which test ran a --json document that tests/json/capture keeps
HT_JSON_TEST=${0##*/}; export HT_JSON_TEST
PROFILES=$top_srcdir/profiles
[ -x "$HOSTTUNE" ] || { echo "Bail out! $HOSTTUNE not built"; exit 99; }
# Every fixture host under tests/hosts stands for a running system: its
# proc/ and sys/ are plain files playing a kernel. hosttune takes a --root
# tree for an image unless told otherwise (issue 32); this test-only
# variable (HACKING.md, "Fixture hosts") tells it that such a tree is live.
# It does not let a tree's programs run: that takes --live-root.
HOSTTUNE_TEST_LIVE_FIXTURES=1; export HOSTTUNE_TEST_LIVE_FIXTURES
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ht-test.XXXXXX") || exit 99
# (and user_dir's directory, when it had to make one outside $tmp)
trap 'rm -rf "$tmp" ${ht_user_tmp:+"$ht_user_tmp"}' EXIT INT TERM

# sampled INDEX [PERIOD]: whether a sweep runs its item number INDEX.
# Always, but under check-valgrind (HT_VALGRIND_LOGS set) one item in
# PERIOD (4): the fixture x profile sweeps were half of that pass's
# 28 minutes, while the plain, ASan and hardened passes run every item;
# valgrind's own finds (uninitialised reads, leaks) come from the code
# paths, which a diagonal through hosts and profiles still walks.
# Callers number items so that each host and each profile is sampled.
sampled() {
        [ -n "${HT_VALGRIND_LOGS:-}" ] || return 0
        [ $(($1 % ${2:-4})) = 0 ]
}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
# check DESCRIPTION EXPECTED ACTUAL
check() {
        if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: expected [$2], got [$3]"; fi
}
# check_contains DESCRIPTION NEEDLE FILE: an empty needle is a defect of the
# test (grep finds it in any file), so it fails
check_contains() {
        if [ -z "$2" ]; then not_ok "$1: empty needle (the test lost its expected text)"
        elif grep -qF -- "$2" "$3"; then ok "$1"; else not_ok "$1: [$2] not in $(head -c 600 "$3")"; fi
}
# skip DESCRIPTION REASON: one TAP check skipped, with its reason
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# skip_all REASON: the whole script is skipped (TAP's "1..0 # SKIP")
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# grub_script_check DESCRIPTION FILE: GRUB 2's own parser accepts a grub.cfg
# hosttune wrote (issue 32: words must never break it). grub-script-check
# is Debian's grub-common (pulled in by grub2-common, scripts/deps.sh),
# grub2-script-check RHEL's grub2-tools.
grub_script_check() {
        gsc=$(command -v grub-script-check || command -v grub2-script-check) || gsc=
        if [ -z "$gsc" ]; then
                skip "$1" "grub-script-check not installed (Debian: grub-common; RHEL: grub2-tools)"
        elif "$gsc" "$2" >"${tmp:-/tmp}/gsc.out" 2>&1; then ok "$1"
        else not_ok "$1: $(head -c 300 "${tmp:-/tmp}/gsc.out")"; fi
}
# real_host_lock: the tests that read or write the real host's /proc/sys
# and /sys take this lock, held until the script exits, so that `make -j`
# never runs one while another changes the values it reads or restores.
real_host_lock() {
        command -v flock >/dev/null 2>&1 || { echo "Bail out! flock (util-linux) is needed"; exit 99; }
        # one fixed path for the machine, not under $TMPDIR: a package build
        # runs the suite with a TMPDIR of its own, on the same real host
        HT_REAL_HOST_LOCK=${HT_REAL_HOST_LOCK:-/tmp/hosttune-real-host-tests.lock}
        # read-only: a lock file another user made first still serves
        ( umask 0; : >>"$HT_REAL_HOST_LOCK" ) 2>/dev/null
        exec 9<"$HT_REAL_HOST_LOCK" || { echo "Bail out! cannot open $HT_REAL_HOST_LOCK"; exit 99; }
        flock 9
}
# run EXPECTED-EXIT DESCRIPTION ARGS...: runs hosttune, output in $tmp/out, $tmp/err
run() {
        want=$1 desc=$2
        shift 2
        "$HOSTTUNE" "$@" >"$tmp/out" 2>"$tmp/err"
        got=$?
        if [ "$got" = "$want" ]; then ok "$desc (exit $got)"; else
                not_ok "$desc: exit $got, expected $want; stderr: $(head -c 600 "$tmp/err")"; fi
}
# scratch DIR: DIR must be a directory inside this test's $tmp (or the
# directory user_dir made for it). A host
# copy is taken by command substitution, which yields "" if the copy is
# killed; "$h/etc/sysctl.d" would then be the real host's. Every test that
# edits a copy by hand checks it first.
scratch() {
        case ${1:-} in
        "$tmp"/?*) [ -d "$1" ] && [ ! -L "$1" ] && return 0 ;;
        "${ht_user_tmp:-$tmp}"/?*) [ -d "$1" ] && [ ! -L "$1" ] && return 0 ;;
        esac
        echo "Bail out! not a scratch copy inside $tmp: '${1:-}'"
        exit 99
}
# copy_host NAME [DIR]: a writable copy of a fixture host in DIR (default
# $tmp); prints its path
copy_host() {
        ch_dir=${2:-$tmp}
        rm -rf "$ch_dir/host-$1"
        cp -a "$HOSTS/$1" "$ch_dir/host-$1"
        # git keeps only the execute bit: a checkout made under umask 077
        # has 0600 files, which no host ships; give the copy the modes a
        # distribution gives (0755 directories, 0644 files), so checks
        # that run as an unprivileged user can read what any user can
        chmod -R u+rwX,go+rX,go-w "$ch_dir/host-$1"
        printf '%s\n' "$ch_dir/host-$1"
}
# offline_image NAME FIXTURE: a copy of the fixture host without proc/
# and sys/ (an image that has never booted) in $tmp/NAME, with the modes
# copy_host gives; prints its path
offline_image() {
        mkdir -p "$tmp/$1"
        (cd "$HOSTS/$2" && tar cf - --exclude=./proc --exclude=./sys .) | (cd "$tmp/$1" && tar xf -)
        chmod -R u+rwX,go+rX,go-w "$tmp/$1"
        printf '%s\n' "$tmp/$1"
}
# user_dir: sets $udir to a scratch directory that the unprivileged user
# the tests run hosttune as (uid 65534, through setpriv) can reach: $tmp,
# opened to 0755, when every directory above it lets that user through;
# otherwise (TMPDIR, or what lies above it, only root may enter: a private
# TMPDIR, rpmbuild under a 0700 directory) a new 0755 directory in /tmp,
# removed at exit. Empty when the user can reach neither: the caller skips
# with that reason. Root only.
user_dir() {
        udir=
        chmod 0755 "$tmp"
        if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$tmp/." 2>/dev/null; then
                udir=$tmp
                return 0
        fi
        [ -n "${ht_user_tmp:-}" ] || ht_user_tmp=$(mktemp -d /tmp/ht-user.XXXXXX) || return 0
        chmod 0755 "$ht_user_tmp"
        if setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ht_user_tmp/." 2>/dev/null; then
                udir=$ht_user_tmp
        fi
}
finish() {
        echo "1..$n"
        [ "$failed" -eq 0 ]
        exit $?
}
