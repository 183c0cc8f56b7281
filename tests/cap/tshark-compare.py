#!/usr/bin/env python3
"""Compare rocecap's JSON of a capture with tshark's own dissector on the
same file: RoCE packets, flows, opcodes, PSN gaps/retransmissions (the same
rule applied to tshark's PSNs), ECN marks, NAKs and PFC frames and quanta.
usage: tshark-compare.py CAPTURE ROCECAP_JSON   (exit 1 on a difference)"""
import json
import subprocess
import sys
from collections import Counter

FIELDS = ["ip.src", "ipv6.src", "ip.dst", "ipv6.dst", "infiniband.bth.destqp", "udp.srcport",
          "infiniband.bth.opcode", "infiniband.bth.psn", "ip.dsfield.ecn", "ipv6.tclass.ecn",
          "infiniband.aeth.syndrome", "macc.opcode", "macc.cbfc.enbv"] + \
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


def sequenced(op):
    if op == 0x81 or op >= 0xC0 or 0x80 <= op < 0xA0:
        return False
    return (op & 0x1F) not in (0x11, 0x12)


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
        if sequenced(op):
            psn = num(r["infiniband.bth.psn"])
            if key in maxpsn:
                d = (psn - maxpsn[key]) & 0xFFFFFF
                if d == 1:
                    maxpsn[key] = psn
                elif d == 0 or d >= 1 << 23:
                    s["retrans"] += 1
                else:
                    s["gaps"] += 1
                    maxpsn[key] = psn
            else:
                maxpsn[key] = psn
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
