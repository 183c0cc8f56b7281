#!/usr/bin/env bash
# Hostile files for `rocecheck counters` and `devices`: FIFOs in a tree, a
# sidecar and as --diff input, non-finite rates, long raw keys, escape
# sequences in names, exact uint64 round trips, --save's atomicity, symlink
# policy and signals, and the JSON schemas of every counters output.
set -u
rck=$(realpath "${ROCECHECK:?ROCECHECK not set}")
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/sysfs
schemas=$(cd "$(dirname "$0")/../../schemas" && pwd)
t=$(mktemp -d /tmp/rck-files.XXXXXX)
# Only in the script itself: a job it forks and signals before the job's
# exec runs the EXIT trap too (bash runs it on a fatal signal), and the
# signal tests below do exactly that.
trap '[ "$BASHPID" = "$$" ] && rm -rf "$t"' EXIT
fails=0 n=0
# "At once" is under 3 s natively (a FIFO opened for reading would block
# until the 5 s timeout; a loaded 2-core runner has taken over 1 s to start
# a process); under valgrind the start-up alone takes seconds.
limit=3000 tmo=5
[ -n "$wrap" ] && limit=20000 tmo=60

check() {
	n=$((n + 1))
	if ! eval "$2"; then
		echo "FAIL: $1"
		[ -s "$t/err" ] && sed 's/^/    stderr: /' "$t/err" | head -n 5
		fails=$((fails + 1))
	fi
}

# rc of rocecheck ARGS..., stdout in $t/out, stderr in $t/err; 5 s at most.
r() {
	# shellcheck disable=SC2086
	timeout -k 1 $tmo $wrap "$rck" "$@" >"$t/out" 2>"$t/err" </dev/null
	rc=$?
	return $rc
}

# Elapsed wall-clock ms of the last `r`.
timed() {
	local s e
	s=$(date +%s%N)
	r "$@"
	e=$(date +%s%N)
	ms=$(((e - s) / 1000000))
	return $rc
}

one_line() { [ "$(wc -l <"$t/err")" -eq 1 ]; }
valid() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }
schema() {
	python3 - "$schemas/$1" "$2" <<'PY'
import json, sys, jsonschema
try:
    jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
except (ValueError, jsonschema.ValidationError) as e:
    sys.exit("    schema: " + str(getattr(e, "message", e))[:200])
PY
}

tree() { # a writable copy of fixture tree $1 at $t/$2
	rm -rf "${t:?}/$2"
	cp -a "$fix/$1" "$t/$2"
}
mlx5_port=devices/pci0000:00/0000:00:02.0/0000:3b:00.0/mlx5_core.rdma.0/infiniband/mlx5_0/ports/1

# ---- FIFOs: a clean error or warning within a second, never a hang ----
tree mlx5 fifo
rm "$t/fifo/$mlx5_port/hw_counters/np_cnp_sent" "$t/fifo/rocecheck/ethtool/ens1f0np0" \
	"$t/fifo/$mlx5_port/rate"
mkfifo "$t/fifo/$mlx5_port/hw_counters/np_cnp_sent" "$t/fifo/rocecheck/ethtool/ens1f0np0" \
	"$t/fifo/$mlx5_port/rate"
timed -v --sysfs-root "$t/fifo" -j counters
check "FIFO in a tree and as the ethtool sidecar: counters exit 0 (got $rc) at once (${ms} ms)" \
	"[ $rc -eq 0 ] && [ $ms -lt $limit ]"
check "FIFO counter: warned as not a regular file" "grep -q 'np_cnp_sent: not a regular file' '$t/err'"
check "FIFO sidecar: warned as not a regular file" "grep -q 'ethtool/ens1f0np0: not a regular file' '$t/err'"
check "FIFO counter: null in JSON" \
	"python3 -c 'import json,sys; d=json.load(open(\"$t/out\")); sys.exit(d[\"devices\"][0][\"ports\"][0][\"raw\"][\"hw_counters/np_cnp_sent\"] is not None)'"
timed --sysfs-root "$t/fifo" -j devices
check "FIFO as a port attribute: devices exit 0 (got $rc) at once" "[ $rc -eq 0 ] && [ $ms -lt $limit ] && valid '$t/out'"
mkfifo "$t/diff.fifo"
r --sysfs-root "$fix/mlx5" counters --save "$t/a.json"
timed counters --diff "$t/diff.fifo" "$t/a.json"
check "FIFO as --diff OLD: exit 1 (got $rc) at once (${ms} ms), one line" \
	"[ $rc -eq 1 ] && [ $ms -lt $limit ] && one_line && grep -q 'diff.fifo: not a regular file' '$t/err'"
