#!/usr/bin/env python3
"""Compare rocecap's JSON of a capture with tshark's own dissector on the
same file: RoCE packets, flows, opcodes, PSN gaps/retransmissions (the same
rules applied to tshark's PSNs: READ requests reserve PSNs, READ responses
are followed on their own), ECN marks, NAKs and PFC frames and quanta.
usage: tshark-compare.py CAPTURE ROCECAP_JSON   (exit 1 on a difference)"""
import json
import subprocess
import sys
from collections import Counter

FIELDS = ["ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "infiniband.bth.destqp", "udp.srcport",
          "infiniband.bth.opcode", "infiniband.bth.psn", "ip.dsfield.ecn", "ipv6.tclass.ecn",
          "infiniband.aeth.syndrome", "macc.opcode", "macc.cbfc.enbv",
          "infiniband.reth.dmalen", "udp.length", "infiniband.bth.padcnt"] + \
         ["macc.cbfc.pause_time.c%d" % i for i in range(8)]


def num(s):
    return int(s, 0) if s else 0


def tshark(path):
    cmd = ["tshark", "-n", "-r", path, "-d", "udp.port==4791,infiniband", "-Y", "infiniband or macc",
           "-T", "fields", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [dict(zip(FIELDS, line.split("\t"))) for line in out.splitlines()]


HALF = 1 << 23


def psn_kind(op):
    """None, "req" or "resp" (READ responses), as rocecap(8) says."""
    if op == 0x81 or op >= 0xC0 or 0x80 <= op < 0xA0 or (op & 0x1F) in (0x11, 0x12):
        return None
    if op >> 5 not in (1, 3) and 0x0D <= (op & 0x1F) <= 0x10:
        return "resp"
    return "req"


def ext_len(op):
    if op == 0x81:
        return 16
    if op in (0x64, 0x65):
        return 8 if op == 0x64 else 12
    o = op & 0x1F
    pre = 4 if op >> 5 in (2, 5) else 0
    for n, ops in ((4, (0x03, 0x05, 0x09, 0x16, 0x17, 0x0D, 0x0F, 0x10, 0x11)), (16, (0x06, 0x0A, 0x0C)),
                   (20, (0x0B,)), (12, (0x12,)), (28, (0x13, 0x14))):
        if o in ops:
            return pre + n
    return pre


class Psn:
    """One flow's PSN state: requests (with READ reservations) and responses."""
    def __init__(self):
        self.max = self.resp = None
        self.slack = self.pmtu = 0

    def learn(self, op, r):
        if op >> 5 == 3 or op >> 5 > 5 or (op & 0x1F) not in (0x00, 0x01, 0x06, 0x07) or not r["udp.length"]:
            return
        pl = num(r["udp.length"]) - 8 - 12 - ext_len(op) - num(r["infiniband.bth.padcnt"]) - 4
        m = 256
        while m < pl and m < 4096:
            m *= 2
        if m // 2 < pl <= m:
            self.pmtu = m

    def reserve(self, r):
        if not r["infiniband.reth.dmalen"]:
            self.slack = HALF - 2
            return
        ln = num(r["infiniband.reth.dmalen"])
        up = lambda a, b: -(-a // b) if a else 1
        lo = up(ln, self.pmtu or 4096)
        hi = min(lo if self.pmtu else up(ln, 256), HALF - 1)
        lo = min(lo, hi)
        self.max = (self.max + lo - 1) & 0xFFFFFF
        self.slack = hi - lo

    def add(self, op, psn, r, s):
        kind = psn_kind(op)
        read = (op & 0x1F) == 0x0C and op >> 5 in (0, 2, 5)
        if kind == "req":
            self.learn(op, r)
            if self.max is not None:
                d = (psn - self.max) & 0xFFFFFF
                if d == 0 or d >= HALF:
                    s["retrans"] += 1
                    return
                if d > self.slack + 1:
                    s["gaps"] += 1
            self.max, self.slack = psn, 0
            if read:
                self.reserve(r)
        elif kind == "resp":
            if self.resp is not None:
                d = (psn - self.resp) & 0xFFFFFF
                if d == 0 or d >= HALF:
                    s["retrans"] += 1
                    return
                if d > 1 and (op & 0x1F) not in (0x0D, 0x10):
                    s["gaps"] += 1
            self.resp = psn


def summarize(rows):
    s = Counter()
    flows, maxpsn, ops, quanta = {}, {}, Counter(), Counter()
    for r in rows:
        if r["macc.opcode"]:
            if num(r["macc.opcode"]) == 0x0101:
                s["pfc"] += 1
                en = num(r["macc.cbfc.enbv"])
                for i in range(8):
                    if en & (1 << i):
                        quanta[i] += num(r["macc.cbfc.pause_time.c%d" % i])
            continue
        if not r["infiniband.bth.opcode"]:
            continue
        op = num(r["infiniband.bth.opcode"])
        s["roce"] += 1
        ops[op] += 1
        ecn = num(r["ip.dsfield.ecn"] or r["ipv6.tclass.ecn"])
        if ecn == 3:
            s["ce"] += 1
        elif ecn:
            s["ect"] += 1
        if op == 0x81:
            s["cnps"] += 1
        if r["infiniband.aeth.syndrome"] and (op & 0x1F) in (0x0D, 0x0F, 0x10, 0x11, 0x12):
            syn = num(r["infiniband.aeth.syndrome"])
            if syn >> 5 == 1:
                s["rnr"] += 1
            elif syn >> 5 == 3 and syn & 0x1F == 0:
                s["seq"] += 1
            elif syn >> 5 != 0:
                s["nak_other"] += 1
        key = (r["ip.src"] or r["ipv6.src"], r["ip.dst"] or r["ipv6.dst"],
               num(r["infiniband.bth.destqp"]), num(r["udp.srcport"]))
        flows[key] = flows.get(key, 0) + 1
        maxpsn.setdefault(key, Psn()).add(op, num(r["infiniband.bth.psn"]), r, s)
    return s, flows, ops, quanta


def main():
    path, jpath = sys.argv[1], sys.argv[2]
    with open(jpath) as f:
        j = json.load(f)
    s, flows, ops, quanta = summarize(tshark(path))
    ro = j["roce"]
    checks = [
        ("RoCE packets", s["roce"], ro["packets"]),
        ("flows", len(flows), len(j["flows"])),
        ("CE-marked", s["ce"], ro["ce_marked"]),
        ("ECT-marked", s["ect"], ro["ect_marked"]),
        ("CNPs", s["cnps"], ro["cnps"]),
        ("PSN gaps", s["gaps"], ro["psn_gaps"]),
        ("retransmissions", s["retrans"], ro["retransmissions"]),
        ("NAK PSN sequence error", s["seq"], ro["naks"]["psn_seq_err"]),
        ("NAK RNR", s["rnr"], ro["naks"]["rnr"]),
        ("NAK other", s["nak_other"], ro["naks"]["other"]),
        ("PFC frames", s["pfc"], j["pfc"]["frames"]),
    ]
    for p in j["pfc"]["priorities"]:
        checks.append(("PFC quanta priority %d" % p["priority"], quanta[p["priority"]], p["pause_quanta"]))
    mine = {o["opcode"]: o["packets"] for o in ro["opcodes"]}
    checks.append(("opcode histogram", dict(sorted(ops.items())), dict(sorted(mine.items()))))
    theirs = {(k[0], k[1], k[2], k[3]): v for k, v in flows.items()}
    ours = {(f["src"], f["dst"], f["dest_qp"], f["udp_sport"]): f["packets"] for f in j["flows"]}
    checks.append(("packets per flow", theirs, ours))
    bad = 0
    for name, t, r in checks:
        if t != r:
            print("DIFF %s: tshark %s, rocecap %s" % (name, t, r))
            bad = 1
    print("tshark agrees: %d RoCE packets, %d flows, %d opcodes, gaps %d, retransmissions %d, CE %d, "
          "CNPs %d, PFC frames %d" % (s["roce"], len(flows), len(ops), s["gaps"], s["retrans"], s["ce"],
                                      s["cnps"], s["pfc"]) if not bad else "tshark disagrees")
    return bad


if __name__ == "__main__":
    sys.exit(main())
