#!/usr/bin/env bash
# rocecheck mesh/preflight --dry-run: host lists expanded as Slurm's
# `scontrol show hostnames` expands them (the real scontrol, with a local
# slurm.conf: no controller, no DNS), the plan printed and valid against
# schemas/mesh-plan.schema.json, no socket opened; bad NAME:PORT refused.
set -u
rck=${ROCECHECK_BUILD_DIR:?}/tools/rocecheck
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tap-lib.sh
. "$(dirname "$0")/tap-lib.sh"
names() { $PY -c "import json,sys; print(' '.join(h['name'] for h in json.load(open('$1'))['hosts']))"; }

# The expansion against scontrol's, expression by expression.
exprs=('n[1-3]' 'node[01-03,20]' 'n[8-11]' 'n[098-101]' 'n[01-100]' 'rack[1-2]-n[01-03]' 'x[1-2][3-4]'
	'a[1-2]b[3-4]c[5-6]' 'a[1-3]b[4-5]c[6-7]' 'a[1-2]b[3-4]c[5-6]d[7-8]' 'r[1-2]-s[1,3]-n[01-02]'
	'n[3,1-2],m[1-2]' 'n1 n2,n3' 'gpu[1-2]-ib[0-1]x[7-8]y[1-2]' 'n[1-0002]' '10.0.0.[1-3]')
if command -v scontrol >/dev/null; then
	printf 'ClusterName=rck\nSlurmctldHost=localhost\n' >"$T/slurm.conf"
	for e in "${exprs[@]}"; do
		want=$(SLURM_CONF=$T/slurm.conf timeout 20 scontrol show hostnames "$e" 2>&1 | tr '\n' ' ')
		$W "$rck" mesh --hosts "$e" --dry-run -j >"$T/plan.json" 2>"$T/err"
		got="$(names "$T/plan.json" 2>/dev/null) "
		[ "$got" = "$want" ] && ok "'$e' as scontrol: $got" || bad "'$e': rocecheck '$got', scontrol '$want' $(cat "$T/err")"
	done
else
	missing "scontrol (slurm-wlm)"
fi

# The plan: text and JSON, valid against its schema; the preflight's too.
$W "$rck" mesh --hosts 'n[1-4],m:18531' --pattern incast:2 --test bw,lat --dry-run >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && grep -q '^Dry run: nothing was contacted' "$T/out" && grep -q '10 host pairs, 20 probes' "$T/out" &&
	grep -q '^  m:18531 (agent at m port 18531)$' "$T/out" && grep -q '^      1 n2 -> n1, n3 -> n1$' "$T/out" &&
	ok "mesh --dry-run text" || bad "mesh --dry-run: rc $rc $(cat "$T/out" "$T/err")"
if $PY -c 'import jsonschema' 2>/dev/null; then
	for cmd in "mesh --hosts n[1-5] --dry-run -j" "mesh --hosts n[1-4] --pattern quick --list-hosts -p" \
		   "preflight --hosts n[1-3] --spares s1,n2 --list-hosts -j" "preflight --hosts a,b --quick --dry-run -j"; do
		# shellcheck disable=SC2086
		$W "$rck" $cmd >"$T/p.json" 2>"$T/err"
		out=$($PY - "$here/schemas/mesh-plan.schema.json" "$T/p.json" <<'PY' 2>&1
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
jsonschema.Draft202012Validator(s).validate(json.load(open(sys.argv[2])))
PY
		) && ok "schema: $cmd" || bad "schema: $cmd: $out $(cat "$T/err")"
	done
	[ "$(names "$T/p.json")" = "a b" ] || bad "preflight hosts: $(cat "$T/p.json")"
	$W "$rck" preflight --hosts 'n[1-3]' --spares s1,n2 --dry-run -j >"$T/p.json"
	[ "$(names "$T/p.json")" = "n1 n2 n3 s1" ] && ok "preflight: hosts, then spares not among them" ||
		bad "preflight spares: $(cat "$T/p.json")"
else
	missing python3-jsonschema
fi

# LeakSanitizer aborts under ptrace: the traced runs check sockets only
# (the untraced runs above and below check leaks).
traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		timeout 60 strace -f -qq -e trace=socket,connect -o "$T/trace" $W "$rck" "$@"
}

# Nothing contacted: no socket at all, even with a launcher and a key file
# that does not exist.
if command -v strace >/dev/null; then
	traced mesh --hosts 'n[1-3],10.9.9.9:18531' \
		--launcher ssh --key-file "$T/nope" --dry-run >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 0 ] && ! grep -qE 'socket\(|connect\(' "$T/trace" && ok "mesh --dry-run: no socket, no launcher" ||
		bad "mesh --dry-run contacted: rc $rc $(cat "$T/trace" "$T/err")"
	traced preflight --hosts 'n[1-3]' \
		--launcher ssh --dry-run >/dev/null 2>"$T/err"
	rc=$?
	[ $rc = 0 ] && ! grep -qE 'socket\(|connect\(' "$T/trace" && ok "preflight --dry-run: no socket" ||
		bad "preflight --dry-run contacted: rc $rc $(cat "$T/trace" "$T/err")"
else
	missing strace
fi

# A bad NAME:PORT: one line, exit 2, never looked up (no socket either).
for h in 'a:0' 'a:65536' 'a:-1' 'a:1:2' 'b,n[1-2]:70000'; do
	for cmd in mesh preflight; do
		if command -v strace >/dev/null; then
			traced $cmd --hosts "$h" >/dev/null 2>"$T/err"
			rc=$?
			[ $rc = 2 ] || bad "$cmd --hosts '$h' traced: rc $rc $(cat "$T/err")"
		fi
		$W "$rck" $cmd --hosts "$h" >/dev/null 2>"$T/err"
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -qF "invalid --hosts '$h'" "$T/err" &&
			! grep -qE 'socket\(|connect\(' "$T/trace" 2>/dev/null &&
			ok "$cmd --hosts '$h': exit 2, $(cat "$T/err")" || bad "$cmd --hosts '$h': rc $rc $(cat "$T/err")"
	done
done
# Fewer than 2 hosts: refused as for a sweep.
$W "$rck" mesh --hosts n1 --dry-run >/dev/null 2>"$T/err"
[ $? = 2 ] && ok "mesh --dry-run with one host: exit 2" || bad "one host: $(cat "$T/err")"

echo "$((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]
