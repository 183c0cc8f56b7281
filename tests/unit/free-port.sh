# Sourced by the loopback tests (needs $tmp): free_port prints a free
# loopback port, never one the script was given before.
# A port handed to a server started in the background is not bound yet when
# the next is asked for, and the kernel may offer it again (a bench gave two
# agents one port that way).
free_port() {
	local p
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		p=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		grep -qx "$p" "$tmp/ports.given" 2>/dev/null && continue
		echo "$p" >>"$tmp/ports.given"
		echo "$p"
		return 0
	done
	return 1
}
