#!/usr/bin/env python3
# contrib/kubernetes: every manifest against the Kubernetes API schemas (npm's
# kubernetes-models, pinned), the NPD config against NPD's own config rules,
# and every file, image, path, Secret and ConfigMap a manifest names.
"""Usage: k8s-manifests.py SRCDIR BUILDDIR

The npm package is installed once per build dir (BUILDDIR/k8s-schemas) with
`npm ci` from tests/k8s/package-lock.json. Without node/npm or the registry:
a failure when CI=true, a skip (exit 77) otherwise, after the other checks.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

SRC, BUILD = sys.argv[1], sys.argv[2]
K8S = os.path.join(SRC, "contrib", "kubernetes")
CI = os.environ.get("CI") == "true"
fails = 0
count = 0


def check(name, ok, detail=""):
    global fails, count
    count += 1
    if ok:
        print("ok: " + name)
    else:
        fails += 1
        print("FAIL: " + name + (" (" + detail + ")" if detail else ""))


def version():
    m = re.search(r"project\('rocecheck',[^)]*?version:\s*'([^']+)'",
                  open(os.path.join(SRC, "meson.build")).read(), re.S)
    return m.group(1)


IMAGE = "rocecheck:" + version()
kust = yaml.safe_load(open(os.path.join(K8S, "kustomization.yaml")))
docs = []  # (file, object)
for name in sorted(os.listdir(K8S)):
    if name.endswith(".yaml") and name != "kustomization.yaml":
        for d in yaml.safe_load_all(open(os.path.join(K8S, name))):
            if d is not None:
                docs.append((name, d))

# The ConfigMap kustomize generates from the NPD config, as the API sees it.
generated = {}
for g in kust.get("configMapGenerator", []):
    data = {}
    for f in g["files"]:
        key, _, path = f.rpartition("=")
        data[key or os.path.basename(path)] = open(os.path.join(K8S, path)).read()
    generated[g["name"]] = data
    docs.append(("kustomization.yaml", {"apiVersion": "v1", "kind": "ConfigMap",
                                        "metadata": {"name": g["name"]}, "data": data}))


# --- (a) the Kubernetes API schemas -----------------------------------------
def npm_schemas():
    """node_modules with kubernetes-models, or None (reason printed)."""
    cache = os.path.join(BUILD, "k8s-schemas")
    lock = os.path.join(SRC, "tests", "k8s", "package-lock.json")
    stamp = os.path.join(cache, "installed.sha256")
    want = hashlib.sha256(open(lock, "rb").read()).hexdigest()
    if os.path.exists(stamp) and open(stamp).read() == want:
        return os.path.join(cache, "node_modules")
    if not shutil.which("node") or not shutil.which("npm"):
        return "node or npm missing (ci/install-deps.sh installs nodejs and npm)"
    os.makedirs(cache, exist_ok=True)
    for f in ("package.json", "package-lock.json"):
        shutil.copy(os.path.join(SRC, "tests", "k8s", f), cache)
    try:
        r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                            "--loglevel=error"], cwd=cache, capture_output=True,
                           text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "npm ci timed out after 300 s"
    if r.returncode != 0:
        lines = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip()]
        return "npm ci failed: " + " | ".join(lines[:3])[:400]
    with open(stamp, "w") as f:
        f.write(want)
    return os.path.join(cache, "node_modules")


modules = npm_schemas()
skipped = None
if os.path.isdir(str(modules)):
    payload = json.dumps([{"file": f, "doc": d} for f, d in docs])
    env = dict(os.environ, NODE_PATH=modules)
    r = subprocess.run(["node", os.path.join(SRC, "tests", "unit", "k8s-validate.js")],
                       input=payload, capture_output=True, text=True, env=env, timeout=120)
    for line in r.stdout.splitlines():
        print(line)
    fails += r.stdout.count("FAIL:")
    count += r.stdout.count("ok:") + r.stdout.count("FAIL:")
    check("kubernetes-models validated %d objects" % len(docs),
          r.returncode == 0 and r.stdout.count("ok:") == len(docs), r.stderr.strip()[-400:])
    # The validator refuses what the API server would: a wrong type, a typo.
    orig = json.dumps(next(d for f, d in docs if d["kind"] == "DaemonSet"))
    ds, typo = json.loads(orig), json.loads(orig)
    ds["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]["add"] = "IPC_LOCK"
    typo["spec"]["template"]["spec"]["containers"][0]["comand"] = ["x"]
    r = subprocess.run(["node", os.path.join(SRC, "tests", "unit", "k8s-validate.js")],
                       input=json.dumps([{"file": "wrong-type", "doc": ds}, {"file": "typo", "doc": typo}]),
                       capture_output=True, text=True, env=env, timeout=120)
    check("the validator refuses a string for capabilities.add and a field 'comand'",
          r.returncode == 1 and "capabilities/add must be array" in r.stdout
          and "containers/0/comand: unknown field" in r.stdout, r.stdout[-400:])
elif CI:
    check("Kubernetes API schemas", False, modules)
else:
    skipped = modules

# --- (a) the node-problem-detector config -----------------------------------
# Field names and types from NPD's pkg/custompluginmonitor/types (config.go,
# types.go) and docs/custom_plugin_monitor.md; Go's JSON decoder ignores keys
# it does not know, so a misspelt key would silently fall back to a default:
# refused here.
npd_path = os.path.join(K8S, "rocecheck-plugin-monitor.json")
npd = json.load(open(npd_path))
DURATION = re.compile(r"^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$")


def seconds(d):
    unit = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * unit[u] for n, _, u in re.findall(r"(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)", d))


def typed(obj, spec, where):
    """spec: key -> (type, required). Returns a list of problems."""
    out = []
    for k, v in obj.items():
        if k not in spec:
            out.append("%s.%s: not a field NPD knows" % (where, k))
        elif not isinstance(v, spec[k][0]) or (spec[k][0] is int and isinstance(v, bool)):
            out.append("%s.%s: %s, want %s" % (where, k, type(v).__name__, spec[k][0].__name__))
    out += ["%s.%s: required" % (where, k) for k, (_, req) in spec.items() if req and k not in obj]
    return out


problems = typed(npd, {"plugin": (str, True), "pluginConfig": (dict, True), "source": (str, True),
                       "metricsReporting": (bool, False), "conditions": (list, True),
                       "rules": (list, True)}, "config")
pc = npd.get("pluginConfig", {})
problems += typed(pc, {"invoke_interval": (str, True), "timeout": (str, True),
                       "max_output_length": (int, True), "concurrency": (int, True),
                       "enable_message_change_based_condition_update": (bool, False),
                       "skip_initial_status": (bool, False)}, "pluginConfig")
for c in npd.get("conditions", []):
    problems += typed(c, {"type": (str, True), "reason": (str, True), "message": (str, True)},
                      "conditions[]")
for r in npd.get("rules", []):
    problems += typed(r, {"type": (str, True), "condition": (str, False), "reason": (str, True),
                          "path": (str, True), "args": (list, False), "timeout": (str, False),
                          "invoke_interval": (str, False)}, "rules[]")
check("NPD config: fields and types as NPD defines them", not problems, "; ".join(problems))
check("NPD config: plugin \"custom\" (the only one NPD supports)", npd.get("plugin") == "custom")
durations = [pc.get("invoke_interval", ""), pc.get("timeout", "")] + \
    [r[k] for r in npd["rules"] for k in ("timeout", "invoke_interval") if k in r]
check("NPD config: every duration parses as a Go duration",
      all(isinstance(d, str) and DURATION.match(d) and seconds(d) > 0 for d in durations), str(durations))
check("NPD config: timeout 5s, max_output_length 80, concurrency >= 1",
      pc.get("timeout") == "5s" and pc.get("max_output_length") == 80 and pc.get("concurrency", 0) >= 1)
cond_types = [c["type"] for c in npd["conditions"]]
perm = [r for r in npd["rules"] if r.get("type") == "permanent"]
temp = [r for r in npd["rules"] if r.get("type") == "temporary"]
check("NPD config: rule types are temporary or permanent",
      all(r.get("type") in ("temporary", "permanent") for r in npd["rules"]))
check("NPD config: condition RoCEFabricDegraded with a default reason and message",
      any(c["type"] == "RoCEFabricDegraded" and c["reason"] and c["message"] for c in npd["conditions"]))
check("NPD config: every permanent rule's condition has a default (NPD refuses to start otherwise)",
      perm and all(r.get("condition") in cond_types for r in perm))
check("NPD config: a permanent RoCEFabricDegraded rule and a temporary rule",
      any(r.get("condition") == "RoCEFabricDegraded" for r in perm) and len(temp) >= 1)
check("NPD config: no rule timeout above the global one (NPD refuses to start otherwise)",
      all(seconds(r.get("timeout", pc["timeout"])) <= seconds(pc["timeout"]) for r in npd["rules"]))
check("NPD config: every rule runs `rocecheck sweep --format npd`",
      all(r["args"][:1] == ["sweep"] and "--format" in r["args"] and
          r["args"][r["args"].index("--format") + 1] == "npd" for r in npd["rules"]))
check("NPD config: the CLI contract's 80-character line fits max_output_length",
      pc.get("max_output_length", 0) >= 80)

# --- (c) files, images, paths, Secrets and ConfigMaps -----------------------
for f in kust.get("resources", []):
    check("kustomization resource %s exists" % f, os.path.isfile(os.path.join(K8S, f)))
for g in kust.get("configMapGenerator", []):
    for f in g["files"]:
        check("configMapGenerator file %s exists" % f,
              os.path.isfile(os.path.join(K8S, f.rpartition("=")[2])))
for im in kust.get("images", []):
    check("kustomization image override %s:%s is the built image %s" % (im["name"], im.get("newTag"), IMAGE),
          "%s:%s" % (im["name"], im.get("newTag")) == IMAGE)

containerfile = open(os.path.join(K8S, "Containerfile")).read()
readme = open(os.path.join(K8S, "README.md")).read()
check("Containerfile and README build and tag %s" % IMAGE,
      ("-t %s " % IMAGE) in containerfile and ("-t %s " % IMAGE) in readme)
check("Containerfile: Debian 12 based, meson build and install",
      re.search(r"^FROM debian:12\b", containerfile, re.M) and "meson setup" in containerfile
      and "meson install" in containerfile)
check("Containerfile's install-deps.sh mode exists",
      re.search(r"^\s*compile\)", open(os.path.join(SRC, "ci", "install-deps.sh")).read(), re.M)
      is not None)
npd_image = re.search(r"^ARG NPD_IMAGE=(\S+)", containerfile, re.M).group(1)
check("the NPD image the Containerfile copies from is documented in README (%s)" % npd_image,
      npd_image in readme)

# What the image holds: the meson install tree (this build's install plan,
# moved to the Containerfile's --prefix), NPD's binary, Debian's base tools.
prefix = re.search(r"meson setup \S+ --prefix=(\S+)", containerfile).group(1)
intro = json.loads(subprocess.run(["meson", "introspect", "--installed", BUILD],
                                  capture_output=True, text=True, check=True).stdout)
opts = json.loads(subprocess.run(["meson", "introspect", "--buildoptions", BUILD],
                                 capture_output=True, text=True, check=True).stdout)
build_prefix = next(o["value"] for o in opts if o["name"] == "prefix")
image_files = {prefix + p[len(build_prefix):] for p in intro.values() if p.startswith(build_prefix)}
image_files |= {"/node-problem-detector", "/bin/sh", "/usr/bin/getent"}
check("the image installs /usr/sbin/rocecheck", "/usr/sbin/rocecheck" in image_files,
      str(sorted(image_files))[:300])


def pods():
    for f, d in docs:
        spec = d.get("spec", {})
        if d["kind"] in ("DaemonSet", "Job", "Deployment", "StatefulSet"):
            yield f, d, spec["template"]["spec"]


secret_docs = set(re.findall(r"kubectl (?:-n \S+ )?create secret generic (\S+)", readme))
for f, d, ps in pods():
    vols = {v["name"]: v for v in ps.get("volumes", [])}
    for c in ps.get("initContainers", []) + ps["containers"]:
        where = "%s %s/%s" % (f, d["metadata"]["name"], c["name"])
        check("%s: image %s" % (where, c["image"]), c["image"] == IMAGE)
        cmd = c.get("command", [])
        check("%s: runs %s from the image" % (where, cmd[:1]), cmd[:1] and cmd[0] in image_files)
        # Absolute program paths inside shell scripts, too.
        for arg in cmd[1:]:
            for p in re.findall(r"(?<![\w/])(/(?:usr/)?s?bin/[\w.-]+)", arg):
                check("%s: script runs %s from the image" % (where, p), p in image_files)
        mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
        for m in mounts.values():
            check("%s: mount %s has its volume" % (where, m["name"]), m["name"] in vols)
            v = vols.get(m["name"], {})
            if "configMap" in v:
                check("%s: ConfigMap %s is generated by kustomization.yaml" % (where, v["configMap"]["name"]),
                      v["configMap"]["name"] in generated)
            if "secret" in v:
                check("%s: Secret %s is made as README.md says" % (where, v["secret"]["secretName"]),
                      v["secret"]["secretName"] in secret_docs)
        # Files named on the command line live under a mount of this container.
        text = " ".join(cmd)
        for opt, path in re.findall(r"(--config\.custom-plugin-monitor=|--key-file |--sysfs-root |"
                                    r"--state |--prom )(\S+)", text):
            base = next((mp for mp in mounts if path == mp or path.startswith(mp + "/")), None)
            check("%s: %s%s is under a mount" % (where, opt, path), base is not None)
            if opt.startswith("--config") and base:
                v = vols[mounts[base]["name"]]
                key = path[len(base) + 1:]
                check("%s: %s is a key of the mounted ConfigMap" % (where, key),
                      key in generated.get(v.get("configMap", {}).get("name"), {}))
        if "rocecheck sweep" in text or "/node-problem-detector" in cmd[:1]:
            m = mounts.get("/sys", {})
            check("%s: the host's sysfs is mounted read-only at /sys" % where,
                  m.get("readOnly") is True and vols[m["name"]]["hostPath"]["path"] == "/sys")
        # --sysfs-root reads a recorded tree: no live ethtool or pause counters.
        check("%s: no --sysfs-root (a recorded tree has no live ethtool)" % where,
              "--sysfs-root" not in text)

# The NPD plugin's own references: its program in the image, its paths
# under the NPD container's mounts.
ds = next(d for f, d in docs if d["kind"] == "DaemonSet")
npdc = next(c for c in ds["spec"]["template"]["spec"]["containers"]
            if c["command"][0] == "/node-problem-detector")
npd_mounts = [m["mountPath"] for m in npdc["volumeMounts"]]
for r in npd["rules"]:
    check("NPD rule %s: %s is in the image" % (r["reason"], r["path"]), r["path"] in image_files)
    check("NPD rule %s: no --sysfs-root (live ethtool and pause counters)" % r["reason"],
          "--sysfs-root" not in r["args"])
    for opt in ("--state",):
        if opt in r["args"]:
            p = r["args"][r["args"].index(opt) + 1]
            check("NPD rule %s: %s %s is under a mount of the NPD container" % (r["reason"], opt, p),
                  any(p == mp or p.startswith(mp + "/") for mp in npd_mounts))

# The DaemonSet as the issue asks: host network, /dev/infiniband, IPC_LOCK.
dsp = ds["spec"]["template"]["spec"]
agent = next(c for c in dsp["containers"] if "agent" in c["command"])
check("DaemonSet: hostNetwork, the agent with /dev/infiniband and IPC_LOCK",
      dsp.get("hostNetwork") is True and "IPC_LOCK" in agent["securityContext"]["capabilities"]["add"]
      and any(m["mountPath"] == "/dev/infiniband" for m in agent["volumeMounts"]))
check("DaemonSet: a sweep writes the Prometheus textfile",
      any("--prom" in " ".join(c["command"]) for c in dsp["containers"]))
job = next(d for f, d in docs if d["kind"] == "Job")
pf = job["spec"]["template"]["spec"]["initContainers"][0]
pf_text = " ".join(pf["command"])
check("Job: the init container runs the preflight with --launcher none",
      "rocecheck preflight" in pf_text and "--launcher none" in pf_text)
check("Job: a preflight exit 1 fails the Job (podFailurePolicy FailJob)",
      any(r["action"] == "FailJob" and r["onExitCodes"]["containerName"] == pf["name"]
          and 1 in r["onExitCodes"]["values"] for r in job["spec"]["podFailurePolicy"]["rules"]))
# The preflight's host list is the Job's pods: <job>-<index>.<subdomain>, one
# per completion index, the subdomain a headless Service selecting the Job.
jspec = job["spec"]
tmpl = jspec["template"]["spec"]
svc = next((d for f, d in docs if d["kind"] == "Service"
            and d["metadata"]["name"] == tmpl.get("subdomain")), None)
m = re.search(r"--hosts '([\w-]+)-\[(\d+)-(\d+)\]\.([\w-]+)'", pf_text)
n = jspec.get("completions")
check("Job: --hosts names exactly the %s pods (%s)" % (n, m and m.group(0)),
      m is not None and jspec.get("completionMode") == "Indexed" and jspec.get("parallelism") == n
      and m.group(1) == job["metadata"]["name"] and int(m.group(2)) == 0
      and int(m.group(3)) == n - 1 and m.group(4) == tmpl.get("subdomain")
      and re.search(r"while \[ \$i -lt %d \]" % n, pf_text) is not None)
check("Job: a headless Service for the subdomain, publishing not-ready pods, selecting the Job",
      svc is not None and svc["spec"].get("clusterIP") == "None"
      and svc["spec"].get("publishNotReadyAddresses") is True
      and svc["spec"].get("selector") == {"job-name": job["metadata"]["name"]})
check("Job: host network (the pod names are the agents' nodes), cluster DNS kept",
      tmpl.get("hostNetwork") is True and tmpl.get("dnsPolicy") == "ClusterFirstWithHostNet"
      and tmpl.get("restartPolicy") == "Never")
for t in ("kubectl cordon {host}", "kubectl label --overwrite node {host} rocecheck/degraded=true",
          "kubectl taint --overwrite node {host} rocecheck/degraded=true:NoSchedule"):
    check("README documents --drain-cmd '%s'" % t, "--drain-cmd '%s'" % t in readme)

if skipped:
    print("skip: Kubernetes API schemas not checked: " + skipped)
print("%d passed, %d failed" % (count - fails, fails))
sys.exit(1 if fails else (77 if skipped else 0))
