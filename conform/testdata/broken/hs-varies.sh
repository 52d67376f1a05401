#!/bin/sh
# The handshake's version changes from run to run (HS-007): random, not
# the pid, which is the same in every sandbox (a fresh pid namespace).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.'$(od -An -tu4 -N4 /dev/urandom | tr -d ' ')'","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
