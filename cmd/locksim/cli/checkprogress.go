package cli

import (
	"fmt"
	"io"
	"time"
)

// checkProgress shows a check's progress on a terminal: the level, schedules
// done of its total, the rate and the time left. Piped, it prints nothing: the
// summary says what was done.
type checkProgress struct {
	w        io.Writer
	live     bool
	last     time.Time
	k        int  // the level under way
	total    int  // its schedules (exact or estimated)
	exact    bool // whether total is exact
	lastLine int
}

func newCheckProgress(w io.Writer, live bool) *checkProgress {
	return &checkProgress{w: w, live: live, last: time.Now()}
}

func (p *checkProgress) level(k, total int, exact bool) { p.k, p.total, p.exact = k, total, exact }

// update shows done of the level's schedules, all of the check's so far.
func (p *checkProgress) update(done, all int, elapsed time.Duration) {
	if !p.live || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	rate := float64(all) / elapsed.Seconds()
	of := fmt.Sprintf("%d", p.total)
	if !p.exact {
		of = "~" + of
	}
	eta := "?"
	if rate > 0 && p.total > done {
		eta = roundDur(time.Duration(float64(p.total-done) / rate * float64(time.Second)))
	}
	line := fmt.Sprintf("check: level %d: %d of %s schedules, %.0f/s, about %s left", p.k, done, of, rate, eta)
	fmt.Fprintf(p.w, "\r%-*s", p.lastLine, line)
	p.lastLine = len(line)
}

// clear takes the progress line away, before other output.
func (p *checkProgress) clear() {
	if p.live && p.lastLine > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.lastLine, "")
		p.lastLine = 0
	}
}
