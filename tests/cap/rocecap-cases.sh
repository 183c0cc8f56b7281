#!/usr/bin/env bash
# The command-line contract of rocecap (rocecap(8)) on the shared table
# runner: {exit code, arguments, expected pattern on stdout or stderr}.
set -u
: "${ROCECAP:?}" "${ROCECAP_GEN:?}"
cap=$ROCECAP
wrap=${ROCECHECK_WRAP:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0
# shellcheck source=../unit/cli-table.sh
. "$(dirname "$0")/../unit/cli-table.sh"

"$ROCECAP_GEN" scenario "$tmp/s.pcap" >/dev/null || { echo "FAIL: rocecap-gen"; exit 1; }
printf 'not a capture file at all' >"$tmp/junk"
mkdir "$tmp/dir"
mkfifo "$tmp/fifo"

# RC | ARGS (word-split; @T is a scratch directory holding s.pcap, junk,
# dir/ and fifo) | out:ERE or err:ERE (optional)
cases=(
	# Help in every form, before anything is checked; version; the table.
	"0|-h|out:^Usage: rocecap \[OPTIONS\] -r FILE \| -i IF \[FILTER\]"
	"0|--help|out:^Usage: rocecap"
	"0|help|out:^Usage: rocecap"
	"0|-r @T/nope.pcap --help|out:^  -r, --read FILE "
	"0|-j -i nosuch0 -h|out:^General options:"
	"0|-r @T/nope.pcap help|out:^Usage: rocecap"
	"0|--help --speed 0|out:--storm-share FRACTION"
	"0|-V|out:^rocecap [0-9]"
	"0|-r @T/nope.pcap -V|out:^rocecap [0-9]"
	"0|--dump-options|out:^global --read FILE$"
	"0|--completion bash|out:^complete -F _rocecap rocecap$"
	"2|--completion zsh|err:^rocecap: invalid --completion 'zsh'"
	# Unknown options: one line and the usage.
	"2|--nope|err:^rocecap: unknown option '--nope'"
	"2|-r @T/s.pcap --nope|err:^rocecap: unknown option '--nope'"
	"2|-x -r @T/s.pcap|err:^rocecap: unknown option '-x'"
	"2|-r @T/s.pcap -jx|err:unknown option '-x'"
	"2|--readx @T/s.pcap|err:unknown option '--readx'"
	"2|-r @T/s.pcap --sysfs-root /|err:unknown option '--sysfs-root'"
	"2|-r @T/s.pcap -v|err:unknown option '-v'"
	"2|-r @T/s.pcap --flows=yes|err:^rocecap: option '--flows' takes no value"
	# -r and -i: exactly one.
	"2||err:^rocecap: give -r FILE or -i IF"
	"2|-j --flows|err:^rocecap: give -r FILE or -i IF"
	"2|udp port 4791|err:give -r FILE or -i IF"
	"2|-r @T/s.pcap -i lo|err:^rocecap: -r and -i exclude each other"
	"2|-i lo --read=@T/s.pcap|err:-r and -i exclude each other"
	# Missing and bad values: one line naming the value.
	"2|-r|err:^rocecap: option '-r' needs a value \(FILE\)"
	"2|--interface|err:^rocecap: option '--interface' needs a value"
	"2|-r @T/s.pcap -c|err:option '-c' needs a value"
	"2|-r @T/s.pcap -c x|err:^rocecap: invalid -c 'x'"
	"2|-r @T/s.pcap -c 0|err:invalid -c '0'"
	"2|-r @T/s.pcap -c -5|err:invalid -c '-5'"
	"2|-r @T/s.pcap -G 0|err:^rocecap: invalid -G '0'"
	"2|-r @T/s.pcap --seconds=abc|err:invalid -G 'abc'"
	"2|-r @T/s.pcap -a duration:0|err:^rocecap: invalid -a 'duration:0'"
	"2|-r @T/s.pcap -a filesize:10|err:^rocecap: invalid -a 'filesize:10': duration:SECONDS or packets:COUNT"
	"2|-r @T/s.pcap --autostop packets:x|err:invalid -a 'packets:x'"
	"0|-r @T/s.pcap -a packets:7 -j|out:\"packets\":7,"
	"2|-r @T/s.pcap --speed 0|err:^rocecap: invalid --speed '0'"
	"2|-r @T/s.pcap --speed inf|err:invalid --speed 'inf'"
	"2|-r @T/s.pcap --interval -1|err:invalid --interval '-1'"
	"2|-r @T/s.pcap --max-flows 0|err:invalid --max-flows '0'"
	"2|-r @T/s.pcap --max-flows 99999999|err:invalid --max-flows '99999999'"
	"2|-r @T/s.pcap --storm-window 0|err:invalid --storm-window '0'"
	"2|-r @T/s.pcap --storm-share 2|err:invalid --storm-share '2'"
	"2|-r @T/s.pcap --timeline-svg=|err:invalid --timeline-svg ''"
	"2|-r @T/s.pcap udp port|err:^rocecap: invalid filter 'udp port'"
	# Files that are not captures: one line naming the file, exit 1.
	"1|-r @T/nope.pcap|err:^rocecap: @T/nope.pcap: No such file or directory$"
	"1|-r @T/junk|err:^rocecap: @T/junk: "
	"1|-r @T/dir|err:^rocecap: @T/dir: Is a directory$"
	"1|-r @T/fifo|err:^rocecap: @T/fifo: a FIFO with nothing to read"
	"1|-i nosuch0 -c 1|err:^rocecap: nosuch0: no such interface"
	# Options anywhere, the filter's words joined; the JSON names its schema.
	"0|-r @T/s.pcap -j|out:^\{\"schema\":\"rocecheck.rocecap/1\",\"packets\":"
	"0|-p -r @T/s.pcap|out:^  \"schema\": \"rocecheck.rocecap/1\","
	"0|-jr @T/s.pcap -c 3|out:\"packets\":3,"
	"0|-r @T/s.pcap -jc3|out:\"packets\":3,"
	"0|-r @T/s.pcap ether proto 0x8808 -j|out:\"packets\":5,"
	"0|-r @T/s.pcap -- ether proto 0x8808|out:^Frames: 5 "
	"0|--read=@T/s.pcap --flows --opcodes|out:^Flows, worst first"
)

expand() { printf '%s' "${1//@T/$tmp}"; }
run_cases rocecap "$cap" "${cases[@]}"

# A FIFO nobody writes to: the error comes within a second, not a hang.
limit=1
[ -n "$wrap" ] && limit=20
check "a FIFO without a writer: an error within ${limit}s" \
	"timeout $limit $wrap $cap -r $tmp/fifo 2>/dev/null; [ \$? = 1 ]"
# A FIFO with a writer is read like a file.
cat "$tmp/s.pcap" >"$tmp/fifo" &
check "a FIFO with a writer is read" "timeout 20 $wrap $cap -r $tmp/fifo -j | grep -q '\"packets\":'"
wait
# Standard input as a terminal is refused (when the test has one to give).
if [ -t 0 ]; then
	check "-r - on a terminal: an error" "! timeout 5 $cap -r - 2>/dev/null"
fi

# The usage lists every option of the table, and no option shadows another.
"$cap" --help >"$tmp/help"
for opt in $("$cap" --dump-options | awk '$1 == "global" {print $2}'); do
	check "usage lists $opt" "grep -q -- '$opt' $tmp/help"
done
check "no option is in the table twice" \
	"[ -z \"\$($cap --dump-options | awk '{print \$2}' | sort | uniq -d)\" ]"

echo "$((n - fails))/$n rocecap CLI cases passed"
[ $fails -eq 0 ]
