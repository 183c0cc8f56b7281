#!/usr/bin/env python3
# contrib/grafana/rocecheck-monitor.json against the metrics rocecheck really
# emits: a live monitor's /metrics page and the sweep's textfiles.
"""Usage: grafana-dashboard.py SRCDIR   (ROCECHECK, ROCECHECK_FIXTURES from meson)

The dashboard must be JSON without duplicate keys, its panels laid out on the
24-column grid without overlap, every query naming only PromQL functions,
dashboard variables that exist, and metrics, label matchers, grouping labels
and legend labels that the exporters emit. The metric pages are real: a
monitor on loopback (recorded mlx5 counters, one live peer, one silent peer
so that a finding is held) scraped over HTTP, and `rocecheck sweep --prom`
on a healthy and a port-down tree.
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SRC = sys.argv[1]
RCK = os.environ["ROCECHECK"]
FIX = os.path.join(os.environ["ROCECHECK_FIXTURES"], "sysfs")
DASH = os.path.join(SRC, "contrib/grafana/rocecheck-monitor.json")
# Prometheus adds these to every scraped series.
TARGET_LABELS = {"instance", "job"}
FUNCTIONS = {
    "abs", "absent", "avg", "avg_over_time", "bottomk", "ceil", "changes", "clamp_max", "clamp_min",
    "count", "count_over_time", "delta", "deriv", "floor", "histogram_quantile", "idelta", "increase",
    "irate", "label_replace", "last_over_time", "max", "max_over_time", "min", "min_over_time",
    "quantile", "quantile_over_time", "rate", "resets", "round", "scalar", "sort", "sort_desc",
    "stddev", "sum", "sum_over_time", "time", "topk", "vector",
}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
            "unless", "offset"}
BUILTIN_VARS = {"__rate_interval", "__interval", "__range", "__range_s"}

fails = []


def check(what, ok, detail=""):
    if not ok:
        fails.append(what + (": " + detail if detail else ""))


def no_dupes(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise ValueError("duplicate key %r" % k)
        d[k] = v
    return d


# ---------------------------------------------------------------- metric pages

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+\S+$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_page(text, series):
    """Adds name -> set of label names (from samples) to series."""
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            fails.append("unparsable sample line: " + line)
            continue
        names = {k for k, _ in LABEL.findall(m.group(3) or "")}
        series.setdefault(m.group(1), set()).update(names)


def monitor_page(tmp):
    """A live monitor's /metrics, scraped once it holds a finding."""
    silent = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # a peer that never answers
    silent.bind(("127.0.0.1", 0))
    procs = []

    def start(name, args):
        out = open(os.path.join(tmp, name + ".out"), "w+")
        p = subprocess.Popen(["timeout", "60", RCK] + args, stdout=out, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL)
        procs.append(p)
        return out

    def wait_for(out, pattern, secs):
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline:
            out.seek(0)
            m = re.search(pattern, out.read())
            if m:
                return m
            time.sleep(0.1)
        out.seek(0)
        raise RuntimeError("no %r in %ds: %s" % (pattern, secs, out.read()[-2000:]))

    try:
        b = start("b", ["monitor", "--no-counters", "--listen", "127.0.0.1", "--port", "0", "--self", "b"])
        bport = wait_for(b, r'"event":"started","port":(\d+)', 15).group(1)
        pl = os.path.join(tmp, "a.pl")
        with open(pl, "w") as f:
            f.write("b 127.0.0.1:%s rate=10\nc 127.0.0.1:%d rate=10\n" % (bport, silent.getsockname()[1]))
        a = start("a", ["--sysfs-root", os.path.join(FIX, "mlx5"), "monitor", "--pinglist", pl, "--listen",
                        "127.0.0.1", "--port", "0", "--window", "1", "--hold", "2/3", "--self", "a",
                        "--metrics", "127.0.0.1:0"])
        mport = wait_for(a, r'"metrics_port":(\d+)', 15).group(1)
        wait_for(a, r'"state":"active","code":"probe_failed"', 20)
        time.sleep(1.2)  # the snapshot is rendered after each window
        with urllib.request.urlopen("http://127.0.0.1:%s/metrics" % mport, timeout=5) as r:
            return r.read().decode()
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        silent.close()


