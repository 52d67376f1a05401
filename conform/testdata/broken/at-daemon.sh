#!/bin/sh
# The step leaves a detached process behind (AT-010).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
setsid sleep 30 </dev/null >/dev/null 2>&1 &
sleep 0.5 # long enough for it to leave the group
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
