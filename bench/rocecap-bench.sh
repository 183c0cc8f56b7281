#!/usr/bin/env bash
# rocecap decode rate against tshark's on the same generated capture.
# A 1 GiB capture of RDMA WRITE streams (64 flows, 1 KiB payloads, ACKs) is
# written to /var/tmp and deleted afterwards. tshark takes minutes on 1 GiB,
# so it reads the first 50 MiB (the generator is deterministic: the prefix is
# the same frames) and rocecap reads both; the ratio compares the rates on
# the prefix over paired rounds (judged by bench/paired.py), and both must
# count the same RoCE packets. Peak RSS of rocecap
# on 50 MiB and on 1 GiB shows memory does not grow with the capture.
set -uo pipefail
: "${ROCECAP:?}" "${ROCECAP_GEN:?}"
BIG_MB=${ROCECAP_BENCH_MB:-1024}
PREFIX_MB=${ROCECAP_BENCH_PREFIX_MB:-50}
MIN_RATIO=${ROCECAP_BENCH_MIN_RATIO:-10}
ROUNDS=${ROCECAP_BENCH_ROUNDS:-7}

need() {
	if [ "${CI:-}" = true ]; then echo "FATAL: $*" >&2; exit 1; fi
	echo "SKIP: $*"; exit 77
}
command -v tshark >/dev/null || need "tshark not installed"
[ -x /usr/bin/time ] || need "/usr/bin/time not installed"
D=$(mktemp -d /var/tmp/rocecap-bench.XXXXXX) || need "cannot create a directory in /var/tmp"
trap 'rm -rf "$D"' EXIT
avail=$(df -Pm /var/tmp | awk 'NR == 2 { print $4 }')
[ "$avail" -gt $((BIG_MB + PREFIX_MB + 200)) ] || need "/var/tmp has $avail MB free, needs $((BIG_MB + PREFIX_MB + 200))"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# rocecap FILE: seconds in SECS, RoCE packets in PKTS, peak RSS (KiB) in RSS.
run_rocecap() {
	local t0 t1
	t0=$(now)
	/usr/bin/time -v -o "$D/time" "$ROCECAP" -r "$1" -j >"$D/out" || { echo "FAIL: rocecap -r $1"; exit 1; }
	t1=$(now)
	SECS=$(secs "$t0" "$t1")
	PKTS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["roce"]["packets"])' "$D/out")
	RSS=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$D/time")
}

t0=$(now)
"$ROCECAP_GEN" bench "$D/big.pcap" "$BIG_MB" >/dev/null || { echo "FAIL: generating $BIG_MB MiB"; exit 1; }
"$ROCECAP_GEN" bench "$D/prefix.pcap" "$PREFIX_MB" >/dev/null || { echo "FAIL: generating the prefix"; exit 1; }
echo "# generated $(mb "$D/big.pcap") MiB and a $(mb "$D/prefix.pcap") MiB prefix in $(secs "$t0" "$(now)") s"
cmp -n "$(stat -c %s "$D/prefix.pcap")" "$D/prefix.pcap" "$D/big.pcap" >/dev/null 2>&1 ||
	echo "# note: the prefix file differs from the start of the big one in its last frame only"

# Warm the page cache for both readers alike.
cat "$D/prefix.pcap" "$D/big.pcap" >/dev/null

# tshark's start-up (dissector tables) on an empty capture, to take it out.
"$ROCECAP_GEN" bench "$D/empty.pcap" 0 >/dev/null
tshark_run() { # FILE -> packets on stdout
	tshark -n -r "$1" -d udp.port==4791,infiniband -Y infiniband -T fields -e infiniband.bth.opcode 2>/dev/null | wc -l
}
pmb=$(mb "$D/prefix.pcap") bmb=$(mb "$D/big.pcap")
# Paired rounds: tshark's and rocecap's rate on the prefix, back to back.
ratios=
for ((r = 1; r <= ROUNDS; r++)); do
	t0=$(now)
	tshark_run "$D/empty.pcap" >/dev/null
	tstart=$(secs "$t0" "$(now)")
	t0=$(now)
	tpk=$(tshark_run "$D/prefix.pcap")
	tsecs=$(secs "$t0" "$(now)")
	run_rocecap "$D/prefix.pcap"
	rsecs=$SECS rpk=$PKTS rss_small=$RSS
	tdec=$(awk -v a="$tsecs" -v b="$tstart" 'BEGIN { printf "%.3f", (a - b > 0.001 ? a - b : 0.001) }')
	trate=$(div "$pmb" "$tdec") rrate=$(div "$pmb" "$rsecs")
	ratio=$(div "$rrate" "$trate")
	ratios+="$ratio "
	echo "round $r: tshark $tpk RoCE packets in $tsecs s ($tstart s start-up) = $trate MiB/s; rocecap $rpk in $rsecs s = $rrate MiB/s; ratio ${ratio}x"
	[ "$tpk" = "$rpk" ] || { echo "FAIL: tshark counts $tpk RoCE packets, rocecap $rpk"; exit 1; }
done
run_rocecap "$D/big.pcap"
bsecs=$SECS bpk=$PKTS rss_big=$RSS
brate=$(div "$bmb" "$bsecs")
echo "rocecap  prefix: $pmb MiB, $rpk RoCE packets, peak RSS $rss_small KiB"
echo "rocecap  whole:  $bmb MiB, $bpk RoCE packets in $bsecs s = $brate MiB/s, peak RSS $rss_big KiB"
echo "rocecap whole-file rate / tshark prefix rate (last round): $(div "$brate" "$trate")x"
verdict=$(python3 "$(dirname "$0")/paired.py" --label "decode rate rocecap/tshark on the same $pmb MiB prefix (tshark start-up excluded)" \
	--want min --target "$MIN_RATIO" $ratios)
vrc=$?
echo "$verdict"
fail=0
[ "$vrc" -le 1 ] || { echo "FAIL: paired.py: $verdict"; fail=1; }
[ "$vrc" = 1 ] && { echo "FAIL: decode rate ratio below ${MIN_RATIO}x"; fail=1; }
# Streaming: 20x the capture must not take more than 2x the memory (+ 4 MiB).
awk -v a="$rss_small" -v b="$rss_big" 'BEGIN { exit !(b <= 2 * a + 4096) }' ||
	{ echo "FAIL: peak RSS grew from $rss_small to $rss_big KiB with the capture"; fail=1; }
[ "$fail" = 0 ] && echo "ok: rocecap decodes faster than tshark by the ratios above, memory bounded"
exit "$fail"
