#!/bin/sh
# Passes unless it sees CONFORM_TEST_CALLER, a variable of the caller's
# that run never hands a step; then it exits 3 after its ok result
# (AT-015). Issue 14 item 5: conform runs attempts as run does.
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"caller-env","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
if [ -n "${CONFORM_TEST_CALLER:-}" ]; then exit 3; fi
