#!/bin/sh
# Every command the documentation shows runs, with the exit status it is
# documented to have. The commands are extracted from the files themselves:
#  - README.md: the lines of its indented code blocks;
#  - man/hosttune.8: the .nf/.fi blocks and the .B/.BR lines that start
#    with "hosttune";
#  - packaging/ansible/examples/*.yml: each hosttune module task becomes the
#    command the module runs (plan in check mode first, as the playbook's
#    header says, then apply; verify for state: verified);
#  - packaging/cloud-init/*.yaml: write_files (into the fixture) and every
#    runcmd and power_state condition command.
# Each hosttune command runs against a fixture copy with --root, the
# source tree's profiles and rules inserted (a --root the doc names, such as
# /mnt/image, becomes an offline copy of the fixture; absolute redirects go
# inside the copy). The exit status must be 0, 2 or 3, or the one listed in
# EXPECT below; never 1 unless listed. A line that is not a hosttune
# command must match NOT_RUN, with the reason; anything else fails, so a
# doc command that drifts from the program, or a new one nobody checked,
# fails the suite.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import yaml' 2>/dev/null; then
        echo "1..0 # SKIP python3 with PyYAML is needed to read the YAML examples"
        exit 0
fi
# A 64 GB Oracle Linux 8 host: the examples' 18 GB SGA fits.
cp -a "$HOSTS/ol8-bls" "$tmp/fixture"
mkdir -p "$tmp/fixture/run" "$tmp/fixture/var/lib" "$tmp/fixture/var/log"

HOSTTUNE=$HOSTTUNE PROFILES=$PROFILES RULES=$RULES TMPD=$tmp SRC=$top_srcdir python3 - <<'PY'
import glob, os, re, shlex, shutil, subprocess, sys
import yaml

src, tmp = os.environ["SRC"], os.environ["TMPD"]
HOSTTUNE, PROFILES, RULES = (os.path.abspath(os.environ[k]) for k in ("HOSTTUNE", "PROFILES", "RULES"))

