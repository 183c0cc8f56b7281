#!/usr/bin/env bash
# The command-line contract of rocecheck (rocecheck(8)): a table of
# {exit code, arguments, expected pattern on stdout or stderr} cases.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
# Under `meson test --setup valgrind` the tool runs under valgrind.
wrap=${ROCECHECK_WRAP:-}
fix=${ROCECHECK_FIXTURES:?ROCECHECK_FIXTURES not set}/sysfs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
# shellcheck source=cli-table.sh
. "$(dirname "$0")/cli-table.sh"

# RC | ARGS (word-split; @F is the fixture tree) | out:ERE or err:ERE (optional)
cases=(
	# No command, unknown words, help and version.
	"2||err:^rocecheck: no command given"
	"2|bogus|err:^rocecheck: unknown command 'bogus'"
	"2|dev|err:unknown command 'dev'"
	"2|Devices|err:unknown command"
	"0|--help|out:^Usage: rocecheck \[OPTIONS\] COMMAND"
	"0|-h|out:^  probe "
	"0|help|out:^Commands:"
	"0|-V|out:^rocecheck [0-9]"
	"0|devices -V|out:^rocecheck [0-9]"
	"2|help bogus|err:^rocecheck: help: unknown command 'bogus'"
	"2|help devices counters|err:unexpected argument 'counters'"
	"2|-j help|err:^rocecheck: help: no JSON output"
	"2|--nope devices|err:^rocecheck: unknown option '--nope'"
	"2|devices --nope|err:^rocecheck: devices: unknown option '--nope'"
	"2|devices -x|err:^rocecheck: devices: unknown option '-x'"
	"0|--jso --sysfs-root @F/mlx5 devices|out:^\{\"schema\""
	"2|--ver devices|err:option '--ver' is ambiguous: --verbose, --version"
	"2|mesh --hosts a,b --d|err:option '--d' is ambiguous: --device, --duration"
	"0|preflight --hosts a,b --li|out:^Dry run: nothing was contacted"
	# mesh and preflight take the same words: --output/--report, --from/--from-mesh.
	"1|mesh --from-mesh /nonexistent/m.json|err:^rocecheck: mesh: cannot read --from '/nonexistent/m.json'"
	"1|mesh --fro /nonexistent/m.json|err:cannot read --from"
	"2|preflight --from /nonexistent/m.json|err:^rocecheck: preflight: cannot use --from '/nonexistent/m.json'"
	"2|preflight --from-mesh /nonexistent/m.json|err:^rocecheck: preflight: cannot use --from-mesh '/nonexistent/m.json'"
	"2|preflight --fro /nonexistent/m.json|err:^rocecheck: preflight: cannot use --from '/nonexistent/m.json'"
	"2|preflight --from m.json --hosts a,b|err:^rocecheck: preflight: --from judges a recorded sweep: no --hosts"
	"2|preflight|err:^rocecheck: preflight: give the hosts \\(--hosts or --hostfile\\), or --from FILE"
	"2|mesh --hosts a,b --rep|err:option '--report' needs a value"
	"2|preflight --hosts a,b --rep|err:option '--report' needs a value"
	"2|--jsonx devices|err:unknown option '--jsonx'"
	"2|devices --brief=yes|err:takes no value"
	"0|--dump-options|out:^probe --bidir"
	"0|--completion bash|out:^complete -F _rocecheck rocecheck"
	"2|--completion zsh|err:invalid --completion 'zsh'"
	# Every command's help, four ways.
	"0|devices --help|out:^Usage: rocecheck devices \[OPTIONS\] \[DEV\]"
	"0|devices -h|out:^Usage: rocecheck devices"
	"0|devices help|out:^Usage: rocecheck devices"
	"0|help devices|out:^Usage: rocecheck devices"
	"0|counters --help|out:^Usage: rocecheck counters"
	"0|counters -h|out:--interval S"
	"0|counters help|out:^Usage: rocecheck counters"
	"0|help counters|out:^Usage: rocecheck counters"
	"0|probe --help|out:^Usage: rocecheck probe"
	"0|probe -h|out:--udp-sport P"
	"0|probe help|out:^Usage: rocecheck probe"
	"0|help probe|out:^Usage: rocecheck probe"
	"0|help help|out:^Usage: rocecheck help"
	"0|help --help|out:^Usage: rocecheck help"
	"0|-j devices --help --sysfs-root /nonexistent|out:^Usage: rocecheck devices"
	# Global options before and after the command word, every spelling.
	"0|-j --sysfs-root @F/mlx5 devices|out:^\{\"schema\":\"rocecheck.devices/1\""
	"0|--json --sysfs-root @F/mlx5 devices|out:^\{\"schema\""
	"0|devices -j --sysfs-root @F/mlx5|out:^\{\"schema\":\"rocecheck.devices/1\""
	"0|devices --sysfs-root @F/mlx5 --json|out:^\{\"schema\""
	"0|devices --sysfs-root=@F/mlx5 -p|out:^  \"schema\": \"rocecheck.devices/1\""
	"0|--pretty devices --sysfs-root @F/mlx5|out:^  \"devices\": \["
	"0|-v --sysfs-root @F/mlx5 devices|out:^DEVICE"
	"0|devices --sysfs-root @F/mlx5 --verbose -v|out:^DEVICE"
	"0|-t 500 --sysfs-root @F/mlx5 devices|out:^DEVICE"
	"0|devices --sysfs-root @F/mlx5 -t500|out:^DEVICE"
	"0|devices --timeout=500 --sysfs-root @F/mlx5|out:^DEVICE"
	"0|--timeout 500 --sysfs-root @F/mlx5 devices|out:^DEVICE"
	"0|-jv --sysfs-root @F/mlx5 devices|out:^\{"
	"0|--sysfs-root @F/mlx5 counters -j|out:^\{"
	"0|counters --json --sysfs-root @F/mlx5|out:^\{"
	"0|-j counters --sysfs-root @F/mlx5 mlx5_0/1|out:^\{"
	"0|counters mlx5_0 -p --sysfs-root @F/mlx5|out:^\{$"
	"0|--sysfs-root @F/mlx5 counters --all -v|out:mlx5_0"
	# Global and command letters in one word, in either order.
	"0|--sysfs-root @F/mlx5 devices -bj|out:^\{\"schema\":\"rocecheck.links/2\""
	"0|--sysfs-root @F/mlx5 devices -jb|out:^\{\"schema\":\"rocecheck.links/2\""
	"0|devices -bV|out:^rocecheck [0-9]"
	"0|devices -bh|out:^Usage: rocecheck devices"
	"2|devices -bt|err:^rocecheck: devices: option '-t' needs a value"
	"2|devices -bx|err:^rocecheck: devices: unknown option '-x'"
	# Bad global values, in both positions: one line naming the value.
	"2|--timeout 0 devices|err:invalid --timeout '0'"
	"2|devices --timeout 0|err:^rocecheck: devices: invalid --timeout '0'"
	"2|--timeout abc devices|err:'abc'"
	"2|devices -t abc|err:'abc'"
	"2|--timeout -5 devices|err:'-5'"
	"2|devices -t|err:option '-t' needs a value"
	"2|--sysfs-root|err:option '--sysfs-root' needs a value"
	"2|devices --sysfs-root|err:needs a value"
	"2|--sysfs-root /nonexistent/tree -j devices|err:invalid --sysfs-root '/nonexistent/tree'"
	"2|devices --sysfs-root /nonexistent/tree|err:not a directory"
	# devices: filter, tables, brief view.
	"0|--sysfs-root @F/mlx5 devices|out:x8 \(max 16.0 GT/s x16\) DEGRADED"
	"0|--sysfs-root @F/mlx5 devices mlx5_0|out:^mlx5_0/1 "
	"1|--sysfs-root @F/mlx5 devices mlx5_7|err:^rocecheck: devices: mlx5_7: No such device"
	"2|--sysfs-root @F/mlx5 devices mlx5_0 extra|err:unexpected argument 'extra'"
	"0|--sysfs-root @F/bnxt devices|out:BCM957508-P2100G  0 "
	"0|--sysfs-root @F/bnxt devices --brief|out:^bnxt_re0/1 +ACTIVE +LINK_UP +ens2f0np0 +200$"
	"0|--sysfs-root @F/nomap devices --brief|out:^mlx4_0/1 +DOWN +POLLING +ens7 +40$"
	"0|-j --sysfs-root @F/nomap devices --brief|out:\"state\":\"DOWN\",\"physical_state\":\"POLLING\""
	"0|-j --sysfs-root @F/mlx5 devices|out:\"driver\":\"mlx5_ib\",\"hca_type\":\"MT4125\""
	"0|--sysfs-root @F/mlx5 devices|out:^mlx5_0 +mlx5_ib +MT4125 "
	"0|-j --sysfs-root @F/nomap devices efa_0|out:\"hca_type\":null"
	"0|--sysfs-root @F/nomap counters efa_0|out:^    raw counters only: no counter map for this driver$"
	"0|--sysfs-root @F/mlx5 devices -b mlx5_0|out:^PORT +STATE +PHYSICAL_STATE +NETDEV +GB/S$"
	"0|--sysfs-root @F/mlx5 -j devices --brief|out:^\{\"schema\":\"rocecheck.links/2\",\"ports\":\[\{\"device\":\"mlx5_0\""
	"0|--sysfs-root @F/empty devices|err:^rocecheck: devices: no RDMA devices found"
	"0|--sysfs-root @F/empty -j devices|out:^\{\"schema\":\"rocecheck.devices/1\",\"devices\":\[\]\}$"
	"0|-p --sysfs-root @F/broken devices|out:mlx5_9"
	# counters: the words that used to be device names or lookups.
	"1|--sysfs-root @F/mlx5 counters mlx5_7|err:^rocecheck: counters: mlx5_7: "
	"2|--sysfs-root @F/mlx5 counters --interval|err:^rocecheck: counters: option '--interval' needs a value"
	"2|--sysfs-root @F/mlx5 counters --interval 0|err:invalid --interval '0'"
	"2|--sysfs-root @F/mlx5 counters --intervals 1|err:unknown option '--intervals'"
	"2|--sysfs-root @F/mlx5 counters a b c|err:unexpected argument 'c'"
	# probe: help without a lookup, limits from the library, one error style.
	"2|probe|err:^rocecheck: probe: give a HOST"
	"2|probe --bogus|err:^rocecheck: probe: unknown option '--bogus'"
	"2|probe 127.0.0.1 --qps 0|err:^rocecheck: probe: QP count 0 out of range \(1 to 256\)"
	"2|probe 127.0.0.1 --qps x|err:invalid --qps 'x'"
	"2|probe 127.0.0.1 --size 2G|err:message size 2147483648 out of range"
	"2|probe 127.0.0.1 --test bw-bidir|err:invalid --test 'bw-bidir': bw\|lat\|send-lat"
	"2|probe 127.0.0.1 --tx-depth 9000|err:tx depth 9000 out of range"
	"2|probe 127.0.0.1 --duration 90000|err:duration .* out of range"
	"2|probe 127.0.0.1 --gid-index 300|err:GID index"
	"2|probe --listen --gid-index 300|err:^rocecheck: probe: GID index 300 out of range"
	"2|probe --listen --port 70000|err:port 70000 out of range"
	"2|probe 127.0.0.1 -j --port 0|err:port 0 out of range"
	"2|probe 127.0.0.1 -P|err:option '-P' needs a value"
	"2|probe 127.0.0.1 --sessions 2|err:go with --listen"
)

