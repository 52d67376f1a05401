package step

import (
	"io"
	"os"
	"time"
)

// followPoll is how often a [follower] looks for more at the end of the
// file. Polling works the same on every Unix and costs one read per tick.
const followPoll = 20 * time.Millisecond

// follower reads a file that the step appends to, like tail -f: at the end
// of the file it waits for more, until ended is closed (the step's group is
// gone); then it reads what is left and returns io.EOF. A partial last
// line is not its concern: the splitter reading it waits for the line's
// end, or reports it after the final io.EOF.
type follower struct {
	f     *os.File
	ended <-chan struct{}
	tick  *time.Timer
}

var _ io.Reader = (*follower)(nil)

// newFollower follows f until ended is closed.
func newFollower(f *os.File, ended <-chan struct{}) *follower {
	t := time.NewTimer(followPoll)
	t.Stop()
	return &follower{f: f, ended: ended, tick: t}
}

// Read reads what the step has written and not yet been read, waiting at
// the end of the file for more.
func (fl *follower) Read(p []byte) (int, error) {
	for {
		n, err := fl.f.Read(p)
		if n > 0 || (err != nil && err != io.EOF) {
			return n, err
		}
		select {
		case <-fl.ended:
			return fl.last(p)
		default:
		}
		fl.wait()
	}
}

// last reads once more after the writer is gone: anything written between
// the previous read and the end is still read, then io.EOF.
func (fl *follower) last(p []byte) (int, error) {
	n, err := fl.f.Read(p)
	if n == 0 && err == nil {
		err = io.EOF
	}
	return n, err
}

// wait sleeps one poll, or less if the step ends.
func (fl *follower) wait() {
	fl.tick.Reset(followPoll)
	select {
	case <-fl.tick.C:
	case <-fl.ended:
		fl.tick.Stop()
	}
}