timed counters --diff "$t/a.json" "$t/diff.fifo"
check "FIFO as --diff NEW: exit 1 (got $rc) at once" "[ $rc -eq 1 ] && [ $ms -lt $limit ] && one_line"
timed counters --diff "$t/a.json" /dev/zero
check "a device as --diff NEW: exit 1 (got $rc), one line" "[ $rc -eq 1 ] && one_line"

# ---- non-finite numbers in sysfs: refused with a warning, JSON whole ----
for v in "1e999 Gb/sec (4X EDR)" "inf" "nan" "1e999"; do
	tree mlx5 inf
	printf '%s\n' "$v" >"$t/inf/$mlx5_port/rate"
	printf '1e999 GT/s PCIe\n' >"$t/inf/devices/pci0000:00/0000:00:02.0/0000:3b:00.0/current_link_speed"
	r -v --sysfs-root "$t/inf" -j devices
	check "rate '$v': -j devices exit 0 (got $rc) with valid JSON, rate null" \
		"[ $? -eq 0 ] && python3 -c 'import json,sys; d=json.load(open(\"$t/out\")); p=d[\"devices\"][0]; sys.exit(p[\"ports\"][0][\"rate_gbps\"] is not None or p[\"pci\"][\"link_speed_gts\"] is not None)'"
done
check "non-finite rate: warned" "grep -q \"rate: '1e999' is not a finite number\" '$t/err'"
r --sysfs-root "$t/inf" devices
check "non-finite rate: text devices exit 0" "[ $? -eq 0 ]"
# Bytes that are not UTF-8 in a board id: JSON still whole (jansson refuses
# such strings; they go out with '?'), text escaped.
printf 'MCX\377\376-\303\n' >"$t/inf/devices/pci0000:00/0000:00:02.0/0000:3b:00.0/mlx5_core.rdma.0/infiniband/mlx5_0/board_id"
r --sysfs-root "$t/inf" -j devices
check "board id not UTF-8: -j devices exit 0 (got $rc), valid JSON" \
	"[ $rc -eq 0 ] && python3 -c 'import json,sys; sys.exit(json.load(open(\"$t/out\"))[\"devices\"][0][\"board_id\"]!=\"MCX??-?\")'"
r --sysfs-root "$t/inf" devices
check "board id not UTF-8: text escaped" "[ $rc -eq 0 ] && grep -qF 'MCX\xff\xfe-\xc3' '$t/out'"

# ---- sysfs numbers are decimal ----
tree mlx5 dec
printf '010\n' >"$t/dec/$mlx5_port/hw_counters/np_cnp_sent"
printf '0x20\n' >"$t/dec/$mlx5_port/hw_counters/rp_cnp_handled"
r -v --sysfs-root "$t/dec" -j counters
check "'010' is 10, '0x20' is text with a warning" \
	"python3 -c 'import json,sys; r=json.load(open(\"$t/out\"))[\"devices\"][0][\"ports\"][0][\"raw\"]; sys.exit(r[\"hw_counters/np_cnp_sent\"]!=10 or r[\"hw_counters/rp_cnp_handled\"]!=\"0x20\")' && grep -q \"rp_cnp_handled: not a number: '0x20'\" '$t/err'"

# ---- snapshots written by hand: long keys, escapes, exact uint64 ----
python3 - "$t" <<'PY'
import json, sys
t = sys.argv[1]
def snap(time_ns, dev, raw, counters=None, host="h"):
    c = {"rx_bytes": None}
    c.update(counters or {})
    return {"version": 2, "time_ns": time_ns, "host": host,
            "devices": [{"name": dev, "ports": [{"port": 1, "netdev": "eth0",
                         "counters": c, "raw": raw}]}]}
def save(name, doc):
    with open(f"{t}/{name}", "w") as f:
        json.dump(doc, f)
