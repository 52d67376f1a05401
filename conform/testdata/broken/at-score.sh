#!/bin/sh
# In mode score the outputs lack their score (AT-014).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"scored","message":"scored","outputs":{"rationale":"looks fine"}}'
