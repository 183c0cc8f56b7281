#!/usr/bin/env python3
# Cross-check of `rocecheck devices --topo -j` with pciutils: every fixture's
# config bytes as an `lspci -xxxx` dump, read back by `lspci -F DUMP -vvv`.
"""usage: pcie-lspci.py FIXTURES_PCI [TREE_SYS ...]

For every tree (FIXTURES_PCI/*/sys, or the given sys folders) and every
function rocecheck reports: link speed and width (now and capable), relaxed
ordering and no-snoop, MaxPayload and MaxReadReq, ACS capability and
control bits and the ATS enable must be what lspci prints."""
import json
import os
import re
import subprocess
import sys
import tempfile

RCK = os.environ["ROCECHECK"]
ACS_NAMES = ["SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl", "DirectTrans"]
ACS_KEYS = ["sv", "tb", "rr", "cr", "uf", "ec", "dt"]


def dump(sysdir, path):
    """The dump text lspci -xxxx would print for every function of the tree."""
    devs = os.path.join(sysdir, "bus/pci/devices")
    with open(path, "w") as out:
        for name in sorted(os.listdir(devs)):
            try:
                with open(os.path.join(devs, name, "config"), "rb") as f:
                    b = f.read()
            except OSError:
                continue
            out.write("%s Device\n" % name)
            for off in range(0, len(b), 16):
                out.write("%02x: %s\n" % (off, " ".join("%02x" % x for x in b[off:off + 16])))
            out.write("\n")


def lspci(path):
    """{address: text of its -vvv block}."""
    p = subprocess.run(["lspci", "-F", path, "-D", "-vvv", "-nn"], capture_output=True, text=True,
                       timeout=60, check=True)
    blocks = {}
    for block in p.stdout.split("\n\n"):
        m = re.match(r"([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", block)
        if m:
            blocks[m.group(1)] = block
    return blocks


def flag(text, name):
    m = re.search(r"\b%s([+-])" % name, text)
    return None if not m else m.group(1) == "+"


def check_fn(fn, block, errs):
    a = fn["address"]

    def eq(what, ours, theirs):
        if ours != theirs:
            errs.append("%s %s: rocecheck %r, lspci %r" % (a, what, ours, theirs))

    ids = re.search(r"\[([0-9a-f]{4}):([0-9a-f]{4})\]", block)
    eq("ids", (fn["vendor"], fn["device"]), ids.groups() if ids else None)
    cap = re.search(r"LnkCap:\s+Port #\d+, Speed ([\d.]+)GT/s, Width x(\d+)", block)
    sta = re.search(r"LnkSta:\s+Speed ([\d.]+)GT/s[^,]*, Width x(\d+)", block)
    link = fn["link"]
    if cap and sta:
        eq("link now", (link["speed_gts"], link["width"]) if link else None,
           (float(sta.group(1)), int(sta.group(2))))
        eq("link capable", (link["max_speed_gts"], link["max_width"]) if link else None,
           (float(cap.group(1)), int(cap.group(2))))
    devctl = re.search(r"DevCtl:(.*?)MaxPayload (\d+) bytes, MaxReadReq (\d+) bytes", block, re.S)
    if devctl:
        eq("relaxed ordering", fn["relaxed_ordering"], flag(devctl.group(1), "RlxdOrd"))
        eq("no snoop", fn["no_snoop"], flag(devctl.group(1), "NoSnoop"))
        eq("MaxPayload", fn["max_payload"], int(devctl.group(2)))
        eq("MaxReadReq", fn["max_read_req"], int(devctl.group(3)))
    else:
        eq("devctl", fn["relaxed_ordering"], None)
    for reg in ("cap", "ctl"):
        m = re.search(r"ACS%s:\s+(.*)" % reg.capitalize(), block)
        theirs = {k: flag(m.group(1), n) for k, n in zip(ACS_KEYS, ACS_NAMES)} if m else None
        eq("ACS " + reg, fn["acs"][reg] if fn["acs"] else None, theirs)
    m = re.search(r"ATSCtl:\s+Enable([+-])", block)
    eq("ATS", fn["ats_enabled"], None if not m else m.group(1) == "+")


def main():
    trees = sys.argv[2:] or sorted(os.path.join(sys.argv[1], t, "sys") for t in os.listdir(sys.argv[1])
                                    if os.path.isdir(os.path.join(sys.argv[1], t, "sys")))
    errs, checked = [], 0
    with tempfile.TemporaryDirectory(prefix="rck-lspci.") as tmp:
        for sysdir in trees:
            p = subprocess.run([RCK, "--sysfs-root", sysdir, "devices", "--topo", "-j"], capture_output=True,
                               text=True, timeout=60)
            if p.returncode:
                errs.append("%s: exit %d: %s" % (sysdir, p.returncode, p.stderr.strip()))
                continue
            doc = json.loads(p.stdout)
            path = os.path.join(tmp, "dump")
            dump(sysdir, path)
            blocks = lspci(path)
            for fn in doc["functions"]:
                if fn["address"] not in blocks:
                    errs.append("%s: %s not in lspci's output" % (sysdir, fn["address"]))
                    continue
                check_fn(fn, blocks[fn["address"]], errs)
                checked += 1
    for e in errs:
        print("FAIL", e)
    print("%d functions in %d trees compared with lspci, %d differences" % (checked, len(trees), len(errs)))
    return 1 if errs or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
