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
	"2|topology|err:^rocecheck: topology: give --topology, --slurm-topology or --lldp"
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

echo "$((n - fails))/$n topology CLI cases passed"
[ $fails -eq 0 ]
