# The runner of the table-driven CLI tests (sourced by cli-cases.sh and
# tests/cap/rocecap-cases.sh): {exit code, arguments, expected pattern}.
# Needs: $tmp (a scratch directory), $wrap (valgrind or empty), fails, n,
# and a function `expand WORDS` that replaces the table's placeholders.

# run_cases PROG EXE CASE...: CASE is "RC|ARGS|out:ERE" or "RC|ARGS|err:ERE"
# (the pattern is optional; ARGS are split at blanks after expand).
run_cases() {
	local prog=$1 exe=$2 c want rest args pat got stream re body
	shift 2
	for c in "$@"; do
		want=${c%%|*}
		rest=${c#*|}
		args=${rest%%|*}
		pat=
		[ "$rest" != "$args" ] && pat=$(expand "${rest#*|}")
		args=$(expand "$args")
		n=$((n + 1))
		# shellcheck disable=SC2086
		timeout 60 $wrap "$exe" $args >"$tmp/out" 2>"$tmp/err" </dev/null
		got=$?
		if [ "$got" != "$want" ]; then
			echo "FAIL: $prog $args: exit $got, want $want"
			sed 's/^/    /' "$tmp/err" | head -5
			fails=$((fails + 1))
			continue
		fi
		if [ -n "$pat" ]; then
			stream=${pat%%:*}
			re=${pat#*:}
			if ! grep -Eq -- "$re" "$tmp/$stream"; then
				echo "FAIL: $prog $args: no /$re/ on std$stream:"
				sed 's/^/    /' "$tmp/$stream" | head -5
				fails=$((fails + 1))
				continue
			fi
		fi
		# One error style: a first line "PROG: ...", then at most the usage;
		# nothing from getopt, no "error:" tags; never a crash.
		if [ "$got" != 0 ]; then
			body=$(sed '/^Usage: /,$d' "$tmp/err" | grep -v '^==')
			if [ "$(printf '%s\n' "$body" | wc -l)" != 1 ] || [[ $body != "$prog: "* ]] ||
				grep -Eq 'unrecognized|invalid option|: error:' "$tmp/err"; then
				echo "FAIL: $prog $args: not one '$prog: ...' line:"
				sed 's/^/    /' "$tmp/err"
				fails=$((fails + 1))
			fi
			# An unknown word or option shows the usage.
			if grep -q "unknown \(command\|option\)" "$tmp/err" && ! grep -q '^Usage: ' "$tmp/err"; then
				echo "FAIL: $prog $args: unknown word without the usage"
				fails=$((fails + 1))
			fi
		fi
		if [ "$got" -ge 124 ]; then
			echo "FAIL: $prog $args: killed or timed out ($got)"
			fails=$((fails + 1))
		fi
	done
}

check() {
	n=$((n + 1))
	if ! eval "$2"; then
		echo "FAIL: $1"
		fails=$((fails + 1))
	fi
}
