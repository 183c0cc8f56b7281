#!/usr/bin/env bash
# rocecheck topology's command line (rocecheck-topology(8)): usage errors,
# unreadable and malformed sources named on one line (exit 2), a clean
# fabric (exit 0), lint findings and conflicts (exit 1), text and JSON.
# $wrap is a command and its options: split on purpose.
# shellcheck disable=SC2086
set -u
rck=${ROCECHECK:?ROCECHECK not set}
# Under `meson test --setup valgrind` the tool runs under valgrind.
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/topology
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
# shellcheck source=cli-table.sh
. "$(dirname "$0")/cli-table.sh"

# RC | ARGS (@T is the fixture folder) | out:ERE or err:ERE
cases=(
	"2|topology|err:^rocecheck: topology: give --topology, --slurm-topology, --lldp or --from-agents"
	"2|topology --topology @T/rails.json --key-file @T/rails.json|err:--key-file goes with --from-agents"
	"2|topology --from-agents 127.0.0.1 --lldp-capture 120001|err:--lldp-capture takes milliseconds"
	"2|topology --from-agents 'a[3-1]'|err:invalid --from-agents"
	"2|topology extra --topology @T/rails.json|err:unexpected argument 'extra'"
	"2|topology --topology|err:needs a value|requires"
	"2|topology --slurm-topology @T/rails.json --host h|err:--lldp-socket and --host go with --lldp"
	"2|topology --topology @T/nonexistent.json|err:^rocecheck: topology: @T/nonexistent.json: No such file"
	"2|topology --topology @T|err:@T: Is a directory"
	"2|topology --slurm-topology @T/bad-slurm.conf|err:^rocecheck: topology: @T/bad-slurm.conf:2:27: switch spine: child switch leaf2 is not defined$"
	"2|topology --topology @T/bad-topology.json|err:^rocecheck: topology: @T/bad-topology.json: switches\[0\]: tier \"core\""
	"2|topology --topology @T/slurm-rails.conf|err:slurm-rails.conf:1:1: '\[' or '\{' expected"
	"0|topology --topology @T/rails.json|out:^5 switches, 24 ports, 8 hosts, 16 cables, 4 uplinks, 0 conflicts"
	"0|topology --slurm-topology @T/slurm-rails.conf|out:^switch spine1  spine  Slurm LinkSpeed 800"
	"0|-j topology --topology @T/rails.json --slurm-topology @T/slurm-rails.conf|out:^\{\"schema\":\"rocecheck.topology/1\""
	"0|topology --help|out:^Usage: rocecheck topology"
)
expand() { printf '%s' "${1//@T/$fix}"; }
run_cases rocecheck "$rck" "${cases[@]}"

# Findings: exit 1, nothing on stderr, each finding on a line.
timeout 60 $wrap "$rck" topology --topology "$fix/crossed.json" >"$tmp/out" 2>"$tmp/err"
check "crossed: exit 1" "[ $? = 1 ]"
check "crossed: stderr empty" "[ ! -s $tmp/err ] || grep -q '^==' $tmp/err"
check "crossed: both NICs named with switch and port" \
	"grep -q '^rail_crossed  *degraded  node03 mlx5_0/1 -> leaf-r1-a swp3: rails crossed' $tmp/out &&
	 grep -q '^rail_crossed  *degraded  node03 mlx5_1/1 -> leaf-r0-a swp3' $tmp/out"
check "crossed: NICs on no switch" "[ \$(grep -c '^nic_no_switch .* node09 mlx5_[01]/1: ' $tmp/out) = 2 ]"
check "crossed: the lint's count" "grep -q '^lint: 4 findings' $tmp/out"
# Conflicts between sources: exit 1, both sources named.
printf 'SwitchName=leaf-r1-b Nodes=node01\n' >"$tmp/topology.conf"
timeout 60 $wrap "$rck" topology --topology "$fix/rails.json" --slurm-topology "$tmp/topology.conf" >"$tmp/out" 2>"$tmp/err"
check "conflict: exit 1" "[ $? = 1 ]"
check "conflict: listed with both sources" \
	"grep -q '^conflict: host node01: under switch leaf-r1-b vs no NIC on it .*($tmp/topology.conf vs $fix/rails.json)' $tmp/out"
