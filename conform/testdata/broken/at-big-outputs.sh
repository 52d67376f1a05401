#!/bin/sh
# The outputs are over 64 KiB (AT-003).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
big=$(head -c 70000 /dev/zero | tr '\000' a)
printf '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done","outputs":{"text":"%s"}}\n' "$big"
