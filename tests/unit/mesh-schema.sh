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
python3 - "$schema" "$work/fresh.json" "$here/tests/fixtures/mesh/sample.json" <<'PY'
import copy, json, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
v = jsonschema.Draft7Validator(schema)
fail = 0
docs = {p: json.load(open(p)) for p in sys.argv[2:]}
for path, doc in docs.items():
    errs = list(v.iter_errors(doc))
    for e in errs:
        print(f"FAIL: {path}: {list(e.absolute_path)}: {e.message}")
    fail |= bool(errs)

doc = docs[sys.argv[2]]
broken = []
d = copy.deepcopy(doc); d["probes"][0]["result"]["status"] = "fine"; broken.append(("status", d))
d = copy.deepcopy(doc); d["probes"][0]["result"]["counters"]["src"]["cnp_handled"] = 0; broken.append(("zero delta", d))
d = copy.deepcopy(doc); d["hosts"][0]["nics"][0]["port"] = 0; broken.append(("port 0", d))
d = copy.deepcopy(doc); del d["probes"][0]["retest"]; broken.append(("no retest", d))
d = copy.deepcopy(doc); d["version"] = 2; broken.append(("version", d))
d = copy.deepcopy(doc); d["probes"][0]["extra"] = 1; broken.append(("extra key", d))
for name, d in broken:
    if v.is_valid(d):
        print(f"FAIL: a document with a broken {name} validates")
        fail = 1
print("ok: %d documents valid, %d broken ones refused" % (len(docs), len(broken)) if not fail else "")
sys.exit(fail)
PY