def sweep_page(tmp, tree):
    path = os.path.join(tmp, tree + ".prom")
    r = subprocess.run([RCK, "--sysfs-root", os.path.join(FIX, tree), "sweep", "--prom", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
    if r.returncode not in (0, 1):
        raise RuntimeError("sweep on %s: exit %d: %s" % (tree, r.returncode, r.stderr.decode()))
    with open(path) as f:
        return f.read()


# ---------------------------------------------------------------- PromQL

def strip_strings(s):
    return re.sub(r'"(?:[^"\\]|\\.)*"', '""', s)


def analyse(expr):
    """(selectors [(metric, {label names})], grouping labels, functions, bare names)."""
    selectors, grouping, functions = [], set(), set()
    e = expr
    for m in re.finditer(r'\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)', e):
        grouping.update(x.strip() for x in m.group(2).split(",") if x.strip())
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', ' ', e)
    sel = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{((?:[^}"]|"(?:[^"\\]|\\.)*")*)\}')
    for m in sel.finditer(e):
        labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*"', m.group(2)))
        selectors.append((m.group(1), labels))
    e = sel.sub(lambda m: " " + (m.group(1) or "") + " ", e)
    e = strip_strings(e)
    e = re.sub(r'\[[^\]]*\]', ' ', e)
    bare = []
    for m in re.finditer(r'[a-zA-Z_:][a-zA-Z0-9_:]*', e):
        word, rest = m.group(0), e[m.end():].lstrip()
        if e[max(0, m.start() - 1)] == "$" or re.match(r'\d', word):
            continue
        if rest.startswith("("):
            functions.add(word)
        elif word not in KEYWORDS and not re.fullmatch(r'[0-9.e]+', word):
            bare.append(word)
    for name, labels in selectors:
        if name and name in bare:
            bare.remove(name)
    metrics = [n for n, _ in selectors if n] + bare
    return selectors, grouping, functions, metrics


def check_expr(where, expr, series, variables, legend=""):
    check(where + ": empty query", expr.strip() != "")
    for v in re.findall(r'\$\{?([a-zA-Z_][a-zA-Z0-9_]*)', expr + " " + legend):
        check(where + ": variable $" + v + " is not defined", v in variables or v in BUILTIN_VARS)
    selectors, grouping, functions, metrics = analyse(expr)
    for fn in functions - KEYWORDS:
        check(where + ": unknown PromQL function " + fn + "()", fn in FUNCTIONS)
    check(where + ": no rocecheck metric in " + expr, any(m.startswith("rocecheck_") for m in metrics))
    have = set(TARGET_LABELS)
    for m in metrics:
        check(where + ": metric " + m + " is not emitted by the monitor or the sweep", m in series)
        have |= series.get(m, set())
    for name, labels in selectors:
        if not name:
            continue
        for lab in labels:
            check(where + ": " + name + " has no label " + lab, lab in series.get(name, set()) | TARGET_LABELS)
    for lab in grouping:
        check(where + ": grouping label " + lab + " is on none of its metrics", lab in have)
    for lab in re.findall(r'\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}', legend):
        check(where + ": legend label " + lab + " is on none of its metrics", lab in have)


# ---------------------------------------------------------------- the dashboard

def main():
    with open(DASH) as f:
        try:
            d = json.load(f, object_pairs_hook=no_dupes)
        except ValueError as e:
            print("FAIL: %s is not valid JSON: %s" % (DASH, e))
            return 1
    series = {}
    with tempfile.TemporaryDirectory(prefix="rck-grafana.") as tmp:
        mon = monitor_page(tmp)
        parse_page(mon, series)
        n_mon = len([s for s in series if s.startswith("rocecheck_monitor_")])
        for tree in ("mlx5", "down"):
            parse_page(sweep_page(tmp, tree), series)
    check("the monitor's page has its families", n_mon >= 10, "%d" % n_mon)

    for k in ("title", "uid", "schemaVersion", "panels", "templating"):
        check("dashboard has " + k, k in d)
    check("schemaVersion is a number", isinstance(d.get("schemaVersion"), int))
    tvars = d.get("templating", {}).get("list", [])
    variables = {v.get("name") for v in tvars}
    check("a datasource variable", any(v.get("type") == "datasource" and v.get("query") == "prometheus" for v in tvars))
    for v in tvars:
        if v.get("type") != "query":
            continue
        q = v.get("query")
        q = q.get("query", "") if isinstance(q, dict) else q or ""
        m = re.fullmatch(r'\s*label_values\((.*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*', q)
        check("variable %s: a label_values() query" % v.get("name"), m is not None, q)
        if m:
            check_expr("variable " + v["name"], m.group(1), series, variables)
            sel = analyse(m.group(1))[3]
            check("variable %s: label %s on %s" % (v["name"], m.group(2), sel),
                  any(m.group(2) in series.get(s, set()) | TARGET_LABELS for s in sel))

    ids, cells, n_queries = set(), {}, 0
    for p in d.get("panels", []):
        pid, title = p.get("id"), p.get("title", "?")
        where = "panel %s (%s)" % (pid, title)
        check(where + ": unique id", pid not in ids)
        ids.add(pid)
        g = p.get("gridPos", {})
        ok = all(isinstance(g.get(k), int) for k in "xywh") and g["x"] >= 0 and g["w"] > 0 and g["x"] + g["w"] <= 24
        check(where + ": gridPos within 24 columns", ok, str(g))
        if ok:
            over = set()
            for x in range(g["x"], g["x"] + g["w"]):
                for y in range(g["y"], g["y"] + g["h"]):
                    if (x, y) in cells:
                        over.add(cells[(x, y)])
                    cells[(x, y)] = pid
            check(where + ": overlaps panel(s) %s" % sorted(over, key=str), not over)
        if p.get("type") == "row":
            continue
        check(where + ": a title and a description", bool(p.get("title")) and bool(p.get("description")))
        ds = p.get("datasource", {})
        check(where + ": the datasource variable", ds.get("uid") == "${datasource}", str(ds))
        targets = p.get("targets", [])
        check(where + ": queries", len(targets) > 0)
        refs = [t.get("refId") for t in targets]
        check(where + ": unique refIds", len(refs) == len(set(refs)) and None not in refs)
        for t in targets:
            n_queries += 1
            check_expr("%s %s" % (where, t.get("refId")), t.get("expr", ""), series, variables,
                       t.get("legendFormat", ""))

    # the dashboard shows what the issue asks for
    exprs = " ".join(t.get("expr", "") for p in d.get("panels", []) for t in p.get("targets", []))
    for want in ("rocecheck_monitor_rtt_seconds", 'quantile="0.5"', 'quantile="0.99"',
                 "rocecheck_monitor_probes_lost_total", "rocecheck_monitor_link_flaps_total",
                 "rocecheck_monitor_pfc_pause_seconds_total", "rocecheck_monitor_ecn_marked_total",
                 "rocecheck_monitor_cnp_sent_total", "rocecheck_monitor_finding", "rocecheck_findings"):
        check("the dashboard shows " + want, want in exprs)

    for f in fails:
        print("FAIL: " + f)
    print("grafana-dashboard: %d panels, %d queries, %d metric families seen (%d of the monitor's); %d failure(s)"
          % (len(ids), n_queries, len(series), n_mon, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