expand() { printf '%s' "${1//@F/$fix}"; }
run_cases rocecheck "$rck" "${cases[@]}"

# --report writes what --output writes, in mesh as in preflight.
sample=${ROCECHECK_FIXTURES}/mesh/sample.json
for cmd in mesh preflight; do
	rm -f "$tmp/o.json" "$tmp/r.json"
	"$rck" $cmd --from-mesh "$sample" --output "$tmp/o.json" >/dev/null 2>&1
	"$rck" $cmd --from "$sample" --rep "$tmp/r.json" >/dev/null 2>&1
	check "$cmd --report is --output" "[ -s $tmp/r.json ] && python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); a.pop(\"generated\",None); b.pop(\"generated\",None); sys.exit(a[\"schema\"]!=b[\"schema\"])' $tmp/o.json $tmp/r.json"
done

# Tables: a header once, columns that fit the longest value.
"$rck" --sysfs-root "$fix/broken" devices >"$tmp/out" 2>/dev/null
check "devices: the device header once" "[ \$(grep -c '^DEVICE ' $tmp/out) = 1 ]"
check "devices: the port header once" "[ \$(grep -c '^PORT  *STATE' $tmp/out) = 1 ]"
"$rck" --sysfs-root "$fix/bnxt" devices >"$tmp/out"
check "devices: columns line up with the header" \
	"awk 'NR==1 {i=index(\$0, \"NUMA\")} NR==2 {exit !(substr(\$0, i, 1) == \"0\")}' $tmp/out"
