#!/usr/bin/env bash
# rocelab's argument errors need no lab, root or qemu: each is one line
# "rocelab: ..." (plus the usage for an unknown word), exit 2; never a raw
# bash error.
set -u
rocelab=${ROCELAB:?ROCELAB not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

# RC | ARGS | ERE on stderr (or stdout for exit 0)
cases=(
	"2||^rocelab: no command given$"
	"2|bogus|^rocelab: unknown command 'bogus'$"
	"2|up --nodes|^rocelab: up: option --nodes needs a value$"
	"2|up --nodes 0|^rocelab: up: --nodes takes 1..64$"
	"2|up --name|^rocelab: up: option --name needs a value$"
	"2|up --bogus|^rocelab: up: unknown argument --bogus$"
	"2|up --rails|^rocelab: up: option --rails needs a value$"
	"2|up --rails 9|^rocelab: up: --rails takes 1..8$"
	"2|up --monitor-args|^rocelab: up: option --monitor-args needs a value$"
	"1|up --monitor --build-dir $tmp|^rocelab: --monitor needs a rocecheck build \\(--build-dir\\)$"
	"2|up --rails 2 --subnet 10.255.1|^rocelab: up: --subnet 10.255.1 leaves no room for 2 rails$"
	"2|impair --rail|^rocelab: impair: option --rail needs a value$"
	"2|perf --rail|^rocelab: perf: option --rail needs a value$"
	"2|demo --name|^rocelab: demo: option --name needs a value$"
	"2|demo --build-dir|^rocelab: demo: option --build-dir needs a value$"
	"2|demo --bogus|^rocelab: demo: unknown argument --bogus$"
	"2|exec n1 -t|^rocelab: exec: option -t needs a value$"
	"2|exec|^rocelab: exec: need NODE -- CMD$"
	"2|impair --to|^rocelab: impair: option --to needs a value$"
	"2|perf --name|^rocelab: perf: option --name needs a value$"
	"2|kill|^rocelab: kill: need NODE$"
	"0|help|^usage: rocelab COMMAND"
	"0|--version|^rocelab [0-9]+\.[0-9]+"
	"0|-V|^rocelab [0-9]+\.[0-9]+"
	"0|help impair|^usage: rocelab impair NODE"
	"0|help check|^usage: rocelab check "
	"0|kill --help|^usage: rocelab kill NODE"
	"0|host -h|^usage: rocelab host "
	"0|status --help|^usage: rocelab status "
	"0|perf n1 n2 --help|^usage: rocelab perf SERVER CLIENT"
	"2|help bogus|^rocelab: help: unknown command 'bogus'$"
	"2|help up down|^rocelab: help: unexpected argument 'down'$"
	"0|demo --help|demo \[--name NAME\] \[--build-dir DIR\] \[--report FILE\]"
)
for c in "${cases[@]}"; do
	want=${c%%|*}
	rest=${c#*|}
	args=${rest%%|*}
	re=${rest#*|}
	n=$((n + 1))
	# shellcheck disable=SC2086
	ROCELAB_STATE=$tmp/state timeout 20 "$rocelab" $args >"$tmp/out" 2>"$tmp/err" </dev/null
	got=$?
	stream=$tmp/err
	[ "$want" = 0 ] && stream=$tmp/out
	if [ "$got" != "$want" ]; then
		echo "FAIL: rocelab $args: exit $got, want $want"
		sed 's/^/    /' "$tmp/err" | head -3
		fails=$((fails + 1))
	elif ! { [ "$want" = 0 ] && grep -Eq -- "$re" "$stream"; } && ! head -1 "$stream" | grep -Eq -- "$re"; then
		echo "FAIL: rocelab $args: first line is not /$re/:"
		sed 's/^/    /' "$stream" | head -3
		fails=$((fails + 1))
	elif [ "$want" != 0 ] && { grep -q 'line [0-9]*:\|not set\|unbound' "$tmp/err" ||
		[ "$(sed '/^usage: /,$d' "$tmp/err" | wc -l)" != 1 ]; }; then
		echo "FAIL: rocelab $args: not one clear line:"
		sed 's/^/    /' "$tmp/err"
		fails=$((fails + 1))
	fi
done
# rocelab host on a lab's recorded state (no guests: a network namespace
# of its name is all it enters): the lab's build first on PATH, and
# ROCECHECK_CONFIG at thresholds for emulated links that rocecheck loads,
# unless the caller set one.
n=$((n + 1))
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null; then
	echo "FAIL: rocelab host: needs root and ip (a network namespace)"
	fails=$((fails + 1))
else
	lab=rck$$ st=$tmp/state bdir=${ROCECHECK_BUILD_DIR:-$tmp/nobuild}
	mkdir -p "$st/$lab"
	printf 'L_INDEX=1\nL_SUBNET=10.250.7\nL_NODES=3\nL_RAILS=1\nL_TORS=0\nL_BDIR=%q\n' "$bdir" >"$st/$lab/config"
	ip netns add "rocelab-$lab"
	out=$(ROCELAB_STATE=$st ROCECHECK_CONFIG= "$rocelab" host --name "$lab" -- \
		sh -c 'echo "$ROCELAB_NODES|$ROCECHECK_CONFIG|$(command -v rocecheck)"' 2>&1)
	want="10.250.7.1 10.250.7.2 10.250.7.3|$st/$lab/thresholds.conf|$bdir/tools/rocecheck"
	own=$(ROCELAB_STATE=$st ROCECHECK_CONFIG=/x.conf "$rocelab" host --name "$lab" -- sh -c 'echo "$ROCECHECK_CONFIG"' 2>&1)
	ip netns del "rocelab-$lab"
	if [ "$out" != "$want" ] || [ "$own" != /x.conf ]; then
		echo "FAIL: rocelab host: '$out' (want '$want'); with ROCECHECK_CONFIG set: '$own'"
		fails=$((fails + 1))
	else
		# Every key of the lab's file is one rocecheck takes (exit 2 names a bad one).
		"$bdir/tools/rocecheck" preflight --from-mesh "$(dirname "$0")/../fixtures/mesh/sample.json" \
			--config "$st/$lab/thresholds.conf" >/dev/null 2>"$tmp/err"
		if [ $? = 2 ]; then
			echo "FAIL: rocelab host: the lab thresholds do not load: $(cat "$tmp/err")"
			fails=$((fails + 1))
		fi
	fi
fi

# The copy meson configures for installation names the same version.
built=${ROCECHECK_BUILD_DIR:-}/tools/rocelab
n=$((n + 1))
if [ -z "${ROCECHECK_BUILD_DIR:-}" ] || [ ! -x "$built" ] ||
	[ "$("$built" --version)" != "$("$rocelab" --version)" ] || grep -q '@ROCELAB_VERSION@' "$built"; then
	echo "FAIL: the configured rocelab ($built) does not carry the project's version"
	fails=$((fails + 1))
fi
echo "$((n - fails))/$n rocelab CLI cases passed"
[ "$fails" = 0 ]
