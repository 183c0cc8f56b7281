#!/usr/bin/env python3
# What `rocecheck devices --topo` reports on the PCIe fixtures: pairings,
# paths, IOMMU mode, peer memory, and the recorded H200 guest as it was.
import json
import os
import subprocess
import sys

RCK = os.environ["ROCECHECK"]
PCI = os.path.join(os.environ["ROCECHECK_FIXTURES"], "pci")
fails = []


def topo(tree, *extra):
    p = subprocess.run([RCK, "--sysfs-root", os.path.join(PCI, tree, "sys"), "devices", "--topo", *extra],
                       capture_output=True, text=True, timeout=60)
    if p.returncode:
        raise SystemExit("%s: exit %d: %s" % (tree, p.returncode, p.stderr))
    return json.loads(p.stdout) if "-j" in extra else p.stdout


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, want %r" % (what, got, want))


d = topo("gpu8", "-j")
check("gpu8 gpus", len(d["gpus"]), 8)
check("gpu8 nics", sum(f["kind"] == "nic" for f in d["functions"]), 8)
check("gpu8 best", {g["best_relation"] for g in d["gpus"]}, {"PIX"})
check("gpu8 GPU0 best NICs", d["gpus"][0]["best_nics"], ["0000:25:00.0", "0000:25:00.1"])
check("gpu8 GPU0 same socket", d["gpus"][0]["nics"]["0000:65:00.0"], "NODE")
check("gpu8 GPU0 other socket", d["gpus"][0]["nics"]["0000:a5:00.0"], "SYS")
check("gpu8 GPU0 path", d["paths"][0], ["0000:23:00.0", "0000:22:00.0", "0000:21:00.0", "0000:20:01.0"])
check("gpu8 iommu", (d["iommu"], d["iommu_source"]), ("passthrough", "sysfs"))
check("gpu8 peermem", (d["peermem"], d["dmabuf"], d["virtual"]), (True, True, False))
nic = next(f for f in d["functions"] if f["address"] == "0000:25:00.0")
check("gpu8 NIC", (nic["rdma"], nic["numa_node"], nic["max_read_req"], nic["relaxed_ordering"]),
      (["mlx5_0"], 0, 4096, True))
check("gpu8 AER", nic["aer"], {"correctable": 0, "nonfatal": 0, "fatal": 0})

d = topo("acs-on", "-j")
dsp = next(f for f in d["functions"] if f["address"] == "0000:62:00.0")
check("acs-on DSP ctl", (dsp["acs"]["ctl"]["rr"], dsp["acs"]["ctl"]["cr"]), (True, True))

d = topo("wrong-socket", "-j")
check("wrong-socket GPU0 best", (d["gpus"][0]["best_relation"], d["gpus"][0]["best_nics"]),
      ("NODE", ["0000:65:00.0", "0000:65:00.1"]))

d = topo("vm", "-j")
check("vm", (d["iommu"], d["virtual"], d["gpus"][0]["best_relation"]), ("translated", True, "PHB"))
check("vm ATS", {f["ats_enabled"] for f in d["functions"]}, {True})

d = topo("h200-vm", "-j")
check("h200 functions", [(f["address"], f["kind"], f["vendor"], f["device"]) for f in d["functions"]],
      [("0000:00:06.0", "gpu", "10de", "2335")])
g = d["functions"][0]
check("h200 link", g["link"], {"speed_gts": 32.0, "width": 16, "max_speed_gts": 32.0, "max_width": 16,
                               "degraded": False})
check("h200 host", (d["iommu"], d["virtual"], d["peermem"], g["numa_node"], g["driver"]),
      ("off", True, False, None, "nvidia"))
check("h200 pairing", (d["gpus"][0]["best_relation"], d["gpus"][0]["nics"]), (None, {}))
text = topo("h200-vm")
check("h200 text", "0000:00:06.0  gpu     10de:2335" in text and "32GT/s x16 / 32GT/s x16" in text, True)

for f in fails:
    print("FAIL", f)
print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
