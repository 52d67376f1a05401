#!/bin/sh
# The handshake prints CONFORM_TEST_TOKEN, a variable of the caller's (not
# a KUSAW_* one: those are never handed on), on stderr and in its version
# ("seen-unset" when it has none): a handshake gets the environment run
# builds, never the caller's (issue 11 item 1).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo "token: ${CONFORM_TEST_TOKEN:-unset}" >&2
	echo '{"type":"handshake","name":"reads-token","version":"seen-'"${CONFORM_TEST_TOKEN:-unset}"'","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
