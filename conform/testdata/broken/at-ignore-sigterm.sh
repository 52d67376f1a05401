#!/bin/sh
# The step ignores SIGTERM, and so does its sleep (AT-009).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
trap '' TERM
cat >/dev/null
echo '{"type":"progress","message":"working"}'
sleep 10 # long next to the grace the battery gives after SIGTERM, however late the event arrives
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
