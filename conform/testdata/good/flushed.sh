#!/bin/sh
# at-buffered's twin that prints each line as it goes: AT-012 passes,
# because its result is written only after its first event was read.
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"flushed","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"progress","message":"working"}'
sleep 3
echo '{"type":"progress","message":"working"}'
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
