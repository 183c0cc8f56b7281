#!/usr/bin/env python3
# Runs the rules of contrib/kubernetes/rocecheck-plugin-monitor.json the way
# node-problem-detector's custom plugin monitor does, on recorded sysfs trees.
"""Usage: npd-plugin.py SRCDIR   (ROCECHECK, ROCECHECK_FIXTURES from meson)

run_plugin() mirrors NPD's pkg/custompluginmonitor/plugin/plugin.go: the
plugin in its own process group, SIGKILL to the group at the timeout, at most
4 KiB of stdout and stderr read (the rest drained), stdout trimmed of white
space and cut at max_output_length bytes, exit 0 OK, 1 NonOK, anything else
(a signal too) Unknown. First the harness is checked on small fake plugins,
then the real `rocecheck sweep --format npd` on a healthy tree and on a copy
of it with a port down.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SRC = sys.argv[1]
# Never under ROCECHECK_WRAP (valgrind): NPD's 5 s budget is part of the test.
RCK = os.environ["ROCECHECK"]
FIX = os.environ["ROCECHECK_FIXTURES"]
CI = os.environ.get("CI") == "true"
MAX_BUFFER = 4 * 1024  # NPD's maxCustomPluginBufferBytes
OK, NONOK, UNKNOWN = "OK", "NonOK", "Unknown"
fails = 0
count = 0


def check(name, ok, detail=""):
    global fails, count
    count += 1
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok or not detail else " (%s)" % detail))
    if not ok:
        fails += 1


def read_limited(pipe, out):
    out.append(pipe.read(MAX_BUFFER))
    while pipe.read(65536):  # drain, as NPD does, so the plugin never blocks
        pass


def run_plugin(path, args, timeout, max_output_length):
    """Returns (status, message, raw stdout bytes, seconds)."""
    start = time.monotonic()
    p = subprocess.Popen([path] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    killed = threading.Event()

    def kill():
        killed.set()
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    timer = threading.Timer(timeout, kill)
    timer.start()
    out, err = [], []
    readers = [threading.Thread(target=read_limited, args=(p.stdout, out)),
               threading.Thread(target=read_limited, args=(p.stderr, err))]
    for t in readers:
        t.start()
    for t in readers:
        t.join()
    rc = p.wait()
    timer.cancel()
    raw = out[0]
    msg = raw.decode("utf-8", "replace").strip()
    if killed.is_set():
        msg = 'Timeout when running plugin "%s": state - signal: killed. output - %s' % (
            path, json.dumps(msg))
    msg = msg.encode()[:max_output_length].decode("utf-8", "replace")  # Go cuts bytes
    status = {0: OK, 1: NONOK}.get(rc, UNKNOWN)  # a signal: rc < 0, Unknown
    return status, msg, raw, time.monotonic() - start


tmp = tempfile.mkdtemp(prefix="npd-plugin-")
try:
    # --- the harness itself, on fake plugins -----------------------------------
    def fake(name, body):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
        return path

    st, msg, _, _ = run_plugin(fake("ok", "echo '  fine  '; exit 0"), [], 5, 80)
    check("harness: exit 0 is OK, output trimmed", (st, msg) == (OK, "fine"), repr((st, msg)))
    st, msg, _, _ = run_plugin(fake("bad", "echo broken; echo noise >&2; exit 1"), [], 5, 80)
    check("harness: exit 1 is NonOK, stderr not in the message", (st, msg) == (NONOK, "broken"))
    st, _, _, _ = run_plugin(fake("three", "exit 3"), [], 5, 80)
    check("harness: exit 3 is Unknown", st == UNKNOWN)
    st, msg, raw, _ = run_plugin(fake("long", "head -c 100000 /dev/zero | tr '\\0' x; exit 1"),
                                 [], 5, 80)
    check("harness: 100 kB of output: 4 KiB read, 80 kept, no hang",
          st == NONOK and len(raw) == MAX_BUFFER and msg == "x" * 80, "%d %d" % (len(raw), len(msg)))
    st, msg, _, secs = run_plugin(fake("slow", "echo started; sleep 30 & wait"), [], 0.5, 80)
    check("harness: a plugin past its timeout is killed, with its group: Unknown",
          st == UNKNOWN and msg.startswith("Timeout when running plugin") and secs < 5,
          "%s %r %.1fs" % (st, msg, secs))

    # --- the real plugin -------------------------------------------------------
    config = json.load(open(os.path.join(SRC, "contrib/kubernetes/rocecheck-plugin-monitor.json")))
    pc = config["pluginConfig"]
    timeout = float(pc["timeout"].rstrip("s"))
    maxlen = pc["max_output_length"]
    rules = {r["type"]: r for r in config["rules"]}
    check("config: timeout 5 s, max_output_length 80, one temporary and one permanent rule",
          timeout == 5 and maxlen == 80 and set(rules) == {"temporary", "permanent"})

    have_sweep = subprocess.run([RCK, "help", "sweep"], capture_output=True).returncode == 0
    if not have_sweep:
        if CI:
            check("rocecheck sweep exists (branch cronsweep)", False)
        print("skip: rocecheck sweep not built yet: the plugin itself is not run")
        print("%d passed, %d failed" % (count - fails, fails))
        sys.exit(1 if fails else 77)

    # The bnxt tree is sound; the degraded one is the same host with its port
    # down, so the state file sees one host go bad and come back.
    healthy = os.path.join(FIX, "sysfs", "bnxt")
    degraded = os.path.join(tmp, "degraded")
    shutil.copytree(healthy, degraded, symlinks=True)
    port = os.path.join(degraded, "class/infiniband/bnxt_re0/ports/1")
    for name, value in (("state", "1: DOWN"), ("phys_state", "3: Disabled")):
        with open(os.path.join(port, name), "w") as f:
            f.write(value + "\n")
    state_dir = os.path.join(tmp, "state")
    os.mkdir(state_dir)

    def rule_args(rule, tree):
        """The rule's argv as in the config, on a recorded tree, its state in $tmp."""
        return [a.replace("/var/lib/rocecheck", state_dir) for a in rule["args"]] + \
            ["--sysfs-root", tree]

    slowest = 0.0

    def run(rule, tree):
        global slowest
        st, msg, raw, secs = run_plugin(RCK, rule_args(rule, tree), timeout, maxlen)
        slowest = max(slowest, secs)
        text = raw.decode("utf-8", "replace")
        line_ok = text.endswith("\n") and text.count("\n") == 1 and len(text) - 1 <= 80 \
            and text.startswith("rocecheck: ")
        return st, msg, line_ok, text

    # Temporary rule: every run alone.
    st, msg, line_ok, text = run(rules["temporary"], healthy)
    check("temporary rule, healthy tree: OK, %r" % msg, st == OK and msg == "rocecheck: healthy",
          "%s %r" % (st, text))
    check("  one line, at most 80 characters, starting 'rocecheck: '", line_ok, repr(text))
    st, msg, line_ok, text = run(rules["temporary"], degraded)
    check("temporary rule, port down: NonOK, %r" % msg,
          st == NONOK and msg.startswith("rocecheck: port_down bnxt_re0/1"), "%s %r" % (st, text))
    check("  one line, at most 80 characters, starting 'rocecheck: '", line_ok, repr(text))
    # The other recorded trees: a PCIe link narrower than its slot, a port
    # down in a tree full of unreadable files.
    for tree, want in (("mlx5", "rocecheck: pcie_degraded mlx5_0"), ("broken", "rocecheck: port_down")):
        st, msg, line_ok, text = run(rules["temporary"], os.path.join(FIX, "sysfs", tree))
        check("temporary rule, %s tree: NonOK, %r" % (tree, msg),
              st == NONOK and msg.startswith(want) and line_ok, "%s %r" % (st, text))

    # Permanent rule: its state file holds the hysteresis (K of N runs).
    seen = []
    for _ in range(3):
        st, msg, line_ok, text = run(rules["permanent"], degraded)
        seen.append(st)
        if st != OK:
            break
    check("permanent rule, port down: NonOK within 3 runs (%s), %r" % (" ".join(seen), msg),
          seen[-1] == NONOK and msg.startswith("rocecheck: port_down bnxt_re0/1") and line_ok, repr(text))
    check("  the state file is written", any(os.scandir(state_dir)))
    seen = []
    for _ in range(3):
        st, msg, line_ok, text = run(rules["permanent"], healthy)
        seen.append(st)
        if st == OK:
            break
    check("permanent rule, port up again: OK within 3 runs (%s), %r" % (" ".join(seen), msg),
          seen[-1] == OK and msg == "rocecheck: healthy", repr(text))

    # A tree that cannot be read: Unknown, never OK.
    st, msg, _, text = run(rules["temporary"], os.path.join(tmp, "no-such-tree"))
    check("no sysfs tree at all: Unknown (%r)" % msg, st == UNKNOWN, "%s %r" % (st, text))
    check("every run well inside NPD's 5 s (slowest %.2f s)" % slowest, slowest < timeout / 2)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print("%d passed, %d failed" % (count - fails, fails))
sys.exit(1 if fails else 0)
