#!/bin/sh
# The step refuses a request with fields it does not know (AT-008).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
request=$(cat)
case "$request" in
*x_conform*) echo '{"type":"result","protocol_version":2,"status":"fail","reason_code":"unknown_field","message":"the request has a field this step does not know"}' ;;
*) echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}' ;;
esac