# Raw keys around the old 352-byte format buffer, and far past it.
keys = {"hw_counters/" + "k" * n: 1 for n in (100, 116, 117, 200, 333, 345, 346, 400, 4000)}
keys["hw_counters/ok"] = 5
save("long1.json", snap(1000000000, "mlx5_0", keys))
save("long2.json", snap(2000000000, "mlx5_0", {k: v + 7 for k, v in keys.items()}))
esc = "mlx5_\x1b[31mEVIL\x1b]0;owned\x07"
save("esc1.json", snap(1000000000, esc, {"hw_counters/x\x1b[2J": 1}))
save("esc2.json", snap(2000000000, esc, {"hw_counters/x\x1b[2J": 3}))
big = {"hw_counters/max": str(2**64 - 1), "hw_counters/top": str(2**63 + 1),
       "hw_counters/mid": 2**63 - 1}
save("big1.json", snap(1000000000, "mlx5_0", big, {"rx_bytes": str(2**63 + 1)}))
save("big2.json", snap(2000000000, "mlx5_0", dict(big, **{"hw_counters/top": str(2**64 - 1)}),
                       {"rx_bytes": str(2**64 - 1)}))
save("other.json", snap(3000000000, "bnxt_re0", {"hw_counters/ok": 5}))
PY
r -v counters --diff "$t/long1.json" "$t/long2.json" --all
check "long raw keys through --diff: exit 0, no crash" "[ $? -eq 0 ] && grep -q 'hw_counters/ok' '$t/out'"
check "long raw keys: skipped with a warning naming the limit" \
	"grep -q 'long1.json: device mlx5_0 port 1: raw key of 357 bytes skipped (at most 128)' '$t/err'"
check "keys up to 128 bytes kept" "grep -q \"hw_counters/k\\{116\\}\" '$t/out' && ! grep -q \"hw_counters/k\\{117\\}\" '$t/out'"
r -j counters --diff "$t/long1.json" "$t/long2.json" --all
check "long raw keys: -j --diff valid" "[ $? -eq 0 ] && valid '$t/out' && schema counters-delta.schema.json '$t/out'"

r counters --diff "$t/esc1.json" "$t/esc2.json" --all
check "escape sequences in a device name and raw key: no ESC or BEL reaches the terminal" \
	"[ $? -eq 0 ] && ! grep -q \$'[\\x1b\\x07]' '$t/out' && grep -qF 'mlx5_\\x1b[31mEVIL\\x1b]0;owned\\x07' '$t/out'"
r -j counters --diff "$t/esc1.json" "$t/esc2.json" --all
check "escape sequences: JSON keeps the exact name" \
	"python3 -c 'import json,sys; d=json.load(open(\"$t/out\")); sys.exit(d[\"devices\"][0][\"name\"]!=\"mlx5_\\x1b[31mEVIL\\x1b]0;owned\\x07\")'"
tree mlx5 escdev
mv "$t/escdev/class/infiniband/mlx5_0" "$t/escdev/class/infiniband/mlx5_"$'\x1b'"[31m0"
r --sysfs-root "$t/escdev" devices
check "escape sequence in a tree's device name: devices text escaped" \
	"[ $? -eq 0 ] && ! grep -q \$'\\x1b' '$t/out' && grep -qF 'mlx5_\\x1b[31m0' '$t/out'"
r --sysfs-root "$t/escdev" counters
check "escape sequence in a tree's device name: counters text escaped" \
	"[ $? -eq 0 ] && ! grep -q \$'\\x1b' '$t/out' && grep -qF 'mlx5_\\x1b[31m0' '$t/out'"
r --sysfs-root "$t/escdev" -j devices
check "escape sequence in a tree's device name: -j devices exact" \
	"python3 -c 'import json,sys; d=json.load(open(\"$t/out\")); sys.exit(d[\"devices\"][0][\"name\"]!=\"mlx5_\\x1b[31m0\")'"

r -j counters --diff "$t/big1.json" "$t/big2.json" --all
check "uint64: 2^63+1 -> 2^64-1 gives delta 2^63-2 exactly, 2^64-1 -> 2^64-1 gives 0" \
	"python3 -c '
