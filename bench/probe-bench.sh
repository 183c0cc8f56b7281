#!/usr/bin/env bash
# Benchmark: our verbs probes against perftest on one guest pair in one
# boot, runs alternated (ABBA) to share the emulator's drift; prints the
# medians, their ratios and the median of each round's paired ratio.
# Targets: bw >= 1.00 x ib_write_bw, lat p50 <= 1.05 x ib_write_lat's
# typical (out-of-band mode; rdma_cm mode is reported), judged on the paired
# ratios: on a shared host the load moves between rounds far more than the
# two tools differ, and adjacent runs see the same load. A target is missed
# only when the sign-test interval of the median paired ratio lies wholly
# past it (bench/paired.py): a noisy round or median alone never fails.

. "$(dirname "$0")/../tests/fabric/lib.sh"
command -v jq >/dev/null || need "jq not found"
fabric_prereqs
ROUNDS=${PROBE_BENCH_ROUNDS:-7}
SIZE=65536
BW_ITERS=${PROBE_BENCH_BW_ITERS:-200}
LAT_ITERS=${PROBE_BENCH_LAT_ITERS:-1000}
lab_up probe-bench 2
say "boot of 2 nodes: $BOOT_SECS s; $ROUNDS rounds"

A1=$(rx n1 -- sh -c 'echo $ROCELAB_ADDR')
out=$(rx n1 --bg --log /tmp/bench-srv.log -- rocecheck probe --listen --idle 600) ||
	fail "cannot start the probe server: $out"
sleep 2

ours() { # ARGS: one probe from n2, JSON on stdout
	local o
	o=$(rx n2 -t 300 -- rocecheck -j probe "$A1" "$@") || fail "rocecheck probe $*: $o"
	[ "$(jq -r .status <<<"$o")" = ok ] || fail "rocecheck probe $*: $(jq -r .error <<<"$o")"
	echo "$o"
}
# perftest's bandwidth in MiB/s has two decimals more than its Gb/s form.
# Under TCG ib_write_bw now and then reports 0 MiB/s for a run that finished
# (seen in CI's bench and in fabric-impair): that run is said and run again
# once; a second 0 fails the bench.
perf_bw() {
	local try v
	for try in 1 2; do
		perf n1 n2 ib_write_bw -s $SIZE -n "$BW_ITERS" -q 1 -F || fail "ib_write_bw: $PERF_OUT"
		v=$(awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 4 { v = $4 } END { if (v == "") exit 1; printf "%.6f\n", v * 1048576 * 8 / 1e9 }' <<<"$PERF_OUT") ||
			fail "no bandwidth in: $PERF_OUT"
		awk -v b="$v" 'BEGIN { exit !(b > 0) }' && { echo "$v"; return 0; }
		say "ib_write_bw reported 0 Gb/s (run $try)" >&2
	done
	fail "ib_write_bw reported 0 Gb/s twice: $PERF_OUT"
}
perf_lat() {
	perf n1 n2 ib_write_lat -s 2 -n "$LAT_ITERS" -F || fail "ib_write_lat: $PERF_OUT"
	lat_typical <<<"$PERF_OUT" || fail "no latency in: $PERF_OUT"
}
our_bw() { ours --size $SIZE --iters "$BW_ITERS" --qps 1 "$@" | jq -r .gbps; }
our_lat() { ours --test lat --size 2 --iters "$LAT_ITERS" "$@" | jq -r .latency_us.p50; }

declare -A V
add() { V[$1]+="$2 "; }
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then
		add bw_ours "$(our_bw)"; add bw_perf "$(perf_bw)"
		add lat_ours "$(our_lat)"; add lat_perf "$(perf_lat)"
	else
		add bw_perf "$(perf_bw)"; add bw_ours "$(our_bw)"
		add lat_perf "$(perf_lat)"; add lat_ours "$(our_lat)"
	fi
	add bw_cm "$(our_bw --cm)"
	add lat_cm "$(our_lat --cm)"
	last() { local a=(${V[$1]}); echo "${a[-1]}"; }
	say "round $r: bw $(last bw_ours) / $(last bw_perf) Gb/s (cm $(last bw_cm)), lat $(last lat_ours) / $(last lat_perf) us (cm $(last lat_cm))"
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
declare -A M
for k in "${!V[@]}"; do
	M[$k]=$(median "${V[$k]}")
	say "$k runs: ${V[$k]}"
done
# paired A B: the median over rounds of A[r] / B[r].
paired() {
	local a=(${V[$1]}) b=(${V[$2]}) r q=
	for ((r = 0; r < ${#a[@]}; r++)); do q+="$(ratio "${a[r]}" "${b[r]}") "; done
	median "$q"
}
row() { # LABEL OURS PERF FMT
	printf "%-34s $4 $4 %8s %8s\n" "$1" "${M[$2]}" "${M[$3]}" "$(ratio "${M[$2]}" "${M[$3]}")" \
		"$(paired "$2" "$3")"
}
printf '%-34s %12s %12s %8s %8s\n' "median of $ROUNDS runs" rocecheck perftest ratio paired
row "bw Gb/s, $SIZE B x $BW_ITERS, 1 QP" bw_ours bw_perf %12.6f
row "  with --cm" bw_cm bw_perf %12.6f
row "lat p50 us, 2 B x $LAT_ITERS" lat_ours lat_perf %12.2f
row "  with --cm" lat_cm lat_perf %12.2f
# every round's paired ratio, then the verdict on their interval
rounds() {
	local a=(${V[$1]}) b=(${V[$2]}) r q=
	for ((r = 0; r < ${#a[@]}; r++)); do q+="$(ratio "${a[r]}" "${b[r]}") "; done
	echo "$q"
}
verdict() { # LABEL OURS PERF WANT TARGET
	local out rc
	out=$(python3 "$(dirname "$0")/paired.py" --label "$1" --want "$4" --target "$5" $(rounds "$2" "$3"))
	rc=$?
	say "$out"
	[ $rc -eq 1 ] && miss+=" $1;"
	[ $rc -le 1 ] || fail "paired.py: $out"
}
miss=
verdict "bw ours/perftest" bw_ours bw_perf min 1.00
verdict "lat p50 ours/perftest" lat_ours lat_perf max 1.05
say "rdma_cm mode, reported only: bw rounds $(rounds bw_cm bw_perf), lat rounds $(rounds lat_cm lat_perf)"
[ -z "$miss" ] || fail "target missed: interval wholly past the target:$miss"
ok "targets met or within noise (paired ratios): bw x$(paired bw_ours bw_perf), lat x$(paired lat_ours lat_perf)"
