#!/bin/sh
# The outputs break the declared outputs_schema (AT-004).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2],"outputs_schema":{"type":"object","required":["greeting"]}}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done","outputs":{"hello":1}}'
