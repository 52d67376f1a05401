#!/bin/sh
# The handshake writes the file $1, outside its worktree, then answers
# well. In the sandbox the write must not reach the host (issue 11 item 1).
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	{ echo escaped >"$1"; } 2>/dev/null || true
	echo '{"type":"handshake","name":"writes-outside","version":"1.0.0","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
cat >/dev/null
echo '{"type":"result","protocol_version":2,"status":"ok","reason_code":"done","message":"done"}'
