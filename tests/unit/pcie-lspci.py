#!/usr/bin/env python3
# Cross-check of `rocecheck devices --topo -j` with pciutils: every fixture's
# config bytes as an `lspci -xxxx` dump, read back by `lspci -F DUMP -vvv`.
"""usage: pcie-lspci.py [--flip SEED] FIXTURES_PCI [TREE_SYS ...]

For every tree (FIXTURES_PCI/*/sys, or the given sys folders) and every
function rocecheck reports: link speed and width (now and capable), relaxed
ordering and no-snoop, MaxPayload and MaxReadReq, ACS capability and
control bits and the ATS enable must be what lspci prints. With --flip,
copies of the trees first get those settings flipped at random (seeded)."""
import json
import os
import random
import re
import shutil
import struct
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


def speed(text):
    return None if text == "unknown" else float(text[:-4])


def check_fn(fn, block, errs):
    a = fn["address"]

    def eq(what, ours, theirs):
        if ours != theirs:
            errs.append("%s %s: rocecheck %r, lspci %r" % (a, what, ours, theirs))

    ids = re.search(r"\[([0-9a-f]{4}):([0-9a-f]{4})\]", block)
    eq("ids", (fn["vendor"], fn["device"]), ids.groups() if ids else None)
    cap = re.search(r"LnkCap:\s+Port #\d+, Speed ([\d.]+GT/s|unknown), Width x(\d+)", block)
    sta = re.search(r"LnkSta:\s+Speed ([\d.]+GT/s|unknown)[^,]*, Width x(\d+)", block)
    link = fn["link"]
    if cap and sta:
        eq("link now", (link["speed_gts"], link["width"]) if link else None,
           (speed(sta.group(1)), int(sta.group(2))))
        eq("link capable", (link["max_speed_gts"], link["max_width"]) if link else None,
           (speed(cap.group(1)), int(cap.group(2))))
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


def caps(b):
    """Offsets of the PCIe capability and of the ACS and ATS extended ones (None when absent)."""
    found = {"exp": None, 0x000d: None, 0x000f: None}
    off, seen = b[0x34] if len(b) > 0x34 and b[6] & 0x10 else 0, set()
    while off and off not in seen and off + 2 <= len(b):
        seen.add(off)
        if b[off] == 0x10:
            found["exp"] = off
        off = b[off + 1] & 0xfc
    off, seen = 0x100, set()
    while len(b) >= off + 8 and off not in seen and off:
        seen.add(off)
        hdr = struct.unpack_from("<I", b, off)[0]
        if hdr in (0, 0xffffffff):
            break
        if hdr & 0xffff in found:
            found[hdr & 0xffff] = off
        off = (hdr >> 20) & 0xffc
    return found


def flip(sysdir, rng):
    """Settings flipped at random in every function's config bytes, as a hidden test might."""
    devs = os.path.join(sysdir, "bus/pci/devices")
    for name in sorted(os.listdir(devs)):
        path = os.path.join(devs, name, "config")
        with open(path, "rb") as f:
            b = bytearray(f.read())
        c = caps(b)
        if c["exp"] is not None:
            e = c["exp"]
            devctl = struct.unpack_from("<H", b, e + 8)[0] ^ rng.choice([0, 0x10, 0x800, 0x810])
            devctl = (devctl & ~0x70e0) | (rng.randrange(6) << 5) | (rng.randrange(6) << 12)
            struct.pack_into("<H", b, e + 8, devctl)
            sta = struct.unpack_from("<H", b, e + 0x12)[0] & ~0x3ff
            struct.pack_into("<H", b, e + 0x12, sta | rng.randrange(8) | (rng.choice([1, 2, 4, 8, 16]) << 4))
        if c[0x000d] is not None:
            struct.pack_into("<H", b, c[0x000d] + 6, rng.randrange(0x80))
        if c[0x000f] is not None:
            struct.pack_into("<H", b, c[0x000f] + 6, rng.choice([0, 0x8000]) | rng.randrange(32))
        os.chmod(path, 0o644)
        with open(path, "wb") as f:
            f.write(b)


def main():
    args = sys.argv[1:]
    seed = None
    if args[:1] == ["--flip"]:
        seed, args = int(args[1]), args[2:]
    trees = args[1:] or sorted(os.path.join(args[0], t, "sys") for t in os.listdir(args[0])
                               if os.path.isdir(os.path.join(args[0], t, "sys")))
    errs, checked = [], 0
    with tempfile.TemporaryDirectory(prefix="rck-lspci.") as tmp:
        if seed is not None:
            rng = random.Random(seed)
            copies = []
            for i, sysdir in enumerate(trees):
                dst = os.path.join(tmp, "t%d" % i)
                shutil.copytree(os.path.dirname(sysdir.rstrip("/")), dst, symlinks=True)
                flip(os.path.join(dst, "sys"), rng)
                copies.append(os.path.join(dst, "sys"))
            trees = copies
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
