package step

import _ "embed"

// RecordSchema is the JSON Schema (draft 2020-12) of the [Record], as
// attempt.json and run --json hold it: the record's format is a contract,
// and the tests validate records against it. kusaw-step schema attempt
// prints it.
//
//go:embed attempt.schema.json
var RecordSchema []byte