check "conflict: a finding" "grep -q '^topology_conflict  *warning  *fabric: sources disagree' $tmp/out"
# JSON: the findings with their codes; it loads again.
timeout 60 $wrap "$rck" -j topology --topology "$fix/crossed.json" >"$tmp/crossed.json" 2>"$tmp/err"
check "-j crossed: exit 1" "[ $? = 1 ]"
check "-j crossed: findings" \
	"python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(f[\"code\"] for f in d[\"findings\"]) == [\"nic_no_switch\"]*2 + [\"rail_crossed\"]*2' $tmp/crossed.json"
timeout 60 $wrap "$rck" -j topology --topology "$tmp/crossed.json" >"$tmp/again.json" 2>"$tmp/err"
check "-j output loads again, same findings" \
	"[ $? = 1 ] && python3 -c 'import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); k=lambda d: ([(f[\"code\"], f[\"host\"], f[\"nic\"], f[\"peer_host\"], f[\"peer_nic\"]) for f in d[\"findings\"]], [(s[\"name\"], s[\"rail\"], s[\"ports\"]) for s in d[\"switches\"]]); assert k(a) == k(b)' $tmp/crossed.json $tmp/again.json"

# --from-agents: two loopback agents answering from recorded frames (as
# rocelab's leaf ports send them), one port with nothing heard.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/key"
chmod 600 "$tmp/key"
printf 'eth0 %s\neth1 -\n' 0180c200000e024c0000010188cc020704024c000001000405057377703106020078080a6c6561663120737770310a056c656166310000 >"$tmp/a1.lldp"
printf 'eth0 %s\n' 0180c200000e024c0000020188cc020704024c000002000405057377703106020078080a6c6561663220737770310a056c656166320000 >"$tmp/a2.lldp"
ports=()
for a in a1 a2; do
	$wrap "$rck" -v agent --listen 127.0.0.1:0 --key-file "$tmp/key" --lldp-file "$tmp/$a.lldp" --idle 60 \
		>"$tmp/$a.out" 2>"$tmp/$a.log" &
	eval "pid_$a=\$!"
done
trap 'kill $pid_a1 $pid_a2 2>/dev/null; rm -rf "$tmp"' EXIT
for a in a1 a2; do
	for _ in $(seq 100); do
		p=$(sed -n 's/.*listening on port \([0-9][0-9]*\).*/\1/p' "$tmp/$a.log" | head -1)
		[ -n "$p" ] && break
		sleep 0.1
	done
	ports+=("$p")
done
hosts="127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}"
timeout 60 $wrap "$rck" topology --from-agents "$hosts" --key-file "$tmp/key" >"$tmp/out" 2>"$tmp/err"
check "--from-agents: exit 1 (a NIC on no switch)" "[ $? = 1 ]"
check "--from-agents: each NIC on its leaf and port" \
	"grep -q '^  nic eth0 -> leaf1 port swp1  (agents)' $tmp/out && grep -q '^  nic eth0 -> leaf2 port swp1  (agents)' $tmp/out"
check "--from-agents: nothing heard is a NIC on no switch" "grep -q '^nic_no_switch .* eth1: ' $tmp/out"
printf '{"schema":"rocecheck.topology/1","hosts":[{"name":"127.0.0.1:%s","nics":[{"nic":"eth0","switch":"leaf9","port":"swp4"}]}]}' \
	"${ports[1]}" >"$tmp/file.json"
ROCECHECK_KEY_FILE=$tmp/key timeout 60 $wrap "$rck" topology --topology "$tmp/file.json" --from-agents "$hosts" \
	>"$tmp/out" 2>"$tmp/err"
check "--from-agents vs a file: exit 1, a conflict naming both" \
	"[ $? = 1 ] && grep -q '^conflict: .*leaf9.*($tmp/file.json vs agents)' $tmp/out && grep -q '^topology_conflict ' $tmp/out"
timeout 60 $wrap "$rck" -t 1000 topology --from-agents 127.0.0.1:1 --key-file "$tmp/key" >"$tmp/out" 2>"$tmp/err"
check "--from-agents, nobody answers: exit 2" "[ $? = 2 ] && grep -q 'no agent answered' $tmp/err"

echo "$((n - fails))/$n topology CLI cases passed"
[ $fails -eq 0 ]