import json,sys
p=json.load(open(\"$t/out\"))[\"devices\"][0][\"ports\"][0]
ok = p[\"raw\"][\"hw_counters/top\"][\"delta\"]==2**63-2 and p[\"raw\"][\"hw_counters/max\"][\"delta\"]==0 \
  and p[\"raw\"][\"hw_counters/mid\"][\"delta\"]==0 and p[\"counters\"][\"rx_bytes\"][\"delta\"]==2**63-2
sys.exit(not ok)'"
tree mlx5 big
printf '18446744073709551615\n' >"$t/big/$mlx5_port/hw_counters/np_cnp_sent"
printf '9223372036854775809\n' >"$t/big/$mlx5_port/hw_counters/rp_cnp_handled"
r --sysfs-root "$t/big" -j counters
cp "$t/out" "$t/big-j.json"
check "uint64 in sysfs: -j counters exact (decimal strings from 2^63)" \
	"python3 -c 'import json,sys; r=json.load(open(\"$t/big-j.json\"))[\"devices\"][0][\"ports\"][0][\"raw\"]; sys.exit(r[\"hw_counters/np_cnp_sent\"]!=str(2**64-1) or r[\"hw_counters/rp_cnp_handled\"]!=str(2**63+1))'"
r --sysfs-root "$t/big" counters --save "$t/big-save.json"
check "uint64: --save is exact" "grep -q '\"18446744073709551615\"' '$t/big-save.json' && grep -q '\"9223372036854775809\"' '$t/big-save.json'"
r -j counters --diff "$t/big-j.json" "$t/big-save.json" --all
check "-j counters output loads in --diff; uint64 deltas exactly 0" \
	"[ $? -eq 0 ] && python3 -c 'import json,sys; r=json.load(open(\"$t/out\"))[\"devices\"][0][\"ports\"][0][\"raw\"]; sys.exit(r[\"hw_counters/np_cnp_sent\"][\"delta\"]!=0 or r[\"hw_counters/rp_cnp_handled\"][\"delta\"]!=0)'"
r counters --diff "$t/long1.json" "$t/other.json"
check "--diff without a port in common: exit 1 (got $rc), one line saying so" \
	"[ $? -eq 1 ] && one_line && grep -q 'no port in common' '$t/err'"
check "snapshots carry the host name" \
	"python3 -c 'import json,sys,socket; sys.exit(json.load(open(\"$t/big-save.json\"))[\"host\"]!=socket.gethostname())'"

# ---- --save: stdout, symlinks, signals ----
(cd "$t" && timeout $tmo $wrap "$rck" --sysfs-root "$fix/mlx5" counters --save - >"$t/out" 2>"$t/err")
check "--save - writes the snapshot to stdout, no file '-'" "[ $? -eq 0 ] && [ ! -e '$t/-' ] && valid '$t/out' && schema counters.schema.json '$t/out'"
echo keep >"$t/target"
ln -s target "$t/link.json"
r --sysfs-root "$fix/mlx5" counters --save "$t/link.json"
check "--save to a symlink: refused (exit 1, got $rc), one line, target untouched" \
	"[ $? -eq 1 ] && one_line && grep -q 'symbolic link' '$t/err' && [ \"\$(cat '$t/target')\" = keep ] && [ -L '$t/link.json' ]"
ln -s nowhere "$t/dangling.json"
r --sysfs-root "$fix/mlx5" counters --save "$t/dangling.json"
check "--save to a dangling symlink: refused, nothing created" "[ $? -eq 1 ] && [ ! -e '$t/nowhere' ]"
mkfifo "$t/save.fifo"
timed --sysfs-root "$fix/mlx5" counters --save "$t/save.fifo"
check "--save to a FIFO: refused (exit 1, got $rc) at once" "[ $rc -eq 1 ] && [ $ms -lt $limit ] && [ -p '$t/save.fifo' ]"

# Job control: background jobs get SIGINT as a terminal's would (a shell
# without it starts them with SIGINT ignored, and ignored it stays).
set -m
# A run under nohup (or any parent ignoring SIGHUP) passes the ignored
# signal on, and rocecheck rightly keeps it ignored: the saves below get
# the default dispositions back (coreutils env --default-signal).
dfl=(env --default-signal=HUP,INT,TERM)
# Signals are about timing, not memory: not under valgrind (which runs this
# script's own shell too, too slowly to aim a signal).
if [ -z "$wrap" ]; then
# A tree big enough that a save takes a while: signals at staggered
# moments leave the old file or the new one, whole, and no temporary file.
tree mlx5 slow
python3 - "$t/slow/$mlx5_port/hw_counters" <<'PY'
import sys
for i in range(6000):
    with open(f"{sys.argv[1]}/c{i:05d}_" + "x" * 60, "w") as f:
        f.write(f"{i * 1000003}\n")
PY
mkdir "$t/sv"
# 6000 files: seconds under ASan on a loaded machine, so no 5 s limit here.
timeout 120 "$rck" --sysfs-root "$t/slow" counters --save "$t/sv/snap.json" 2>"$t/err"
check "a save of the big tree (exit $?)" "valid '$t/sv/snap.json'"
cp "$t/sv/snap.json" "$t/sv-old.json"
killed=0 kept=0 i=0
for d in 0 0.005 0.01 0.015 0.02 0.025 0.03 0.035 0.04 0.045 0.05 0.055 0.06 0.065 0.07 0.08; do
	sigs=(TERM INT HUP)
	sig=${sigs[i % 3]}
	i=$((i + 1))
	"${dfl[@]}" "$rck" --sysfs-root "$t/slow" counters --save "$t/sv/snap.json" >/dev/null 2>&1 &
	pid=$!
	sleep "$d"
	kill -s "$sig" "$pid" 2>/dev/null
	{ wait "$pid"; } 2>/dev/null
	st=$?
	if [ $st -gt 128 ]; then killed=$((killed + 1)); else kept=$((kept + 1)); fi
	if ls -A "$t/sv" | grep -qv '^snap.json$'; then
		echo "FAIL: SIG$sig after ${d}s: left $(ls -A "$t/sv" | tr '\n' ' ')"
		fails=$((fails + 1))
		rm -f "$t"/sv/.snap.json.tmp.*
	fi
	if ! valid "$t/sv/snap.json"; then
		echo "FAIL: SIG$sig after ${d}s: snap.json not whole"
		fails=$((fails + 1))
		cp "$t/sv-old.json" "$t/sv/snap.json"
	fi
	n=$((n + 1))
done
echo "signals during --save: $killed killed, $kept finished first"
check "some saves were interrupted by the signal" "[ $killed -gt 0 ]"

# The same, deterministically: strace holds the first fsync for 3 s (long
# enough for a loaded runner's polling to see the temporary file in time),
# and the signal comes while that file is complete but not yet renamed.
if command -v strace >/dev/null; then
	for sig in TERM INT HUP; do
		cp "$t/sv-old.json" "$t/sv/snap.json"
		strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=3000000:when=1 \
			"${dfl[@]}" "$rck" --sysfs-root "$fix/mlx5" counters --save "$t/sv/snap.json" >/dev/null 2>&1 &
		spid=$!
		tmpf=
		# A glob, not ls | grep: no process per poll on a loaded runner.
		for _ in $(seq 1000); do
			for f in "$t"/sv/.*tmp.*; do
				[ -e "$f" ] && tmpf=${f##*/} && break 2
			done
			sleep 0.02
		done
		# The temporary file's name carries the writer's pid.
		wpid=$(echo "$tmpf" | sed -n 's/.*tmp\.\([0-9]*\)\..*/\1/p')
		[ -n "$wpid" ] && kill -s "$sig" "$wpid"
		{ wait "$spid"; } 2>/dev/null
		check "SIG$sig while the save waits in fsync (temp ${tmpf:-none seen}): no temporary file left" \
			"[ -n '$wpid' ] && [ \"\$(ls -A '$t/sv')\" = snap.json ]"
		check "SIG$sig while the save waits in fsync: the old snapshot is still whole" \
			"cmp -s '$t/sv-old.json' '$t/sv/snap.json'"
		rm -f "$t"/sv/*tmp*
	done
elif [ "${CI:-}" = true ]; then
	echo "FAIL: strace missing (ci/install-deps.sh installs it)"
	fails=$((fails + 1))
fi
fi

# ---- schemas: every counters output ----
for tr in mlx5 bnxt irdma rxe broken empty; do
	r --sysfs-root "$fix/$tr" -j counters
	check "$tr: -j counters matches counters.schema.json" "schema counters.schema.json '$t/out'"
done
check "--save matches counters.schema.json" "schema counters.schema.json '$t/big-save.json'"
r --sysfs-root "$fix/broken" counters --save "$t/b1.json"
r --sysfs-root "$fix/broken" counters --save "$t/b2.json"
r -p counters --diff "$t/b1.json" "$t/b2.json" --all
check "--diff --all matches counters-delta.schema.json" "schema counters-delta.schema.json '$t/out'"
r -j --sysfs-root "$fix/mlx5" counters --interval 0.1 --count 2
head -n 1 "$t/out" >"$t/line1"
check "--interval lines match counters-delta.schema.json" "schema counters-delta.schema.json '$t/line1'"

echo "$((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
