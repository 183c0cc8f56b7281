#!/usr/bin/env python3
# Every schemas/*.schema.json is a valid JSON Schema and every -j output of
# every tool mapped to it below validates and carries its "schema" member
# (NAME/VERSION, as the README promises), counters and mesh included.
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import jsonschema

RCK = os.environ["ROCECHECK"]
FIX = os.path.join(os.environ["ROCECHECK_FIXTURES"], "sysfs")
SCHEMAS = sys.argv[1]
TREES = sorted(os.listdir(FIX))
TMP = tempfile.mkdtemp(prefix="rck-schemas.")
DRAFT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "https://github.com/rocecheck/rocecheck/schemas/"


def run(args, ok=(0,)):
    p = subprocess.run([RCK] + args, capture_output=True, text=True, timeout=60)
    if p.returncode not in ok:
        raise AssertionError(f"rocecheck {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def sysfs(tree, *args, ok=(0,)):
    return run(["--sysfs-root", os.path.join(FIX, tree)] + list(args), ok=ok)


def devices():
    for t in TREES:
        yield f"devices {t}", sysfs(t, "-j", "devices")
        yield f"devices -p {t}", sysfs(t, "-p", "devices")
    yield "devices mlx5_0", sysfs("mlx5", "devices", "mlx5_0", "-j")


def links():
    for t in TREES:
        yield f"devices --brief {t}", sysfs(t, "-j", "devices", "--brief")


def topo():
    pci = os.path.join(os.environ["ROCECHECK_FIXTURES"], "pci")
    for t in sorted(os.listdir(pci)):
        if os.path.isdir(os.path.join(pci, t, "sys")):
            yield f"devices --topo {t}", run(["--sysfs-root", os.path.join(pci, t, "sys"), "-j", "devices", "--topo"])


def counters():
    for t in TREES:
        yield f"counters {t}", sysfs(t, "-j", "counters")
        yield f"counters --all {t}", sysfs(t, "-j", "counters", "--all")


def counters_delta():
    for t in TREES:
        if t == "empty":
            continue  # no port in common: refused (exit 1), no document
        old, new = os.path.join(TMP, t + ".old"), os.path.join(TMP, t + ".new")
        sysfs(t, "counters", "--save", old)
        sysfs(t, "counters", "--save", new)
        yield f"counters --diff {t}", run(["-j", "counters", "--all", "--diff", old, new])
    yield "counters --interval mlx5", sysfs("mlx5", "-j", "counters", "--interval", "0.1", "--count", "2")


def probe():
    """A TCP-transport listener on loopback and clients of every test."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = str(s.getsockname()[1])
    s.close()
    clients = [["--test", "bw", "--iters", "50"], ["--test", "lat", "--iters", "50"],
               ["--test", "send-lat", "--iters", "50"], ["--bidir", "--duration", "0.1"]]
    err = open(os.path.join(TMP, "srv.err"), "w+")
    srv = subprocess.Popen([RCK, "-j", "-v", "probe", "--listen", "--transport", "tcp", "--bind", "127.0.0.1",
                            "--port", port, "--sessions", str(len(clients)), "--idle", "30"],
                           stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        for _ in range(100):
            err.seek(0)
            if "listening on port" in err.read():
                break
            time.sleep(0.05)
        for args in clients:
            yield "probe " + " ".join(args), run(["-j", "probe", "127.0.0.1", "--port", port,
                                                 "--transport", "tcp"] + args)
        out, _ = srv.communicate(timeout=60)
    finally:
        if srv.poll() is None:
            srv.kill()
    yield "probe --listen", out
    yield "probe unreachable", run(["-j", "-t", "500", "probe", "127.0.0.1", "--port", port,
                                    "--transport", "tcp"], ok=(3,))


def rocecap():
    """rocecap on a capture written by rocecap-gen (built with libpcap)."""
    build = os.environ["ROCECHECK_BUILD_DIR"]
    cap, gen = os.path.join(build, "tools", "rocecap"), os.path.join(build, "tests", "cap", "rocecap-gen")
    if not (os.access(cap, os.X_OK) and os.access(gen, os.X_OK)):
        if os.environ.get("CI") == "true":
            raise AssertionError("rocecap or rocecap-gen not built")
        print("# rocecap not built (no libpcap): its schema is only checked")
        return
    pcap = os.path.join(TMP, "s.pcap")
    subprocess.run([gen, "scenario", pcap], check=True, capture_output=True, timeout=60)
    for args in (["-j"], ["-j", "--timeline"], ["-p", "--flows"], ["-j", "-c", "5"]):
        p = subprocess.run([cap, "-r", pcap] + args, capture_output=True, text=True, timeout=60)
        if p.returncode:
            raise AssertionError(f"rocecap {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        yield "rocecap " + " ".join(args), p.stdout


def mesh():
    """A recorded sweep (tests/fixtures/mesh) as the library writes it back,
    and `rocecheck -j mesh` on loopback agents (TCP probes)."""
    fixture = os.path.join(os.path.dirname(SCHEMAS), "tests", "fixtures", "mesh", "sample.json")
    with open(fixture) as fh:
        yield "recorded sweep " + os.path.basename(fixture), fh.read()
    env = dict(os.environ, PATH=os.path.dirname(RCK) + os.pathsep + os.environ.get("PATH", ""))
    p = subprocess.run([RCK, "-j", "mesh", "--hosts", "127.0.0.1,127.0.0.2", "--launcher", "env H={host} {cmd}",
                        "--transport", "tcp", "--iters", "10", "--test", "lat"],
                       capture_output=True, text=True, timeout=60, env=env)
    if p.returncode not in (0, 1):
        raise AssertionError(f"mesh on loopback: exit {p.returncode}: {p.stderr.strip()}")
    yield "mesh -j on loopback", p.stdout


def analysis():
    """Analysis reports of every verdict (tests/unit/analysis-examples)."""
    exe = os.path.join(os.environ["ROCECHECK_BUILD_DIR"], "tests", "unit", "analysis-examples")
    p = subprocess.run([exe], capture_output=True, text=True, timeout=120)
    if p.returncode:
        raise AssertionError(f"analysis-examples: exit {p.returncode}: {p.stderr.strip()}")
    yield "analysis examples", p.stdout
    # devices --topo --lint: saved PCIe paths judged together.
    pci = os.path.join(os.environ["ROCECHECK_FIXTURES"], "pci")
    files = []
    for t in ("gpu8", "acs-on", "wrong-socket", "vm"):
        files.append(os.path.join(TMP, t + ".json"))
        with open(files[-1], "w") as fh:
            fh.write(run(["--sysfs-root", os.path.join(pci, t, "sys"), "-j", "devices", "--topo"]))
    yield "devices --topo --lint", run(["-j", "devices", "--topo", "--lint"] + files, ok=(0, 1))


def preflight():
    """rocecheck preflight --from-mesh on the recorded sweep, and a live one
    on loopback agents started through a template (TCP probes); the embedded
    report and sweep validate against their own schemas."""
    fixture = os.path.join(os.path.dirname(SCHEMAS), "tests", "fixtures", "mesh", "sample.json")
    outs = [("preflight --from-mesh", run(["-j", "preflight", "--from-mesh", fixture], ok=(1,)))]
    env = dict(os.environ, PATH=os.path.dirname(RCK) + os.pathsep + os.environ.get("PATH", ""))
    p = subprocess.run([RCK, "-j", "preflight", "--hosts", "127.0.0.1,127.0.0.2,127.0.0.3",
                        "--launcher", "env H={host} {cmd}", "--transport", "tcp", "--iters", "10",
                        "--test", "bw,lat"], capture_output=True, text=True, timeout=60, env=env)
    if p.returncode not in (0, 1, 3):
        raise AssertionError(f"preflight on loopback: exit {p.returncode}: {p.stderr.strip()}")
    outs.append(("preflight on loopback", p.stdout))
    for name, sub in (("analysis.schema.json", "report"), ("mesh.schema.json", "mesh")):
        with open(os.path.join(SCHEMAS, name)) as fh:
            schema = json.load(fh)
        v = jsonschema.validators.validator_for(schema)(schema)
        for what, text in outs:
            for e in v.iter_errors(json.loads(text)[sub]):
                raise AssertionError(f"{what}: {sub}: {list(e.absolute_path)}: {e.message}")
    yield from outs


def sweep():
    """`sweep -j` on every fixture, alone, with a state over two runs (counters
    compared, a pending finding) and with the quick loopback probe."""
    for tree in sorted(os.listdir(FIX)):
        yield f"sweep -j on {tree}", sysfs(tree, "sweep", "-j", ok=(0, 1))
    with tempfile.TemporaryDirectory() as d:
        st = os.path.join(d, "state.json")
        for i in range(2):
            yield f"sweep --state run {i}", sysfs("mlx5", "sweep", "--format", "json", "--state", st, ok=(0, 1))
    yield "sweep --probe quick", sysfs("bnxt", "sweep", "-j", "--probe", "quick", ok=(0, 1))


def rocedcb():
    """rocedcb on lo (no dcbnl, no root needed), on recorded trees, and a
    recorded state file of a port with every DCB feature."""
    rdcb = os.path.join(os.environ["ROCECHECK_BUILD_DIR"], "tools", "rocedcb")
    fix = os.environ["ROCECHECK_FIXTURES"]
    for args, ok in ((["show", "lo", "-j"], (0,)), (["-p", "show", "lo"], (0,)),
                     (["check", "roce-lossless", "lo", "-j"], (3,)),
                     (["--sysfs-root", os.path.join(fix, "dcb", "sysfs-ofed"), "-j", "show", "ens1f0np0"], (0,)),
                     (["--sysfs-root", os.path.join(FIX, "mlx5"), "-j", "show", "mlx5_0"], (0,)),
                     (["--sysfs-root", os.path.join(FIX, "mlx5"), "-j", "check", "roce-lossless"], (3,))):
        p = subprocess.run([rdcb] + args, capture_output=True, text=True, timeout=60)
        if p.returncode not in ok:
            raise AssertionError(f"rocedcb {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        yield "rocedcb " + " ".join(args), p.stdout
    with open(os.path.join(fix, "dcb", "state-default.json")) as fh:
        yield "rocedcb state file", fh.read()


def mesh_plan():
    """mesh and preflight --dry-run: the hosts and the plan, nothing contacted."""
    for args in (["mesh", "--hosts", "n[1-4],m:18531", "--dry-run"],
                 ["mesh", "--hosts", "n[1-5]", "--pattern", "incast:2", "--test", "bw,lat", "--list-hosts"],
                 ["preflight", "--hosts", "a[1-2]b[3-4]", "--spares", "s1", "--quick", "--dry-run"]):
        yield "rocecheck -j " + " ".join(args), run(["-j"] + args)


# schema file -> the outputs that must validate against it. A new -j
# output adds its schema file and one line here.
def topology():
    fix = os.path.join(os.environ["ROCECHECK_FIXTURES"], "topology")
    for f in sorted(os.listdir(fix)):
        path = os.path.join(fix, f)
        if f.endswith(".json") and not f.startswith("bad-"):
            yield f"topology --topology {f}", run(["-j", "topology", "--topology", path], ok=(0, 1))
            # A file the schema describes is one the reader takes, and back.
            with open(path) as fh:
                yield f"topology file {f}", fh.read()
        elif f.endswith(".conf") and not f.startswith("bad-"):
            yield f"topology --slurm-topology {f}", run(["-j", "topology", "--slurm-topology", path], ok=(0, 1))


def monitor_event():
    """`rocecheck monitor` on a recorded tree with a peer that never answers:
    started, a finding (1 of 1 windows), stopped."""
    pl = os.path.join(TMP, "monitor.pl")
    with open(pl, "w") as fh:
        fh.write("dead 127.0.0.1:9 rate=20\n")
    yield "monitor events", sysfs("mlx5", "monitor", "--pinglist", pl, "--listen", "127.0.0.1",
                                  "--port", "0", "--window", "2", "--hold", "1/1", "--duration", "2.5")
    fix = os.path.join(os.environ["ROCECHECK_FIXTURES"], "monitor")
    events = sorted(os.path.join(fix, f) for f in os.listdir(fix) if f.startswith("events-"))
    for f in events:
        with open(f) as fh:
            yield "monitor event file " + os.path.basename(f), fh.read()
    yield "monitor --collect", run(["monitor", "--collect"] + events)


OUTPUTS = {
    "devices.schema.json": devices,
    "links.schema.json": links,
    "topo.schema.json": topo,
    "probe.schema.json": probe,
    "counters.schema.json": counters,
    "counters-delta.schema.json": counters_delta,
    "rocecap.schema.json": rocecap,
    "mesh.schema.json": mesh,
    "mesh-plan.schema.json": mesh_plan,
    "analysis.schema.json": analysis,
    "preflight.schema.json": preflight,
    "sweep.schema.json": sweep,
    "topology.schema.json": topology,
    "monitor-event.schema.json": monitor_event,


    "rocedcb.schema.json": rocedcb,
}


def docs(text):
    """One JSON document, or JSON lines."""
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def main():
    fails = n = 0
    files = sorted(f for f in os.listdir(SCHEMAS) if f.endswith(".schema.json"))
    for f in files:
        n += 1
        with open(os.path.join(SCHEMAS, f)) as fh:
            schema = json.load(fh)
        cls = jsonschema.validators.validator_for(schema)
        try:
            cls.check_schema(schema)
        except jsonschema.exceptions.SchemaError as e:
            print(f"FAIL: {f} is not a valid JSON Schema: {e.message}")
            fails += 1
            continue
        # One draft and one $id style across schemas/.
        if schema.get("$schema") != DRAFT or schema.get("$id") != ID_BASE + f:
            print(f"FAIL: {f}: want $schema {DRAFT} and $id {ID_BASE + f}")
            fails += 1
        if f not in OUTPUTS:
            print(f"FAIL: {f}: no outputs mapped to it in {os.path.basename(__file__)}")
            fails += 1
            continue
        # The "schema" member ("rocecheck.NAME/N"): every document has it.
        props = schema.get("properties", {})
        vkey = "schema"
        if vkey not in schema.get("required", []):
            print(f"FAIL: {f}: \"schema\" is not a required member")
            fails += 1
        # One layout a file ("const"), or a file of several documents ("enum").
        spec = props.get(vkey, {})
        allowed = [spec["const"]] if "const" in spec else spec.get("enum", [])
        validator = cls(schema, format_checker=jsonschema.FormatChecker())
        count = 0
        try:
            for what, text in OUTPUTS[f]():
                for doc in docs(text):
                    n += 1
                    count += 1
                    errs = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
                    if errs:
                        e = errs[0]
                        print(f"FAIL: {what} against {f}: {'/'.join(map(str, e.path))}: {e.message}")
                        fails += 1
                    elif doc.get(vkey) not in allowed:
                        print(f"FAIL: {what}: \"{vkey}\" is {doc.get(vkey)!r}, want one of {allowed!r}")
                        fails += 1
        except (AssertionError, subprocess.TimeoutExpired, json.JSONDecodeError) as e:
            print(f"FAIL: {f}: {e}")
            fails += 1
        print(f"{f}: {count} documents")
    for f in OUTPUTS:
        if f not in files and not f.startswith("counters"):
            print(f"FAIL: {f} is missing from {SCHEMAS}")
            fails += 1
    print(f"{n - fails}/{n} schema checks passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
