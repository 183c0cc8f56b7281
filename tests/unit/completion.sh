#!/usr/bin/env bash
# The bash completion generated from a tool's command table offers every
# command, every global option and every option of each command.
# Usage: completion.sh [TOOL] (default: $ROCECHECK).
set -u
rck=${1:-${ROCECHECK:?ROCECHECK not set}}
prog=$(basename "$rck")
fails=0 n=0
script=$("$rck" --completion bash) || { echo "FAIL: --completion bash"; exit 1; }
eval "$script"
complete -p "$prog" >/dev/null || { echo "FAIL: no completion registered for $prog"; exit 1; }

# complete WORDS...: the candidates for the last word (may be empty).
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	"_$prog"
	printf '%s\n' "${COMPREPLY[@]}"
}

# expect "what" "want..." -- WORDS...: every wanted word is offered.
expect() {
	local what=$1 w got
	shift
	local want=()
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	got=$(complete_words "$@")
	for w in "${want[@]}"; do
		n=$((n + 1))
		if ! grep -qxF -- "$w" <<<"$got"; then
			echo "FAIL: $what: '$w' not offered for '$*' (got: ${got//$'\n'/ })"
			fails=$((fails + 1))
		fi
	done
}

dump=$("$rck" --dump-options)
cmds=$(awk '$1 == "command" {print $2}' <<<"$dump")
globals=$(awk '$1 == "global" {print $2}' <<<"$dump")
if [ -n "$cmds" ]; then
	# shellcheck disable=SC2086
	expect "commands" $cmds -- "$prog" ''
	# shellcheck disable=SC2086
	expect "commands after a global option" $cmds -- "$prog" -j ''
fi
# shellcheck disable=SC2086
expect "global options" $globals -- "$prog" -
for c in $cmds; do
	# shellcheck disable=SC2046,SC2086
	expect "$c options" $(awk -v c="$c" '$1 == c {print $2}' <<<"$dump") $globals --help -- "$prog" "$c" -
done
# none: a value that is a number offers nothing.
none() {
	n=$((n + 1))
	if [ -n "$(complete_words "$@")" ]; then
		echo "FAIL: '$*' offers words"
		fails=$((fails + 1))
	fi
}
case $prog in
rocecheck)
	expect "help COMMAND" devices counters probe -- rocecheck help ''
	expect "probe --test values" bw lat send-lat -- rocecheck probe 10.0.0.1 --test ''
	expect "probe --transport values" rdma tcp -- rocecheck -j probe --transport ''
	expect "prefix" --interval -- rocecheck counters --int
	none rocecheck probe --size ''
	;;
rocecap)
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	touch "$dir/mirror.pcapng"
	expect "-r offers files" "$dir/mirror.pcapng" -- rocecap -r "$dir/mi"
	expect "--timeline-svg offers files" "$dir/mirror.pcapng" -- rocecap -r x --timeline-svg "$dir/"
	[ -d /sys/class/net/lo ] && expect "-i offers interfaces" lo -- rocecap -j -i ''
	expect "options after the filter" --flows --timeline -- rocecap -r x udp --
	expect "prefix" --storm-share --storm-window -- rocecap --storm
	none rocecap -r x --speed ''
	none rocecap -c ''
	;;
esac
echo "$((n - fails))/$n completion checks passed"
[ "$fails" = 0 ]
