#!/bin/sh
# The step holds its events back and prints them all at exit, in one write
# with its result (AT-012). Its work (the sleep) is long next to its
# start-up on any machine, so the battery can tell.
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
out=$(echo '{"type":"progress","message":"working"}'; sleep 3; echo '{"type":"progress","message":"working"}'; echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}')
printf '%s\n' "$out"
