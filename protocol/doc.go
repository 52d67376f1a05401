// Package protocol holds the wire types of the Kusaw step protocol v2 and
// the strict JSON decoding every message goes through.
//
// To be a step, a program must:
//
//  1. when KUSAW_HANDSHAKE=1, print one [Handshake] line on stdout and exit 0;
//  2. otherwise read one [Request] from stdin (or the KUSAW_REQUEST file when
//     it is interactive);
//  3. print its events on stdout, one JSON object a line ([Event]);
//  4. print one [Result] as its last stdout line (or write it to KUSAW_RESULT)
//     and exit.
//
// Logs go to stderr. The package decodes and encodes; it does not validate
// against the schemas (see package schemas), run processes or decide a
// verdict.
package protocol
