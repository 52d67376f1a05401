#!/bin/sh
# Misspelt fields: percentage for percent, input_tokens for tokens_input,
# output for outputs. Accepted, so only the SHOULD check AT-016 fails.
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"broken","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"progress","message":"working","percentage":50}'
echo '{"type":"usage","input_tokens":10}'
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done","output":{"n":1}}'
