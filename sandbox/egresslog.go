package sandbox

import (
	"fmt"
	"io"
	"os"

	"kusaw.dev/step/protocol"
)

// Egress is what the egress proxy of one sandbox saw: the attempt
// record's "egress".
type Egress struct {
	Allowed   int64  // requests the policy let through (some may then have failed)
	Refused   int64  // requests the policy refused
	Log       string // the egress log's path
	Bytes     int64  // bytes of the log kept, the truncation line excluded
	Total     int64  // bytes the log would have had without the cap
	Truncated bool   // the log reached its cap; later requests were counted, not logged
}

// egressLog is the proxy's log file. The proxy writes it one whole line
// per Write: each line is masked (every form of every secret), kept while
// it fits under the cap, and once one does not, a single truncation line
// is written and the rest only counted. Lines are never cut, so the file
// stays valid JSONL.
type egressLog struct {
	f         *os.File // nil once closed
	path      string
	masker    *Masker
	cap       int64
	written   int64
	total     int64
	truncated bool
	err       error
}

// openEgressLog opens the egress log of p, or returns nil when p has none.
func openEgressLog(p *Policy) (*egressLog, error) {
	if p.EgressLog == "" {
		return nil, nil
	}
	f, err := os.OpenFile(p.EgressLog, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sandbox: egress log: %w", err)
	}
	limit := p.EgressLogCap
	if limit <= 0 {
		limit = protocol.DefaultLogCapBytes
	}
	secrets := append([]string(nil), p.Mask...)
	for _, in := range p.Inject {
		secrets = append(secrets, in.Value)
	}
	return &egressLog{f: f, path: p.EgressLog, masker: NewMasker(nil, secrets), cap: limit}, nil
}

// Write writes one masked line, or counts it once the cap is reached. It
// always reports success, so a full disk never stops the proxy.
func (l *egressLog) Write(line []byte) (int, error) {
	n := len(line)
	line = l.masker.maskBytes(line)
	l.total += int64(len(line))
	switch {
	case l.truncated:
	case l.written+int64(len(line)) <= l.cap:
		l.write(line)
		l.written += int64(len(line))
	default:
		l.truncated = true
		l.write(fmt.Appendf(nil, `{"truncated":true,"message":"kusaw-step: egress.jsonl reached log_cap_bytes (%d bytes); later requests are counted in the attempt record's egress, not logged"}`+"\n", l.cap))
	}
	return n, nil
}

func (l *egressLog) write(b []byte) {
	if l.err != nil || l.f == nil {
		return
	}
	if _, err := l.f.Write(b); err != nil {
		l.err = err
	}
}

// close closes the file; the counts stay for [Sandbox.Egress].
func (l *egressLog) close() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Egress returns what the egress proxy saw; false when no proxy ran (no
// network allowlist). Call it after Close.
func (s *Sandbox) Egress() (Egress, bool) {
	if s == nil || s.proxy == nil {
		return Egress{}, false
	}
	e := Egress{}
	e.Allowed, e.Refused = s.proxy.Counts()
	if s.log != nil {
		e.Log, e.Bytes, e.Total, e.Truncated = s.log.path, s.log.written, s.log.total, s.log.truncated
	}
	return e, true
}

var _ io.Writer = (*egressLog)(nil)
