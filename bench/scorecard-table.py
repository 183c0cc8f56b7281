#!/usr/bin/env python3
# Markdown tables from the scorecard's JSON lines (scorecard -J FILE), as
# docs/verdicts.md quotes them: one table per fabric size.
"""Usage: scorecard-table.py FILE.jsonl"""
import json
import sys


def fmt(v):
    return "-" if v is None else "%.3f" % v


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows, tail = [], None
    with open(sys.argv[1]) as f:
        for n, line in enumerate(f, 1):
            try:
                d = json.loads(line)
            except ValueError:
                sys.exit("%s:%d: not JSON" % (sys.argv[1], n))
            if "class" in d:
                rows.append(d)
            else:
                tail = d
    sizes = []
    for r in rows:
        if (r["hosts"], r["rails"]) not in sizes:
            sizes.append((r["hosts"], r["rails"]))
    for h, ra in sizes:
        these = [r for r in rows if (r["hosts"], r["rails"]) == (h, ra)]
        print("\n%d hosts x %d rails, %d trials a class:\n" % (h, ra, these[0]["trials"]))
        print("| class | precision | recall | localisation | false drains /1000 hosts | held | probes | modelled s | met |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in these:
            print("| %s | %s | %s | %s | %.3f | %s | %.0f | %.1f | %s |" % (
                r["class"], fmt(r["precision"]), fmt(r["recall"]), fmt(r["localisation"]),
                r["false_drains_per_1000_hosts"], fmt(r.get("held")), r["probes"], r["modelled_s"],
                "yes" if r["met"] else "no"))
    if tail:
        print("\nSeed %d; false drains: %d in healthy trials, %d in noisy-host trials; %d targets missed."
              % (tail["seed"], tail["false_drains_healthy"], tail["false_drains_noisy_host"], tail["targets_missed"]))


if __name__ == "__main__":
    main()
