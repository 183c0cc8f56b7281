#!/usr/bin/env bash
# Every public header must compile on its own as strict ISO C11 and as C++,
# so users can include any one of them first with any warning flags.
set -u
cc=$1 incdir=$2
fail=0 n=0
for h in "$incdir"/rocecheck/*.h; do
	name=rocecheck/$(basename "$h")
	n=$((n + 1))
	if ! printf '#include <%s>\n' "$name" |
		"$cc" -std=c11 -pedantic -Werror -Wall -Wextra -Wstrict-prototypes -fsyntax-only -I"$incdir" -x c -; then
		echo "FAIL: $name does not compile alone as C11 -pedantic"
		fail=1
	fi
	if command -v g++ >/dev/null && ! printf '#include <%s>\n' "$name" |
		g++ -std=c++11 -pedantic -Werror -Wall -Wextra -fsyntax-only -I"$incdir" -x c++ -; then
		echo "FAIL: $name does not compile alone as C++11"
		fail=1
	fi
done
[ $n -gt 0 ] || { echo "FAIL: no headers in $incdir/rocecheck"; exit 1; }
[ $fail -eq 0 ] && echo "ok: $n headers"
exit $fail
