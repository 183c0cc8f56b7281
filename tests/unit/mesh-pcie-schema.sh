#!/usr/bin/env bash
# A sweep result holding agents' PCIe paths against schemas/mesh.schema.json,
# and each host's snapshot in full against schemas/topo.schema.json.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
emit=${ROCECHECK_BUILD_DIR:?}/tests/unit/test-mesh-pcie
python3 -c 'import jsonschema' 2>/dev/null || { echo "FAIL: python3-jsonschema missing"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
${ROCECHECK_WRAP:-} "$emit" --emit >"$work/result.json" || { echo "FAIL: --emit"; exit 1; }
python3 - "$here/schemas" "$work/result.json" <<'PY'
import json, sys
import jsonschema

mesh = json.load(open(sys.argv[1] + "/mesh.schema.json"))
topo = json.load(open(sys.argv[1] + "/topo.schema.json"))
doc = json.load(open(sys.argv[2]))
errs = list(jsonschema.Draft202012Validator(mesh).iter_errors(doc))
vt = jsonschema.validators.validator_for(topo)(topo)
tops = [h["pcie"]["topo"] for h in doc["hosts"] if h["pcie"]["topo"]]
for t in tops:
    errs += list(vt.iter_errors(t))
assert len(tops) == 2 and doc["hosts"][2]["pcie"] == {"error": "cannot read", "topo": None}, doc["hosts"]
for e in errs:
    print("FAIL: %s: %s" % (list(e.absolute_path), e.message))
# A snapshot that is not one must not validate.
bad = json.loads(json.dumps(doc))
bad["hosts"][0]["pcie"]["topo"]["schema"] = "rocecheck.pcie/2"
assert list(jsonschema.Draft202012Validator(mesh).iter_errors(bad)), "a bad topo validated"
sys.exit(1 if errs else 0)
PY
