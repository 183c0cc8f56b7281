#!/usr/bin/env bash
# The bash completion generated from the command table offers every
# command, every global option and every option of each command.
set -u
rck=${ROCECHECK:?ROCECHECK not set}
fails=0 n=0
script=$("$rck" --completion bash) || { echo "FAIL: --completion bash"; exit 1; }
eval "$script"
complete -p rocecheck >/dev/null || { echo "FAIL: no completion registered"; exit 1; }

# complete WORDS...: the candidates for the last word (may be empty).
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_rocecheck
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
# shellcheck disable=SC2086
expect "commands" $cmds -- rocecheck ''
# shellcheck disable=SC2086
expect "commands after a global option" $cmds -- rocecheck -j ''
# shellcheck disable=SC2086
expect "global options" $globals -- rocecheck -
for c in $cmds; do
	# shellcheck disable=SC2046,SC2086
	expect "$c options" $(awk -v c="$c" '$1 == c {print $2}' <<<"$dump") $globals --help -- rocecheck "$c" -
done
expect "help COMMAND" devices counters probe -- rocecheck help ''
expect "probe --test values" bw lat send-lat -- rocecheck probe 10.0.0.1 --test ''
expect "probe --transport values" rdma tcp -- rocecheck -j probe --transport ''
expect "prefix" --interval -- rocecheck counters --int
n=$((n + 1))
if [ -n "$(complete_words rocecheck probe --size '')" ]; then
	echo "FAIL: a number value offers words"
	fails=$((fails + 1))
fi
echo "$((n - fails))/$n completion checks passed"
[ "$fails" = 0 ]
