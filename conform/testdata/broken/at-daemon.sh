#!/bin/sh
# The step leaves a detached process behind (AT-010).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
# The daemon says so once it has its own session (setsid runs sh after it
# left the group); the step waits for that, not for a guessed time.
setsid sh -c 'touch .daemon-detached; exec sleep 30' </dev/null >/dev/null 2>&1 &
while [ ! -e .daemon-detached ]; do sleep 0.05; done
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