# Exit statuses the docs give, by the command as written (after the
# doc's own --root is taken out); every other hosttune command: 0, 2 or 3.
EXPECT = {
    "hosttune plan oracle --set sga_max_size=18G": {2},     # "what ... would change"
    "hosttune --json plan mysql": {2},                      # "exit 2 means changes pending"
    "hosttune --json plan mysql --set innodb_buffer_pool_size=8G > plan.json": {2},
    "hosttune apply oracle --set sga_max_size=18G --set oracle_user=oracle": {0},
    "hosttune --facts target.json apply oracle --set sga_max_size=18G": {0},
    "hosttune recommend": {0},
    # README, "Two workloads on one host": on the 64 GB fixture 24 GB fits, 48 GB does not (issue 37)
    "hosttune budget --what-if oracle:sga_max_size=24G": {0},
    "hosttune budget --what-if oracle:sga_max_size=48G": {2},
    "hosttune history": {0},
    "hosttune rollback": {0},
    "hosttune import tuned throughput-performance --output site.profile": {0},
    "hosttune --profile-path . apply site": {0},
}
# Lines that are not run here, each with the reason (a regular expression
# matched against the whole line).
NOT_RUN = [
    (r"sh scripts/(example|test)\.sh", "builds and runs the suite itself (scripts/test.sh is make check)"),
    (r"dnf .*", "installs packages on a RHEL-like host"),
    (r"(ANSIBLE_COLLECTIONS_PATH=\S+ )?ansible-playbook -i inventory hosttune\.hosttune\.fleet_report .*",
     "Ansible over an inventory of real hosts (tests/integration/ansible-fleet.sh runs the fleet report over fixture hosts)"),
    (r"chroot /mnt/image .*", "runs inside an image being built (tests/boot/image-offline.sh does it in a real image)"),
    (r"apt-get install \./hosttune_[^ ]*\.deb", "installs the package onto this machine (deb-package.sh checks the package)"),
    (r"sh packaging/build-deb\.sh", "builds the .deb (deb-package.sh, from .ci/run)"),
    (r"rpmbuild -tb hosttune-[^ ]*\.tar\.gz", "builds the RPM on an EL host (rpm-package.sh builds it here, from .ci/run)"),
    (r"\./autogen\.sh && \./configure .*make install", "installs onto this machine"),
    (r"hosttune \[--root DIR\].*", "the synopsis, not a command"),
    (r"\s*\[--.*", "the synopsis, continued"),
    (r"reboot", "reboots the machine"),
    (r"tuned-adm active", "asks the running tuned daemon (README's migration; tuned-profiles.sh reads active_profile)"),
    (r"systemctl disable --now tuned", "stops the machine's tuned (real-host-tuned.sh runs tuned itself)"),
    (r"echo \$\?", "prints the previous command's exit status"),
    (r"(HT_[A-Z_]+=(\"[^\"]*\"|\S+) )*make (check-boot|check-valgrind|fuzz)", "long-running test targets of their own"),
    (r"sh tests/boot/deps\.sh", "installs the boot test's packages on this machine (.ci/run, through scripts/deps.sh --ci)"),
    (r"sh tests/bench/run\.sh", "the benchmarks (minutes)"),
    (r"systemctl (--root \S+ )?enable hosttune-verify\.service", "enables the unit (tests/integration/systemd-unit.sh checks it)"),
    (r"facts\.hugepages\.default_size_kb is unknown: .*", "sample error output"),
    (r"Fix: pass --facts FILE .*", "sample error output"),
    (r"hosttune verify --boot", "the boot-time unit's command (after a reboot); verify runs here"),
    (r"hosttune (verify --boot|--quiet status) --textfile \$\{HOSTTUNE_TEXTFILE\}",
     "the verify and metrics units' commands, with systemd's variable (systemd-unit.sh runs the verify unit's)"),
    (r"# systemctl edit hosttune-verify\.service hosttune-metrics\.service", "edits the units' drop-ins"),
    (r"\[Service\]|Environment=HOSTTUNE_TEXTFILE=\S*", "a unit drop-in's lines (systemd-unit.sh reads the unit's HOSTTUNE_TEXTFILE)"),
    (r"systemctl enable --now hosttune-verify\.timer", "enables the timer on this machine (systemd-unit.sh checks the units with systemd-analyze)"),
    (r"apt-get install prometheus-node-exporter", "installs node_exporter onto this machine (metrics.sh checks the textfile promtool reads)"),
    (r"test \$\? -eq 3", "cloud-init's test of verify's exit status"),
    (r"set -e", "the first line of cloud-init's runcmd script (tests/integration/cloud-init.sh checks that cloud-init writes it first)"),
    (r'GRUB_CMDLINE_LINUX="\$GRUB_CMDLINE_LINUX [^"]*"', "a line of /etc/default/grub.d/hosttune.cfg (offline-bootloader.sh checks it)"),
]
n = failed = 0
def ok(desc):
    global n; n += 1; print("ok %d - %s" % (n, desc))
def not_ok(desc):
    global n, failed; n += 1; failed += 1; print("not ok %d - %s" % (n, desc))

fixture = os.path.join(tmp, "fixture")
# HT_TUNED_DIR: another tuned profile directory (as tuned-corpus.sh takes it)
TUNED_DIR = os.environ.get("HT_TUNED_DIR", "/usr/lib/tuned")
roots = {}
# What a skipped line would have written (--output FILE), by document: a
# later line of that document naming the file, or the profile it holds,
# is skipped too, with the reason, rather than failing for want of it.
skipped_outputs = {}
def root_for(name, offline, applied=False):
    """One fixture copy per document (commands run in its order); an
    offline image (no /proc/sys, no /sys) where the doc names a --root;
    applied: the oracle profile applied first (for the commands a page
    names in its text, which read an applied host)."""
    key = (name, offline, applied)
    if key not in roots:
        d = os.path.join(tmp, "root-%d" % len(roots))
        shutil.copytree(fixture, d, symlinks=True)
        # the MariaDB units Debian ships: the mysql examples tune a host that has the server
        shutil.copytree(os.path.join(os.environ["SRC"], "tests/units/debian12-mariadb"), d,
                        symlinks=True, dirs_exist_ok=True)
        # tuned's active profile, as tuned-adm leaves it (README's migration)
        os.makedirs(os.path.join(d, "etc/tuned"), exist_ok=True)
        with open(os.path.join(d, "etc/tuned/active_profile"), "w") as f:
            f.write("throughput-performance\n")
        if offline:
            shutil.rmtree(os.path.join(d, "proc"), ignore_errors=True)
            shutil.rmtree(os.path.join(d, "sys"), ignore_errors=True)
        roots[key] = d
        if applied:
            subprocess.run([HOSTTUNE, "--root", d, "--profile-path", PROFILES, "--rules-path", RULES,
                            "apply", "oracle", "--set", "sga_max_size=18G"], check=True,
                           stdout=subprocess.DEVNULL)
    return roots[key]