# The help of a command never does anything else: no lookup of "help".
check "probe help returns at once" "timeout 5 $rck probe help >/dev/null"
# The usage lists every command of the table and every global option.
"$rck" --help >"$tmp/out"
for cmd in $("$rck" --dump-options | awk '$1 == "command" {print $2}'); do
	check "usage lists $cmd" "grep -q '^  $cmd ' $tmp/out"
done
for opt in $("$rck" --dump-options | awk '$1 == "global" {print $2}'); do
	check "usage lists $opt" "grep -q -- '$opt' $tmp/out"
done
# Every value of a fixed set in the table is one the command takes (and so
# what the usage, completion and man pages show is what it accepts).
while read -r scope opt set; do
	for v in ${set//|/ }; do
		"$rck" "$scope" --listen --port 70000 "$opt" "$v" >/dev/null 2>"$tmp/err"
		check "$scope $opt $v is accepted" "! grep -q 'invalid $opt' $tmp/err"
	done
done < <("$rck" --dump-options | awk '$1 == "probe" && $3 ~ /\|/')
# No option of a command shadows a global one.
check "no command option repeats a global option" \
	"[ -z \"\$($rck --dump-options | awk '\$1 == \"global\" {g[\$2]=1} \$1 != \"global\" && \$1 != \"command\" && g[\$2] {print}')\" ]"

echo "$((n - fails))/$n CLI cases passed"
[ $fails -eq 0 ]
