#!/usr/bin/env python3
# Every report analysis-examples prints validates against
# schemas/analysis.schema.json, and the examples cover every verdict and
# most finding codes, so the schema is exercised, not just parsed.
import json
import subprocess
import sys

import jsonschema

exe, schema_path = sys.argv[1], sys.argv[2]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

out = subprocess.run([exe], capture_output=True, text=True, timeout=120, check=True).stdout
docs = [json.loads(line) for line in out.splitlines()]
if len(docs) != 12:
    sys.exit(f"FAIL: expected 12 reports, got {len(docs)}")
fails = 0
for i, d in enumerate(docs):
    for e in validator.iter_errors(d):
        print(f"FAIL: report {i}: {e.message} at {list(e.absolute_path)}")
        fails += 1
verdicts = {d["verdict"] for d in docs}
codes = {f["code"] for d in docs for f in d["findings"]}
want = {"link_slow", "link_latency", "nic_degraded", "pcie_degraded", "port_down",
        "config_mismatch", "loss_on_lossless", "pfc_wrong_priority", "ecn_no_cnp",
        "probe_failed", "host_unreachable", "lossless_unproven", "drain_held"}
if verdicts != {"healthy", "degraded", "error", "inconclusive"}:
    print(f"FAIL: verdicts covered: {sorted(verdicts)}")
    fails += 1
if want - codes:
    print(f"FAIL: codes never produced: {sorted(want - codes)}")
    fails += 1
# A suspect, drained hosts and hosts the circuit breaker held.
if not any(f.get("suspect") for d in docs for f in d["findings"]):
    print("FAIL: no suspect finding")
    fails += 1
if not any(d["drain"] for d in docs) or not any(d["held"] for d in docs):
    print("FAIL: no report with hosts to drain, or none with hosts held")
    fails += 1
# The text form of the same reports is written without error.
text = subprocess.run([exe, "-t"], capture_output=True, text=True, timeout=120, check=True).stdout
if text.count("verdict: ") != 12:
    print("FAIL: text form lacks 12 verdict lines")
    fails += 1
if fails:
    sys.exit(1)
print(f"ok: {len(docs)} reports valid; codes {sorted(codes)}")
