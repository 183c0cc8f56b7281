#!/usr/bin/env bash
# The sweep result's JSON against schemas/mesh.schema.json (python3-jsonschema):
# a freshly written sample and the recorded fixture validate; documents
# broken on purpose must not.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
schema=$here/schemas/mesh.schema.json
emit=${ROCECHECK_BUILD_DIR:?}/tests/unit/test-mesh-result
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "python3-jsonschema missing"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
${ROCECHECK_WRAP:-} "$emit" --emit >"$work/fresh.json" || { echo "FAIL: --emit"; exit 1; }
# A sweep of loopback agents that kept each host's DCB state.
${ROCECHECK_WRAP:-} "${emit%-result}-dcb" --emit >"$work/dcb.json" || { echo "FAIL: mesh-dcb --emit"; exit 1; }
python3 - "$schema" "$work/fresh.json" "$here/tests/fixtures/mesh/sample.json" "$work/dcb.json" <<'PY'
import copy, json, os, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
# Each DCB port in full against rocedcb.schema.json's port.
dcb = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "rocedcb.schema.json")))
vport = jsonschema.Draft202012Validator({"$ref": "#/$defs/port", "$defs": dcb["$defs"]})
fail = 0
docs = {p: json.load(open(p)) for p in sys.argv[2:]}
for path, doc in docs.items():
    errs = list(v.iter_errors(doc))
    for h in doc["hosts"]:
        for port in (h.get("dcb") or {}).get("ports", []):
            errs += list(vport.iter_errors(port))
    for e in errs:
        print(f"FAIL: {path}: {list(e.absolute_path)}: {e.message}")
    fail |= bool(errs)
ports = sum(len((h.get("dcb") or {}).get("ports", [])) for h in docs[sys.argv[4]]["hosts"])
if ports != 6:
    print(f"FAIL: the DCB sweep kept {ports} ports, not 6")
    fail = 1

doc = docs[sys.argv[2]]
broken = []
d = copy.deepcopy(doc); d["probes"][0]["result"]["status"] = "fine"; broken.append(("status", d))
d = copy.deepcopy(doc); d["probes"][0]["result"]["counters"]["src"]["cnp_handled"] = 0; broken.append(("zero delta", d))
d = copy.deepcopy(doc); d["hosts"][0]["nics"][0]["port"] = 0; broken.append(("port 0", d))
d = copy.deepcopy(doc); del d["probes"][0]["retest"]; broken.append(("no retest", d))
d = copy.deepcopy(doc); d["version"] = 2; broken.append(("version", d))
d = copy.deepcopy(doc); d["probes"][0]["extra"] = 1; broken.append(("extra key", d))
d = copy.deepcopy(docs[sys.argv[4]]); d["hosts"][0]["dcb"]["ports"][0]["trust"]["mode"] = "none"; broken.append(("dcb trust", d))
d = copy.deepcopy(docs[sys.argv[4]]); del d["hosts"][0]["dcb"]["error"]; broken.append(("dcb error", d))
for name, d in broken:
    if v.is_valid(d):
        print(f"FAIL: a document with a broken {name} validates")
        fail = 1
print("ok: %d documents valid, %d broken ones refused" % (len(docs), len(broken)) if not fail else "")
sys.exit(fail)
PY
