#!/bin/sh
# An interactive step that follows the file flow: it reads its request from
# KUSAW_REQUEST, asks a name on its terminal, appends an event to
# KUSAW_EVENTS and writes its result to KUSAW_RESULT.
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"ask","version":"1.0.0","interactive":true,"protocol_versions":[2]}'
	exit 0
fi
grep -q '"protocol_version":2' "$KUSAW_REQUEST" || { echo "ask: no request in KUSAW_REQUEST" >&2; exit 3; }
echo '{"type":"progress","message":"asking a name"}' >>"$KUSAW_EVENTS"
printf 'Whom shall I greet? '
read -r name || name=nobody
printf '{"type":"result","protocol_version":2,"status":"ok","reason_code":"greeted","message":"hello, %s"}\n' "$name" >"$KUSAW_RESULT"
