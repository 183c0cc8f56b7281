#!/usr/bin/env bash
# The preflight's PCIe checks: four loopback agents over TCP, each reading a
# recorded PCIe tree (--sysfs-root): one odd host is named with its fault
# and nothing else, all-healthy trees give no PCIe finding, none drains.
. "$(dirname "$0")/agents-lib.sh"
FX=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/pci
[ -d "$FX/gpu8/sys" ] || fail "no fixture $FX/gpu8"

printf '#!/bin/sh\necho "$@" >>"%s"\n' "$tmp/drained" >"$tmp/drain"
chmod +x "$tmp/drain"
# Judge the PCIe trees, not this machine's noise: no sweeps again after noise.
printf 'noise_max = 10\nnoise_budget_s = 0\n' >"$tmp/quiet.conf"

# run ODD_HOST ODD_TREE CODE: the preflight with 127.0.0.ODD_HOST on ODD_TREE.
run() {
	printf '#!/bin/sh\nh=$1; shift; p=$1; shift\ncase $h in 127.0.0.%s) t=%s;; *) t=gpu8;; esac\nexec "$p" --sysfs-root "%s/$t" "$@"\n' \
		"$1" "$2" "$FX" >"$tmp/launch"
	chmod +x "$tmp/launch"
	rm -f "$tmp/drained"
	out=$(timeout 100 $WRAP "$RC" -j preflight --hosts '127.0.0.[1-4]' --launcher "$tmp/launch {host} {cmd}" \
		--transport tcp --iters 200 --config "$tmp/quiet.conf" --drain-cmd "$tmp/drain {host}" 2>"$tmp/err")
	rc=$?
	case $rc in 0|1|3) ;; *) fail "$2: exit $rc: $(cat "$tmp/err")";; esac
	printf '%s' "$out" >"$tmp/out.json"
	python3 - "$1" "$2" "$3" "$tmp/drained" "$tmp/out.json" <<'PY' || fail "$2: $(jq -r .summary <<<"$out")"
import json, os, re, sys
odd, tree, code, drained, path = sys.argv[1:6]
d = json.load(open(path))
pcie_codes = {"pcie_acs_redirect", "pcie_relaxed_ordering", "pcie_max_read_req", "pcie_aer",
              "gpu_nic_far", "iommu_translated", "gpu_peermem"}
whats = re.compile(r"^(GPU-NIC pairing|IOMMU mode|GPU peer memory|NIC relaxed ordering|NIC MaxReadReq|"
                   r"(GPUs|NICs) MaxPayload|MaxPayload|switch downstream port ACS redirect|GPU link)")
fs = [f for f in d["report"]["findings"]
      if f["code"] in pcie_codes or (f["code"] == "pcie_degraded" and "on_path" in f["values"])
      or (f["code"] == "config_mismatch" and whats.match(f["reason"]))]
hosts = sorted({f["host"] for f in fs})
if tree == "gpu8":
    assert not fs, fs
else:
    assert hosts == ["127.0.0." + odd], (hosts, fs)
    assert code in {f["code"] for f in fs}, (code, fs)
# PCIe findings are reported, never drained.
ran = open(drained).read().split() if os.path.exists(drained) else []
bad = [b["host"] for b in d["bad_hosts"]]
assert sorted(ran) == sorted(bad), (ran, bad)
for h in bad:
    assert any(f["host"] == h and f["severity"] in ("degraded", "critical") and f not in fs
               for f in d["report"]["findings"]), (h, d["report"]["findings"])
print("ok: %s on 127.0.0.%s: %d PCIe findings: %s" % (tree, odd, len(fs),
      ", ".join(sorted({f["code"] for f in fs})) or "none"))
PY
}

run 3 acs-on pcie_acs_redirect
run 2 wrong-socket gpu_nic_far
run 1 gpu8 none
