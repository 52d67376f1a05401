#!/bin/sh
# An interactive step that prints its result on stdout, its terminal,
# instead of writing it to KUSAW_RESULT (IA-001).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":true,"protocol_versions":[2]}'
	exit 0
fi
read -r name || name=nobody
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
