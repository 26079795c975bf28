#!/bin/sh
# Issue 38: `hosttune explain unit.UNIT.DIRECTIVE` names the unit file and
# drop-in lines that set a service's limit in systemd's order — drop-ins
# under every name of the unit (an alias's too), the type's service.d,
# sorted by file name across /etc, /run and /usr/lib, a same-named one
# earlier on the load path hiding the later — and the one in effect,
# compared with systemd's own reading: `systemd-analyze --root=DIR verify`
# (its unit dump at debug level: the drop-in paths in load order and the
# limit it computed). Reads a fixture only; no root needed.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

r=$tmp/root
mkdir -p "$r/usr/lib/systemd/system/service.d" "$r/etc/systemd/system/mysql.service.d" \
        "$r/etc/systemd/system/mysqld.service.d" "$r/run/systemd/system/mysqld.service.d" \
        "$r/usr/lib/systemd/system/mysqld.service.d"
printf '[Unit]\nDescription=MySQL\n\n[Service]\nExecStart=/usr/sbin/mysqld\nLimitNOFILE=1000\n\n[Install]\nAlias=mysql.service\n' \
        >"$r/usr/lib/systemd/system/mysqld.service"
ln -s /usr/lib/systemd/system/mysqld.service "$r/etc/systemd/system/mysql.service"
printf '[Service]\nLimitNOFILE=5000\nLimitMEMLOCK=64M\n' >"$r/usr/lib/systemd/system/service.d/10-all.conf"
printf '[Service]\nLimitNOFILE=2000\n' >"$r/etc/systemd/system/mysql.service.d/50-alias.conf"
printf '# Managed by hosttune (profile t).\n[Service]\nLimitNOFILE=3000\n' >"$r/etc/systemd/system/mysqld.service.d/hosttune.conf"
printf '[Service]\nLimitNOFILE=4000\n' >"$r/run/systemd/system/mysqld.service.d/zz.conf"
# the same name in /usr/lib: hidden by /run's
printf '[Service]\nLimitNOFILE=9999\nLimitMEMLOCK=infinity\n' >"$r/usr/lib/systemd/system/mysqld.service.d/zz.conf"

ht "$r" --json explain unit.mysql.LimitNOFILE
check "explain unit.mysql.LimitNOFILE: exit 0" 0 "$rc"
check "explain: the real name, systemd's reading" "service mysqld.service LimitNOFILE systemd" \
        "$(jq -r '"\(.kind) \(.key) \(.boot.consumer)"' "$tmp/out")"
check "explain: every line in systemd's order" \
        "/usr/lib/systemd/system/mysqld.service:6=1000 /usr/lib/systemd/system/service.d/10-all.conf:2=5000 /etc/systemd/system/mysql.service.d/50-alias.conf:2=2000 /etc/systemd/system/mysqld.service.d/hosttune.conf:3=3000 /run/systemd/system/mysqld.service.d/zz.conf:2=4000" \
        "$(jq -r '[.boot.assignments[] | "\(.file):\(.line)=\(.value)"] | join(" ")' "$tmp/out")"
check "explain: the one in effect" "/run/systemd/system/mysqld.service.d/zz.conf:2 4000" \
        "$(jq -r '.boot.winner | "\(.file):\(.line) \(.value)"' "$tmp/out")"
check "explain: the hidden drop-in" /usr/lib/systemd/system/mysqld.service.d/zz.conf "$(jq -r '.boot.masked | join(" ")' "$tmp/out")"
check "explain: the unit's names" "mysqld.service mysql.service" "$(jq -r '.boot.names | join(" ")' "$tmp/out")"
jq -r '.boot.files[1:][]' "$tmp/out" >"$tmp/our-dropins"
ht "$r" --json explain unit.mysqld.service.LimitMEMLOCK
check "explain LimitMEMLOCK: the type's drop-in, not the hidden one" "/usr/lib/systemd/system/service.d/10-all.conf:3 64M" \
        "$(jq -r '.boot.winner | "\(.file):\(.line) \(.value)"' "$tmp/out")"
ht "$r" explain unit.nosuch.LimitNOFILE
check "explain for a unit that does not exist: exit 1" 1 "$rc"
check_contains "... and says so" "no unit nosuch on this host" "$tmp/err"
ht "$r" --color=never explain unit.mysqld.service.LimitNOFILE
check_contains "explain text: the winner marked" "/run/systemd/system/mysqld.service.d/zz.conf:2  LimitNOFILE = 4000   <- wins" "$tmp/out"

# systemd's own reading
if ! command -v systemd-analyze >/dev/null 2>&1; then
        skip "systemd-analyze verify --root" "systemd-analyze is not installed"
else
        SYSTEMD_LOG_LEVEL=debug systemd-analyze --root="$r" --man=no verify mysqld.service >"$tmp/sa" 2>&1
        if grep -q 'DropIn Path:' "$tmp/sa"; then
                sed -n "s|^[[:space:]]*DropIn Path: $r||p" "$tmp/sa" >"$tmp/their-dropins"
                check "the drop-ins in systemd's load order" "$(cat "$tmp/their-dropins")" "$(cat "$tmp/our-dropins")"
                check "LimitNOFILE as systemd computes it" "4000" \
                        "$(sed -n 's/^[[:space:]]*LimitNOFILE: //p' "$tmp/sa" | head -1)"
                # 64M is 67108864 bytes
                check "LimitMEMLOCK as systemd computes it" "67108864" \
                        "$(sed -n 's/^[[:space:]]*LimitMEMLOCK: //p' "$tmp/sa" | head -1)"
        else
                skip "systemd-analyze verify --root" "its unit dump was not printed: $(head -c 300 "$tmp/sa")"
        fi
fi
echo "1..$n"
[ "$failed" -eq 0 ]
