#!/usr/bin/env python3
"""gen-devices.py HOST NBLOCK NCPU: add NBLOCK block devices and NCPU CPUs
to the fixture tree HOST, laid out as the kernel's sysfs lays them out
(/sys/block/NAME a symlink into /sys/devices; cpuN/cpufreq a symlink to
its policy under cpu/cpufreq; intel_pstate active with HWP), for the
scaling benchmarks (BENCHMARKS.md). Of every four block devices three are
SAS disks (rotational, mq-deadline) and one an NVMe namespace (none);
loop0 is added too, which no plan may touch."""
import os, sys

def put(path, value):
    with open(path, "w") as f:
        f.write(f"{value}\n")

def disk_name(k):
    # sda..sdz, sdaa..sdzz, then sdaaa.. as the sd driver names them
    s = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        s = chr(97 + r) + s
    return "sd" + s

def block(h, n):
    os.makedirs(f"{h}/sys/block", exist_ok=True)
    devs = []
    sas = 0
    for i in range(n):
        if i % 4 == 3:
            c = i // 4
            name = f"nvme{c}n1"
            rel = f"pci0000:00/0000:00:{c % 32:02x}.0/nvme/nvme{c}/{name}"
            q = {"rotational": 0, "scheduler": "[none] mq-deadline kyber bfq", "read_ahead_kb": 128,
                 "nr_requests": 1023, "rq_affinity": 1}
            dev = f"259:{c}"
        else:
            name = disk_name(sas)
            rel = (f"pci0000:80/0000:80:01.0/0000:81:00.0/host0/port-0:{sas}/end_device-0:{sas}/"
                   f"target0:0:{sas}/0:0:{sas}:0/block/{name}")
            q = {"rotational": 1, "scheduler": "[mq-deadline] kyber bfq none", "read_ahead_kb": 128,
                 "nr_requests": 256, "rq_affinity": 1}
            dev = f"8:{sas * 16}"
            sas += 1
        devs.append((name, rel, q, dev))
    devs.append(("loop0", "virtual/block/loop0",
                 {"rotational": 0, "scheduler": "[none] mq-deadline kyber bfq", "read_ahead_kb": 128,
                  "nr_requests": 128, "rq_affinity": 1}, "7:0"))
    for name, rel, q, dev in devs:
        d = f"{h}/sys/devices/{rel}"
        os.makedirs(f"{d}/queue", exist_ok=True)
        for k, v in q.items():
            put(f"{d}/queue/{k}", v)
        put(f"{d}/dev", dev)
        put(f"{d}/removable", 0)
        put(f"{d}/size", 1953525168)
        link = f"{h}/sys/block/{name}"
        if not os.path.islink(link):
            os.symlink(f"../devices/{rel}", link)

def cpus(h, n):
    base = f"{h}/sys/devices/system/cpu"
    os.makedirs(f"{base}/cpufreq", exist_ok=True)
    os.makedirs(f"{base}/intel_pstate", exist_ok=True)
    for k, v in {"status": "active", "min_perf_pct": 8, "max_perf_pct": 100, "no_turbo": 0,
                 "hwp_dynamic_boost": 0}.items():
        put(f"{base}/intel_pstate/{k}", v)
    rng = f"0-{n - 1}" if n > 1 else "0"
    for k in ("online", "possible", "present"):
        put(f"{base}/{k}", rng)
    for i in range(n):
        p = f"{base}/cpufreq/policy{i}"
        os.makedirs(p, exist_ok=True)
        for k, v in {"scaling_driver": "intel_pstate", "scaling_governor": "powersave",
                     "scaling_available_governors": "performance powersave",
                     "energy_performance_preference": "balance_performance",
                     "energy_performance_available_preferences":
                         "default performance balance_performance balance_power power",
                     "affected_cpus": i, "related_cpus": i,
                     "cpuinfo_min_freq": 800000, "cpuinfo_max_freq": 3900000,
                     "scaling_min_freq": 800000, "scaling_max_freq": 3900000}.items():
            put(f"{p}/{k}", v)
        c = f"{base}/cpu{i}"
        os.makedirs(c, exist_ok=True)
        if i:
            put(f"{c}/online", 1)
        if not os.path.islink(f"{c}/cpufreq"):
            os.symlink(f"../cpufreq/policy{i}", f"{c}/cpufreq")

if __name__ == "__main__":
    if len(sys.argv) != 4 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: gen-devices.py HOST NBLOCK NCPU (HOST a fixture tree)")
    if int(sys.argv[2]) > 0:
        block(sys.argv[1], int(sys.argv[2]))
    if int(sys.argv[3]) > 0:
        cpus(sys.argv[1], int(sys.argv[3]))
