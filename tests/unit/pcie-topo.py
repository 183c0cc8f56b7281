#!/usr/bin/env python3
# What `rocecheck devices --topo` reports on the PCIe fixtures: pairings,
# paths, IOMMU mode, peer memory, and the recorded H200 guest as it was.
import json
import os
import shutil
import subprocess
import sys
import tempfile

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
                               "degraded": False, "slot_limited": False})
check("h200 host", (d["iommu"], d["virtual"], d["peermem"], g["numa_node"], g["driver"]),
      ("off", True, False, None, "nvidia"))
check("h200 pairing", (d["gpus"][0]["best_relation"], d["gpus"][0]["nics"]), (None, {}))
text = topo("h200-vm")
check("h200 text", "0000:00:06.0  gpu     10de:2335" in text and "32GT/s x16 / 32GT/s x16" in text, True)

# A x16 Gen5 NIC in a Gen4 x8 slot: slot-limited, not degraded in text.
d = topo("slot-x8", "-j")
lk = {f["address"]: f["link"] for f in d["functions"]}
check("slot-x8 nic", (lk["0000:e5:00.0"]["degraded"], lk["0000:e5:00.0"]["slot_limited"]), (True, True))
check("slot-x8 others", sum(v["slot_limited"] for v in lk.values() if v), 2)
text = topo("slot-x8")
check("slot-x8 text", "16GT/s x8 / 32GT/s x16 SLOT " in text and " DEGRADED" not in text, True)

# The cron sweep: AER counts kept in the state, rising ones named next run;
# the Prometheus textfile carries link state and AER totals.
with tempfile.TemporaryDirectory(prefix="rck-pcie.") as tmp:
    root = os.path.join(tmp, "gpu8")
    shutil.copytree(os.path.join(PCI, "gpu8"), root, symlinks=True)
    state, prom = os.path.join(tmp, "state"), os.path.join(tmp, "prom")

    def sweep():
        p = subprocess.run([RCK, "--sysfs-root", os.path.join(root, "sys"), "sweep", "-j", "--hold", "1/1",
                            "--state", state, "--prom", prom], capture_output=True, text=True, timeout=60)
        if p.returncode not in (0, 1):
            raise SystemExit("sweep: exit %d: %s" % (p.returncode, p.stderr))
        return [f for f in json.loads(p.stdout)["findings"] if f["code"] == "pcie_aer"]

    check("sweep, first run", sweep(), [])
    aer = os.path.join(root, "sys/bus/pci/devices/0000:25:00.0/aer_dev_correctable")
    with open(aer) as fh:
        text = fh.read().replace("TOTAL_ERR_COR 0", "TOTAL_ERR_COR 7")
    with open(aer, "w") as fh:
        fh.write(text)
    got = sweep()
    check("sweep, AER rising", [(f["nic"], f["severity"], f["values"]) for f in got],
          [("mlx5_0", "warning", {"correctable": 7.0})])
    check("sweep, AER steady", sweep(), [])
    with open(prom) as fh:
        metrics = fh.read()
    check("prom AER", 'rocecheck_pcie_aer_errors_total{function="0000:25:00.0",kind="nic",'
          'severity="correctable"} 7' in metrics, True)
    check("prom link", 'rocecheck_pcie_link_width{function="0000:23:00.0",kind="gpu"} 16' in metrics, True)
    p = subprocess.run(["promtool", "check", "metrics"], input=metrics, capture_output=True, text=True,
                       timeout=60)
    check("promtool", (p.returncode, p.stderr.strip()), (0, ""))
    # A recording keeps each NIC's infiniband/ folder, not class/infiniband.
    shutil.rmtree(os.path.join(root, "sys/class/infiniband"))
    p = subprocess.run([RCK, "--sysfs-root", root, "devices", "--topo", "-j"], capture_output=True, text=True,
                       timeout=60)
    check("RDMA names from the function", [f["rdma"] for f in json.loads(p.stdout)["functions"]
                                           if f["kind"] == "nic"][:2], [["mlx5_0"], ["mlx5_1"]])
    # A partial recording (no vendor file): the IDs come from config space.
    os.unlink(os.path.join(root, "sys/bus/pci/devices/0000:23:00.0/vendor"))
    p = subprocess.run([RCK, "--sysfs-root", os.path.join(root, "sys"), "devices", "--topo", "-j"],
                       capture_output=True, text=True, timeout=60)
    check("no vendor file", (p.returncode, len(json.loads(p.stdout)["gpus"]) if p.returncode == 0 else None),
          (0, 8))

# Saved --topo -j files judged together: the odd host named, ACS degraded.
with tempfile.TemporaryDirectory(prefix="rck-pcie.") as tmp:
    files = []
    for i, t in enumerate(["gpu8", "gpu8", "gpu8", "wrong-socket", "acs-on"]):
        files.append(os.path.join(tmp, "node%d.json" % i))
        with open(files[-1], "w") as fh:
            fh.write(json.dumps(topo(t, "-j")))

    def lint(paths):
        p = subprocess.run([RCK, "-j", "devices", "--topo", "--lint", *paths], capture_output=True, text=True,
                           timeout=60)
        return p.returncode, json.loads(p.stdout) if p.stdout else None

    rc, rep = lint(files[:4])
    check("lint rc", (rc, rep["verdict"]), (0, "healthy"))
    check("lint odd host", [(f["host"], f["code"]) for f in rep["findings"] if "pairing" in f["reason"]],
          [("node3", "config_mismatch")])
    rc, rep = lint(files)
    check("lint ACS", (rc, sum(f["code"] == "pcie_acs_redirect" and f["host"] == "node4" for f in rep["findings"])),
          (1, 3))
    with open(os.path.join(tmp, "bad.json"), "w") as fh:
        fh.write('{"schema": "rocecheck.devices/1"}')
    check("lint bad file", lint([os.path.join(tmp, "bad.json")])[0], 1)

for f in fails:
    print("FAIL", f)
print("%d failures" % len(fails))
sys.exit(1 if fails else 0)
