#!/bin/sh
# The valgrind test setup's wrapper: a C test runs under valgrind; a shell or
# Python test runs natively and puts its tools under $ROCECHECK_WRAP itself
# (valgrind on bash or python checks none of ours and is 20-50x slower).
case "${1##*/}" in
bash | sh | python3 | python3.*) exec "$@" ;;
esac
# shellcheck disable=SC2086 # the wrapper's words, one per argument
exec ${ROCECHECK_WRAP:?valgrind setup without ROCECHECK_WRAP} "$@"