def run_line(doc, line, applied=False):
    docfile = doc.split(":")[0]
    line = line.strip()
    if not line or line.startswith("#"):
        return
    m = re.fullmatch(r"chroot /mnt/image groupadd -g (\d+) (\w+)", line)
    if m:
        # the image-build recipe's group, as groupadd adds it: a later
        # plan of the image composes with the oracle profile applied
        # there (an applied workload stays), which needs it
        with open(os.path.join(root_for(docfile, True, applied), "etc/group"), "a") as f:
            f.write("%s:x:%s:\n" % (m.group(2), m.group(1)))
        ok("%s: %s (done as groupadd does: a line of the image's /etc/group)" % (doc, line))
        return
    for pat, why in NOT_RUN:
        if re.fullmatch(pat, line):
            ok("%s: not run: %s (%s)" % (doc, line, why))
            return
    cmd = line
    if cmd.startswith("ssh "):                    # run "on the machine of the target shape"
        cmd = re.sub(r"^ssh \S+ ", "", cmd)
    if not cmd.startswith("hosttune "):
        not_ok("%s: %r is neither a hosttune command nor listed in NOT_RUN" % (doc, line))
        return
    m = re.search(r" --root (\S+)", cmd)
    offline = bool(m)
    if m:
        cmd = cmd.replace(m.group(0), "", 1)
    for name, (made, why) in skipped_outputs.get(docfile, {}).items():
        if re.search(r"(^|\s)%s(\s|$)" % re.escape(name), cmd):
            ok("%s: %s # SKIP needs %s, which an earlier line would have written (%s)" % (doc, line, made, why))
            return
    root = root_for(docfile, offline, applied)
    cwd = os.path.join(tmp, "cwd-" + os.path.basename(docfile))
    os.makedirs(cwd, exist_ok=True)
    want = EXPECT.get(cmd, {0, 2, 3})
    # shorter waits: status --interval 10 samples for 1 second
    run = re.sub(r"--interval \d+", "--interval 1", cmd)
    # absolute redirects land inside the fixture copy
    run = re.sub(r">\s*/(?!dev/)", ">" + root + "/", run)
    prefix = "%s --root %s --profile-path %s --rules-path %s" % tuple(
        shlex.quote(x) for x in (HOSTTUNE, root, PROFILES, RULES))
    if "tuned" in cmd:
        # the installed tuned's profiles, read in place (CI installs tuned)
        if not os.path.isdir(TUNED_DIR):
            why = "no tuned profiles in %s" % TUNED_DIR
            ok("%s: %s # SKIP %s" % (doc, line, why))
            out = re.search(r" --output (\S+)", cmd)
            if out:
                made = skipped_outputs.setdefault(docfile, {})
                made[out.group(1)] = (out.group(1), why)
                made[re.sub(r"\.profile$", "", os.path.basename(out.group(1)))] = (out.group(1), why)
            return
        prefix += " --tuned-path " + shlex.quote(TUNED_DIR)
    run = re.sub(r"(^|[;&|]\s*)hosttune ", lambda mm: mm.group(1) + prefix + " ", run)
    p = subprocess.run(["sh", "-c", run], cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode in want:
        ok("%s: %s (exit %d)" % (doc, line, p.returncode))
    else:
        not_ok("%s: %s: exit %d, expected %s; stderr: %s stdout: %s" % (
            doc, line, p.returncode, "/".join(map(str, sorted(want))), p.stderr[:600], p.stdout[-600:]))

def unroff(s):
    return s.replace("\\-", "-").replace("\\&", "").replace("\\(em", "-")

# README.md: indented code blocks (a comment after a command is dropped).
lines = open(os.path.join(src, "README.md")).read().split("\n")
inblock = False
for i, l in enumerate(lines):
    if l.startswith("    ") and (inblock or i == 0 or lines[i - 1].strip() == ""):
        inblock = True
        run_line("README.md:%d" % (i + 1), re.sub(r"\s+#.*$", "", l))
    elif l.strip():
        inblock = False

# man/hosttune.8: .nf/.fi blocks, and command lines in the text.
page = open(os.path.join(src, "man/hosttune.8")).read().split("\n")
nf = False
for i, l in enumerate(page):
    where = "hosttune.8:%d" % (i + 1)
    if l == ".nf":
        nf = True
    elif l == ".fi":
        nf = False
    elif nf:
        run_line(where, unroff(l))
    else:
        m = re.match(r'^\.BR? "?(hosttune [^"]*)"?(\s+\S+)?$', l)
        if m:
            run_line(where, unroff(m.group(1)), applied=True)

# Ansible examples: the command each hosttune task makes the module run.
for f in sorted(glob.glob(os.path.join(src, "packaging/ansible/examples/*.yml"))):
    doc = os.path.relpath(f, src)
    for play in yaml.safe_load(open(f)):
        pvars = play.get("vars", {})
        def expand(v):
            if isinstance(v, str):
                m = re.fullmatch(r"\{\{\s*(\w+)\s*\}\}", v)
                if m:
                    return pvars[m.group(1)]
            return v
        for t in play.get("tasks", []):
            args = t.get("hosttune.hosttune.hosttune")
            if args is None:
                if "ansible.builtin.reboot" in t:
                    ok("%s: task %r not run: reboots the host" % (doc, t.get("name")))
                continue
            state = args.get("state", "applied")
            if state == "applied":
                sets = ""
                for k, v in sorted((expand(args.get("params")) or {}).items()):
                    v = ("true" if v else "false") if isinstance(v, bool) else str(v)
                    sets += " --set %s=%s" % (k, v)
                run_line(doc, "hosttune --json plan %s%s" % (expand(args["profile"]), sets))
                run_line(doc, "hosttune --json apply %s%s" % (expand(args["profile"]), sets))
            elif state == "verified":
                run_line(doc, "hosttune --json verify")
            elif state == "rolled_back":
                run_line(doc, "hosttune --json rollback" + (" " + args["txid"] if args.get("txid") else ""))
            else:
                not_ok("%s: task %r: unknown state %r" % (doc, t.get("name"), state))

# cloud-init: write_files into the fixture, then runcmd and the reboot condition.
for f in sorted(glob.glob(os.path.join(src, "packaging/cloud-init/*.yaml"))):
    doc = os.path.relpath(f, src)
    cfg = yaml.safe_load(open(f))
    root = root_for(doc, False)
    for w in cfg.get("write_files", []):
        path = root + w["path"]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as out:
            out.write(w["content"])
        os.chmod(path, int(str(w.get("permissions", "0644")), 8))
    cmds = list(cfg.get("runcmd", []))
    cond = (cfg.get("power_state") or {}).get("condition")
    if cond:
        cmds.append(cond)
    for c in cmds:
        if isinstance(c, list):
            if c[:2] == ["sh", "-c"]:
                # each part of the shell line on its own
                for part in re.split(r";|&&", c[2]):
                    run_line(doc, re.sub(r"\s*>\s*/dev/null", "", part))
                continue
            c = " ".join(shlex.quote(x) for x in c)
        run_line(doc, c)

print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
