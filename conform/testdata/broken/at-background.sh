#!/bin/sh
# The step leaves a background child in its own process group (AT-010).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
sleep 30 </dev/null >/dev/null 2>&1 &
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
