#!/bin/sh
# A good step whose handshake fails (HS-001) unless KUSAW_SANDBOX is $1:
# it shows the battery's handshakes ran in that sandbox (issue 11 item 1).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	if [ "${KUSAW_SANDBOX:-}" != "$1" ]; then
		echo "KUSAW_SANDBOX is '${KUSAW_SANDBOX:-}', want '$1'" >&2
		exit 1
	fi
	echo '{"type":"handshake","name":"wants-sandbox","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
