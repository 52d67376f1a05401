// Package events reads what a step says on stdout under the Kusaw step
// protocol v2.
//
// [Read] classifies each stdout line of a step: a valid event (one of the
// six event types, checked against that type's schema alone, and decoded
// into its protocol.Event), the result candidate (the line whose "type" is
// "result", kept raw for the caller to check), or a [*ProtocolError] that
// says what is wrong, on which line, and what to do about it
// ([ProtocolError.Diagnosis]). Every line is checked strictly before any
// schema: a line over the maximum size, a byte order mark, invalid UTF-8, a
// duplicate key or anything but one JSON object is rejected by name.
//
// Events are checked by a fast path compiled from the embedded event
// schemas: one pass of a strict jsontext.Decoder that checks each property
// and builds the typed event as it goes. It gives the same verdict as
// protocol.Parse followed by the schema validator on every input (a
// differential fuzz test holds it to that); the validator only explains
// the lines the fast path rejects.
//
// Underneath, a [Splitter] splits the stream into lines and never keeps
// more than the maximum line size (max_line_bytes) however long a line is:
// a longer line is read to its end, counted, and reported as a
// [*LineTooLongError]. A [CappedWriter] keeps a capped raw log of a stream
// and goes on accepting bytes past its cap, so the pipe is always drained
// to EOF, and a [Tail] keeps the last bytes of a stream (the stderr tail
// shown in diagnoses).
//
// It does not decide the attempt's verdict, and it does not own the step's
// process: it never starts, signals or waits for a process, and never closes
// the pipes it reads. The caller supplies the io.Reader and io.Writer values
// and joins any goroutine that feeds them.
package events
