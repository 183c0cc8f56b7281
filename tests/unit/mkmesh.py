#!/usr/bin/env python3
# A recorded sweep for tests: mkmesh.py N [SPEC...] writes a mesh JSON of N
# hosts h0.. with one 100 Gb/s NIC each and every directed bw probe at
# about 95 Gb/s. SPEC: "slow:S:D:G" probe S->D at G Gb/s with 3 retests at
# G; "nic:H:G" every probe from and to host H at G, with one retest at G
# (its retests agree: confirmed); "nicfirst:H:G" the same without retests
# (a suspect); "fail" every probe failed; "loss:S:D" 5000 out_of_sequence
# at D's end of S->D.
import json
import sys

n = int(sys.argv[1])
specs = sys.argv[2:]
ctrs = ["out_of_sequence", "local_ack_timeouts", "ecn_marked_packets", "cnp_sent"]
hosts = [{"name": f"h{i}", "unreachable": None, "missing_rails": [],
          "nics": [{"id": i, "device": "mlx5_0", "port": 1, "rail": 0, "netdev": "eth0",
                    "state": "ACTIVE", "rate_gbps": 100.0, "active_mtu": 4096, "netdev_mtu": 9000,
                    "fw_ver": "28.39.1002", "gid_index": 3, "counters": ctrs}]} for i in range(n)]


def meas(status, gbps, dst_ctr=None):
    return {"status": status, "gbps": gbps if status == "ok" else None, "lat_p50_us": None,
            "lat_p99_us": None, "start_s": 0.0, "seconds": 1.0,
            "reason": None if status == "ok" else "probe failed: test",
            "counters": {"src": {}, "dst": dst_ctr or {}}}


probes, k = [], 0
for s in range(n):
    for d in range(n):
        if s == d:
            continue
        g, retest, retest1, ctr, status = 95 + (k % 5) * 0.4, None, None, None, "ok"
        k += 1
        for spec in specs:
            w = spec.split(":")
            if w[0] == "slow" and int(w[1]) == s and int(w[2]) == d:
                g, retest = float(w[3]), float(w[3])
            elif w[0] == "nic" and int(w[1]) in (s, d):
                g, retest1 = float(w[2]), float(w[2])
            elif w[0] == "nicfirst" and int(w[1]) in (s, d):
                g = float(w[2])
            elif w[0] == "fail":
                status = "failed"
            elif w[0] == "loss" and int(w[1]) == s and int(w[2]) == d:
                ctr = {"out_of_sequence": 5000}
        p = {"test": "bw", "src": s, "dst": d, "attempts": 1, "result": meas(status, g, ctr), "retest": None}
        if retest is not None:
            p["attempts"] = 4
            p["retest"] = meas("ok", retest)
            p["later_retests"] = [meas("ok", retest), meas("ok", retest)]
        elif retest1 is not None:
            p["attempts"] = 2
            p["retest"] = meas("ok", retest1)
        probes.append(p)
json.dump({"version": 1, "pattern": "full", "rails": "same", "start_ns": 0, "seconds": 30.0,
           "hosts": hosts, "probes": probes}, sys.stdout)
