#!/usr/bin/env bash
# Packet evidence must not invent loss: captures cut by a snap length,
# without ICRC, with RDMA READs, IP fragments and IPv6 extension headers
# (rocecap-gen case), checked against the counts the generator put in and
# against tshark's dissector; and -G on a quiet link in a private netns.
set -uo pipefail
: "${ROCECAP:?}" "${ROCECAP_GEN:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../unit/tap-lib.sh
. "$HERE/../unit/tap-lib.sh"
KEYS='packets roce retransmissions psn_gaps psn_missing psn_seq_err rnr icrc_absent first_fragments fragments_skipped ipv6_ext_skipped'
# The generator's counts and rocecap's, in the order of KEYS.
mine() {
	$PY -c "import json,sys; j=json.load(open('$1')); r=j['roce']
print(j['packets'], r['packets'], r['retransmissions'], r['psn_gaps'], r['psn_missing'], r['naks']['psn_seq_err'],
      r['naks']['rnr'], r['icrc_absent'], r['first_fragments'], j['fragments_skipped'], j['ipv6_ext_skipped'])"
}

# NAME SNAP: generate, read, compare.
check() {
	local name=$1 snap=$2 f="$T/$1-$2" exp want got
	exp=$("$ROCECAP_GEN" case "$name" "$f.pcap" "$snap") || { bad "rocecap-gen case $name"; return; }
	declare -A kv
	for x in $exp; do kv[${x%%=*}]=${x#*=}; done
	want=$(for k in $KEYS; do printf '%s ' "${kv[$k]}"; done)
	$W "$ROCECAP" -r "$f.pcap" -j >"$f.json" 2>"$f.err" || { bad "$name -s $snap: $(cat "$f.err")"; return; }
	got="$(mine "$f.json") "
	[ "$got" = "$want" ] && ok "$name at snap length $snap: $got" || bad "$name at snap $snap: got '$got', want '$want'"
	if command -v tshark >/dev/null; then
		out=$($PY "$HERE/tshark-compare.py" "$f.pcap" "$f.json" 2>&1) && ok "$name -s $snap: $out" ||
			bad "$name -s $snap tshark: $out"
	fi
}

command -v tshark >/dev/null || missing tshark
for snap in 0 64 128; do
	check write $snap
	check noicrc $snap
	check read $snap
done
check frag 0

# What a snap length leaves unknown is said, in JSON and in text.
f=$T/write-64
[ "$(jget "$f.json" 'j["frames_cut"] > 0 and j["roce_headers_cut"] > 0 and j["reth_unknown"] == j["roce_headers_cut"] == j["truncated"] and j["malformed"] == 0')" = True ] &&
	ok "-s 64: frames_cut, roce_headers_cut, reth_unknown" || bad "-s 64 JSON: $(head -c 400 "$f.json")"
$W "$ROCECAP" -r "$f.pcap" >"$T/out"
grep -qE '^Frames: .*; malformed 0; truncated [1-9]' "$T/out" &&
	grep -q '^Cut: .* truncated in a header: .* RoCE packets with a whole BTH, counted by opcode and PSN' "$T/out" &&
	grep -q 'PSN gaps 0 ' "$T/out" && ok "-s 64 text: the Cut line, 0 gaps" || bad "-s 64 text: $(cat "$T/out")"
# A capture cut inside BTH (IPv6 at 64 bytes): those frames are not
# counted and the summary says their PSNs are unknown.
"$ROCECAP_GEN" scenario "$T/s.pcap" 64 >/dev/null
$W "$ROCECAP" -r "$T/s.pcap" >"$T/out"
grep -q '^Unknown: 80 RoCE frames cut inside BTH: not counted, their PSNs unknown' "$T/out" &&
	ok "cut inside BTH: said" || bad "cut inside BTH: $(cat "$T/out")"
# NAKs whose AETH was cut: ACK or NAK unknown, said.
"$ROCECAP_GEN" case noicrc "$T/n.pcap" 56 >/dev/null
$W "$ROCECAP" -r "$T/n.pcap" -j >"$T/n.json"
[ "$(jget "$T/n.json" 'j["aeth_unknown"] > 0 and j["roce"]["naks"]["psn_seq_err"] == 0')" = True ] &&
	ok "AETH cut: aeth_unknown $(jget "$T/n.json" 'j["aeth_unknown"]')" || bad "AETH cut: $(cat "$T/n.json")"

# -G and -a duration: on a quiet link (loopback of a private network
# namespace), the capture ends on time.
if [ "$(id -u)" != 0 ] || ! unshare -n true 2>/dev/null; then
	missing "root and unshare -n (for -G on a quiet link)"
else
	for opt in "-G 1" "-a duration:1"; do
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		timeout 20 unshare -n sh -c "ip link set lo up && exec $W \"\$0\" -i lo $opt -j" "$ROCECAP" >"$T/live.json" 2>"$T/err"
		rc=$? t=$((($(date +%s%N) - t0) / 1000000))
		[ $rc = 0 ] && [ $t -lt 10000 ] && [ "$(jget "$T/live.json" 'j["packets"]')" = 0 ] &&
			ok "$opt on a quiet link: stopped after $t ms" || bad "$opt: rc $rc after $t ms: $(cat "$T/err")"
	done
fi

echo "$((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]
