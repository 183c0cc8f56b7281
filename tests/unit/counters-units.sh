#!/usr/bin/env bash
# `rocecheck counters --diff` text in units a person reads: bytes a second
# scaled (GB/s), pause time in us/ms/s and its rate, events a second scaled
# from 1000/s (k/s, M/s); raw counters by their names' units.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?}/sysfs/mlx5
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0
ok() { echo "ok: $1"; }
bad() { echo "FAIL: $1"; fails=$((fails + 1)); }

$wrap "$rck" --sysfs-root "$fix" counters --save "$t/a.json" >/dev/null 2>"$t/err" || bad "--save: $(cat "$t/err")"
python3 - "$t" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/a.json"))
r = d["devices"][0]["ports"][0]["raw"]
r["ethtool/rx_vport_rdma_unicast_bytes"] = 0
r["ethtool/rx_prio3_pause_duration"] = 0
r["ethtool/rx_bytes.nic"] = 0
json.dump(d, open(sys.argv[1] + "/a.json", "w"))
d["time_ns"] += 10 * 10**9
c = d["devices"][0]["ports"][0]["counters"]
r["ethtool/rx_vport_rdma_unicast_bytes"] += 25 * 10**9   # 2.50 GB/s
r["ethtool/rx_prio3_pause_duration"] += 50000            # 50.0 ms, 5.00 ms/s
r["ethtool/rx_bytes.nic"] += 4560                         # 456 B/s
r["hw_counters/out_of_buffer"] += 15 * 10**6             # 1.50 M/s
r["counters/port_rcv_data"] += 123400                    # 4-byte words: 12.3 k/s
c["rx_bytes"] += 12500000000   # 1.25 GB/s over 10 s
c["tx_bytes"] += 6270          # 627 B/s
c["tx_packets"] += 50
c["pfc_rx_pause_duration"][3] += 123456   # us: 123 ms, 12.3 ms/s
c["pfc_tx_pause_duration"][3] += 40       # us: 40 us, 4.00 us/s
json.dump(d, open(sys.argv[1] + "/b.json", "w"))
PY
$wrap "$rck" counters --diff "$t/a.json" "$t/b.json" >"$t/out" 2>"$t/err" || bad "--diff: $(cat "$t/err")"
line() { grep -E "^ +$1 " "$t/out" | tr -s ' '; }
[ "$(line rx_bytes)" = " rx_bytes 12500000000 1.25 GB/s" ] && ok "rx_bytes in GB/s" || bad "rx_bytes: $(line rx_bytes)"
[ "$(line tx_bytes)" = " tx_bytes 6270 627 B/s" ] && ok "tx_bytes in B/s" || bad "tx_bytes: $(line tx_bytes)"
[ "$(line tx_packets)" = " tx_packets 50 5.0/s" ] && ok "events a second" || bad "tx_packets: $(line tx_packets)"
[ "$(line 'pfc_rx_pause_duration\[3\]')" = " pfc_rx_pause_duration[3] 123 ms 12.3 ms/s" ] &&
	ok "pause time in ms" || bad "rx pause: $(line 'pfc_rx_pause_duration\[3\]')"
[ "$(line 'pfc_tx_pause_duration\[3\]')" = " pfc_tx_pause_duration[3] 40.0 us 4.00 us/s" ] &&
	ok "pause time in us" || bad "tx pause: $(line 'pfc_tx_pause_duration\[3\]')"
[ "$(line ethtool/rx_vport_rdma_unicast_bytes)" = " ethtool/rx_vport_rdma_unicast_bytes 25000000000 2.50 GB/s" ] &&
	ok "raw bytes in GB/s" || bad "raw bytes: $(line ethtool/rx_vport_rdma_unicast_bytes)"
[ "$(line 'ethtool/rx_bytes\.nic')" = " ethtool/rx_bytes.nic 4560 456 B/s" ] &&
	ok "raw bytes.nic in B/s" || bad "raw bytes.nic: $(line 'ethtool/rx_bytes\.nic')"
[ "$(line ethtool/rx_prio3_pause_duration)" = " ethtool/rx_prio3_pause_duration 50.0 ms 5.00 ms/s" ] &&
	ok "raw pause time in ms" || bad "raw pause: $(line ethtool/rx_prio3_pause_duration)"
[ "$(line hw_counters/out_of_buffer)" = " hw_counters/out_of_buffer 15000000 1.50 M/s" ] &&
	ok "raw events in M/s" || bad "raw events: $(line hw_counters/out_of_buffer)"
[ "$(line counters/port_rcv_data)" = " counters/port_rcv_data 123400 12.3 k/s" ] &&
	ok "port_rcv_data (4-byte words) as events, k/s" || bad "port_rcv_data: $(line counters/port_rcv_data)"
# JSON keeps the plain numbers.
$wrap "$rck" counters --diff "$t/a.json" "$t/b.json" -j >"$t/j" 2>"$t/err"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["devices"][0]["ports"][0]["counters"]
assert c["rx_bytes"]["rate"] == 1250000000.0 and c["pfc_rx_pause_duration"][3]["delta"] == 123456, c
' "$t/j" && ok "JSON unchanged" || bad "JSON"
[ $fails -eq 0 ]
