#!/bin/sh
# A step of the Kusaw step protocol v2 in POSIX shell: one handshake line
# when KUSAW_HANDSHAKE=1; otherwise read the request, report progress, and
# print the result as the last stdout line. Logs go to stderr.
set -eu
if [ "${KUSAW_HANDSHAKE:-}" = 1 ]; then
	echo '{"type":"handshake","name":"hello-sh","version":"1.0.0","description":"Counts the words of the request.","interactive":false,"protocol_versions":[2]}'
	exit 0
fi
request=$(cat)
echo "hello-sh: got a request of ${#request} bytes in $KUSAW_WORKTREE" >&2
echo '{"type":"progress","message":"counting","percent":50}'
words=$(printf '%s' "$request" | wc -w | tr -d ' ')
printf 'the request has %s words\n' "$words" > "$KUSAW_ARTIFACTS_DIR/count.txt"
echo '{"type":"artifact","path":"count.txt","kind":"log"}'
printf '{"type":"result","protocol_version":2,"status":"ok","reason_code":"counted","message":"the request has %s words","outputs":{"words":%s}}\n' "$words" "$words"
