#!/usr/bin/env python3
# Checks a heatmap SVG: well-formed XML, marks of a degraded link and of a
# degraded NIC present, the expected (escaped) labels, failed cells, size.
import argparse
import os
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
INK, RED, FAILED = "#222222", "#d0001c", "#1a1a1a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("svg")
    ap.add_argument("--name", action="append", default=[], help="a text that must be drawn")
    ap.add_argument("--failed", type=int, default=0, help="failed cells at least")
    ap.add_argument("--aggregated", action="store_true")
    a = ap.parse_args()
    errors = []
    size = os.path.getsize(a.svg)
    if size >= 5 << 20:
        errors.append(f"{size} bytes, not under 5 MB")
    root = ET.parse(a.svg).getroot()  # raises on malformed XML
    if root.tag != NS + "svg":
        errors.append(f"root is {root.tag}")
    rects = list(root.iter(NS + "rect"))
    texts = ["".join(t.itertext()) for t in root.iter(NS + "text")]
    link_marks = [r for r in rects if r.get("fill") == "none" and r.get("stroke") == INK
                  and float(r.get("stroke-width", "0")) >= 2 and not r.get("stroke-dasharray")]
    nic_marks = [p for p in root.iter(NS + "path") if p.get("fill") == RED]
    failed = [r for r in rects if r.get("fill") == FAILED and r.get("width") == r.get("height")]
    if len(link_marks) < 2:  # the legend's sample is one
        errors.append("no degraded-link mark")
    # The NIC's row (the fabric's bad NIC is slow from it only, so its
    # column is left alone) and the legend's sample.
    if len(nic_marks) < 2:
        errors.append(f"{len(nic_marks)} NIC marks")
    if len(failed) < a.failed + 1:  # the legend's swatch is one
        errors.append(f"{len(failed) - 1} failed cells, want {a.failed}")
    for n in a.name:
        if n not in texts:
            errors.append(f"label {n!r} not drawn")
    if not any(t.startswith("Degraded") for t in texts):
        errors.append("no list of degraded entities")
    if a.aggregated != any("each cell: the worst of" in t for t in texts):
        errors.append("aggregation note " + ("missing" if a.aggregated else "unexpected"))
    for e in errors:
        print(f"{a.svg}: {e}", file=sys.stderr)
    print(f"{a.svg}: {size} bytes, {len(rects)} rects, {len(link_marks)} link marks, "
          f"{len(nic_marks)} NIC marks, {len(failed) - 1} failed cells")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
