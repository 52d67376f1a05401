#!/bin/sh
# An interactive step that needs its answer: with none (the battery run
# without --answer) it gives no result. IA-001 fails and suggests --answer.
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"ask-strict","version":"1.0.0","interactive":true,"protocol_versions":[2]}'
	exit 0
fi
printf 'Whom shall I greet? '
read -r name || { echo; echo "no name given"; exit 2; }
printf '{"type":"result","protocol_version":2,"status":"ok","reason_code":"greeted","message":"hello, %s"}\n' "$name" >"$KUSAW_RESULT"
