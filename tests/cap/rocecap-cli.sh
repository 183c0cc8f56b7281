#!/usr/bin/env bash
# rocecap on pcap files written by rocecap-gen: the counts the generator
# put in, the JSON schema, tshark's own dissector on the same file, pcapng,
# filters, limits and the plot.
set -uo pipefail
: "${ROCECAP:?}" "${ROCECAP_GEN:?}" "${ROCECAP_SCHEMA:?}"
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../unit/tap-lib.sh
. "$HERE/../unit/tap-lib.sh"
rc() { $W "$ROCECAP" "$@" >"$T/out" 2>"$T/err"; echo $?; }

exp=$("$ROCECAP_GEN" scenario "$T/s.pcap") || { echo "rocecap-gen failed"; exit 1; }
echo "# generated: $exp"
[ "$(rc -r "$T/s.pcap" -j --timeline)" = 0 ] && ok "rocecap -j" || bad "rocecap -j: $(cat "$T/err")"
cp "$T/out" "$T/s.json"

# The counts the generator wrote.
declare -A want
for kv in $exp; do want[${kv%%=*}]=${kv#*=}; done
got=$(jget "$T/s.json" '" ".join(str(x) for x in (j["packets"], j["roce"]["packets"], j["roce"]["ce_marked"], j["roce"]["ect_marked"], j["roce"]["cnps"], j["roce"]["retransmissions"], j["roce"]["psn_gaps"], j["roce"]["naks"]["psn_seq_err"], j["roce"]["naks"]["rnr"], j["pfc"]["frames"], len(j["flows"]), j["malformed"]))')
w="${want[packets]} ${want[roce]} ${want[ce_marked]} ${want[ect_marked]} ${want[cnps]} ${want[retransmissions]} ${want[psn_gaps]} ${want[psn_seq_err]} ${want[rnr]} ${want[pfc]} ${want[flows]} 0"
[ "$got" = "$w" ] && ok "counts as generated: $got" || bad "counts: got '$got', want '$w'"
# Every CNP found its flow: the one with CE marks.
got=$(jget "$T/s.json" '[f["cnps"] for f in j["flows"] if f["ce_marked"]] == [j["roce"]["cnps"]] and j["roce"]["cnps_unmatched"] == 0')
[ "$got" = True ] && ok "CNPs counted on the CE-marked flow" || bad "CNP matching: $got"

# Schema (python3-jsonschema).
if $PY -c 'import jsonschema' 2>/dev/null; then
	if out=$($PY -c "
import json, jsonschema, sys
s = json.load(open('$ROCECAP_SCHEMA'))
jsonschema.Draft202012Validator.check_schema(s)
jsonschema.Draft202012Validator(s).validate(json.load(open('$T/s.json')))" 2>&1); then
		ok "schema: -j --timeline"
	else
		bad "schema: $out"
	fi
	rc -r "$T/s.pcap" -p >/dev/null
	$PY -c "
import json, jsonschema
jsonschema.Draft202012Validator(json.load(open('$ROCECAP_SCHEMA'))).validate(json.load(open('$T/out')))" 2>/dev/null &&
		ok "schema: -p without the timeline" || bad "schema: -p"
else
	missing python3-jsonschema
fi

# tshark's dissector on the same file, and the same file as pcapng.
if command -v tshark >/dev/null; then
	out=$($PY "$HERE/tshark-compare.py" "$T/s.pcap" "$T/s.json" 2>&1) && ok "$out" || bad "tshark: $out"
	if editcap -F pcapng "$T/s.pcap" "$T/s.pcapng" 2>/dev/null; then
		rc -r "$T/s.pcapng" -j --timeline >/dev/null
		$PY - "$T/out" "$T/s.json" <<'PY' && ok "pcapng: same results" || bad "pcapng differs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(a != b)
PY
	else
		bad "editcap -F pcapng failed"
	fi
else
	missing tshark
fi

# A BPF filter as in tcpdump; -c; -G on capture time; standard input.
rc -r "$T/s.pcap" -j ether proto 0x8808 >/dev/null
[ "$(jget "$T/out" 'j["packets"], j["pfc"]["frames"], j["roce"]["packets"]')" = "5 4 0" ] &&
	ok "filter 'ether proto 0x8808'" || bad "filter: $(cat "$T/out" "$T/err")"
rc -r "$T/s.pcap" -j -c 10 >/dev/null
[ "$(jget "$T/out" 'j["packets"]')" = 10 ] && ok "-c 10" || bad "-c 10: $(cat "$T/err")"
rc -r "$T/s.pcap" -j -G 0.0001 >/dev/null
[ "$(jget "$T/out" 'j["packets"]')" = 50 ] && ok "-G 0.0001 (50 frames 2 us apart)" || bad "-G: $(jget "$T/out" 'j["packets"]')"
$W "$ROCECAP" -r - -j <"$T/s.pcap" >"$T/out" 2>"$T/err"
[ "$(jget "$T/out" 'j["packets"]')" = "${want[packets]}" ] && ok "-r - (standard input)" || bad "-r -: $(cat "$T/err")"

# Text output, flows and the plot.
[ "$(rc -r "$T/s.pcap" --flows --timeline --opcodes --interval 0.0002 --timeline-svg "$T/t.svg")" = 0 ] &&
	grep -q '^Flows, worst first' "$T/out" && grep -q 'RC RDMA WRITE Middle' "$T/out" &&
	grep -q '^Timeline' "$T/out" && grep -q '</svg>' "$T/t.svg" && grep -q 'priority 3' "$T/t.svg" &&
	ok "text with flows, opcodes, timeline; SVG written" || bad "text/svg: $(cat "$T/err")"
head -3 "$T/out" | sed 's/^/# /'
[ ! -e "$T/t.svg.tmp" ] && ok "no temporary plot left" || bad "t.svg.tmp left behind"
# The worst flow first: the one with the loss.
awk '/^Flows/ { getline; getline; print; exit }' "$T/out" | grep -q ' 256 ' && ok "worst flow first" ||
	bad "flow order: $(grep -A3 '^Flows' "$T/out")"

# Command line: help, errors and exit codes are rocecap-cases.sh's table;
# the man page's OPTIONS are checked by tests/unit/check-man.py.
head -c 100 "$T/s.pcap" >"$T/cut.pcap"
[ "$(rc -r "$T/cut.pcap" -j)" = 0 ] || [ "$(rc -r "$T/cut.pcap" -j)" = 1 ] && ok "a capture cut short: no crash" ||
	bad "cut capture"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	got=$(setpriv --bounding-set -net_raw $W "$ROCECAP" -i lo -c 1 2>&1 >/dev/null)
	grep -q 'live capture needs CAP_NET_RAW' <<<"$got" && ok "live capture without CAP_NET_RAW: clear error" ||
		bad "no CAP_NET_RAW: $got"
fi

echo "$((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]
