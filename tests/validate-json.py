#!/usr/bin/env python3
# Validates JSON documents against a JSON Schema (python3-jsonschema):
# validate-json.py SCHEMA FILE...  ("-" reads standard input). Exit 1 on the first invalid one.
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
for path in sys.argv[2:]:
    doc = json.load(sys.stdin if path == "-" else open(path))
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: e.path)
    if errors:
        for e in errors[:5]:
            print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:300]}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {path}")
