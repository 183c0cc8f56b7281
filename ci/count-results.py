#!/usr/bin/env python3
# Adds up the results in meson's test logs (testlog*.json of the given build
# folders) and prints the closing line "N passed, N failed[, N skipped]".
import glob
import json
import os
import sys

passed = failed = skipped = 0
for build in sys.argv[1:]:
    for path in sorted(glob.glob(os.path.join(build, "meson-logs", "testlog*.json"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    result = json.loads(line).get("result")
                except ValueError:
                    failed += 1
                    continue
                if result in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif result == "SKIP":
                    skipped += 1
                else:
                    failed += 1
# A suite CI expects whose log is missing did not run: count it as failed.
# (meson adds the setup's name to a log base: testlog-valgrind-valgrind.json.)
# The unit suite's log is ASan's (ci/test.sh runs it there, not plainly).
expected = {"build": ["testlog-%s" % n for n in open(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "suites")).read().split() if n != "unit"]
    + ["testlog-valgrind"],
    "build-asan": ["testlog-asan"], "build-fuzz": ["testlog-fuzz"]}
for build in sys.argv[1:]:
    for name in expected.get(os.path.basename(os.path.normpath(build)), []):
        logs = os.path.join(build, "meson-logs")
        if not (os.path.exists(os.path.join(logs, name + ".json")) or
                glob.glob(os.path.join(logs, name + "-*.json"))):
            print("missing test log %s/%s.json: counted as failed" % (logs, name))
            failed += 1
tail = ", %d skipped" % skipped if skipped else ""
print("%d passed, %d failed%s" % (passed, failed, tail))
sys.exit(1 if failed or passed == 0 else 0)
