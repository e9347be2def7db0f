package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// DelayDist is how a link draws a message's delay.
type DelayDist uint8

const (
	DelayFixed   DelayDist = iota // always Delay: messages on the link stay in order
	DelayUniform                  // Delay plus a uniform draw in [0, Jitter]
	DelayExp                      // Delay plus an exponential draw with mean Jitter
)

var distNames = [...]string{DelayFixed: "fixed", DelayUniform: "uniform", DelayExp: "exp"}

func (d DelayDist) String() string { return distNames[d] }

// ParseDelayDist reads a distribution's name.
func ParseDelayDist(s string) (DelayDist, bool) {
	for i, n := range distNames {
		if n == s {
			return DelayDist(i), true
		}
	}
	return 0, false
}

// Link is the behaviour of messages from one process to another. Faults are settings,
// not code paths: a lossy link is a link with Loss > 0. A link is FIFO, like the
// TCP connection every modelled system uses: jitter delays a message but never lets
// it overtake an earlier one on the same link. Only Reorder breaks the order.
type Link struct {
	Delay        time.Duration
	Jitter       time.Duration
	Dist         DelayDist
	Loss         float64       // probability a message is lost
	Dup          float64       // probability a message is delivered twice
	Reorder      float64       // probability a message is held back by up to ReorderDelay
	ReorderDelay time.Duration // defaults to 10 x Delay (at least 1 ms)
}

// String describes the link's settings: "delay 1ms, loss 0.3".
func (l Link) String() string {
	s := "delay " + FormatDuration(l.Delay)
	if l.Jitter > 0 {
		s += fmt.Sprintf(" + %s %s jitter", l.Dist, FormatDuration(l.Jitter))
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"loss", l.Loss}, {"dup", l.Dup}, {"reorder", l.Reorder}} {
		if p.v > 0 {
			s += fmt.Sprintf(", %s %g", p.name, p.v)
		}
	}
	return s
}

// Validate reports a setting no network can have.
func (l Link) Validate() error {
	for _, p := range []float64{l.Loss, l.Dup, l.Reorder} {
		if p < 0 || p > 1 {
			return fmt.Errorf("probability %v is outside [0, 1]", p)
		}
	}
	if l.Delay < 0 || l.Jitter < 0 || l.ReorderDelay < 0 {
		return fmt.Errorf("delays cannot be negative")
	}
	return nil
}

// Network holds the link settings and the partitions between n processes.
type Network struct {
	def       Link
	overrides []linkOverride
	n         int
	links     []Link // n*n, built when the run starts
	cut       []bool // n*n: cut[from*n+to] drops from's messages to to
	last      []Time // n*n: the latest arrival queued on each link (FIFO)
	rng       *rand.Rand
}

type linkOverride struct {
	from, to ProcID
	link     Link
}

// SetDefault sets every link not set otherwise.
func (n *Network) SetDefault(l Link) { n.def = l }

// SetLink sets the link from one process to another (one direction).
func (n *Network) SetLink(from, to ProcID, l Link) {
	n.overrides = append(n.overrides, linkOverride{from, to, l})
}

// setLive changes a link during the run (an ActLink fault).
func (n *Network) setLive(from, to ProcID, l Link) { n.links[int(from)*n.n+int(to)] = l }

func (n *Network) build(procs int, rng *rand.Rand) {
	n.n, n.rng = procs, rng
	n.links = make([]Link, procs*procs)
	n.cut = make([]bool, procs*procs)
	n.last = make([]Time, procs*procs)
	for i := range n.links {
		n.links[i] = n.def
	}
	for _, o := range n.overrides {
		n.links[int(o.from)*procs+int(o.to)] = o.link
	}
}

// arrival draws when a message sent at now arrives, or reports it lost. Only links
// with randomness draw from the stream, so a fixed network consumes no randomness.
func (n *Network) arrival(from, to ProcID, now Time) (at Time, lost bool) {
	d, reordered, lost := n.delay(from, to)
	if lost {
		return 0, true
	}
	at = now.Add(d)
	if reordered {
		return at, false // held back: later messages may overtake it
	}
	i := int(from)*n.n + int(to)
	at = max(at, n.last[i])
	n.last[i] = at
	return at, false
}

func (n *Network) delay(from, to ProcID) (d time.Duration, reordered, lost bool) {
	l := &n.links[int(from)*n.n+int(to)]
	if l.Loss > 0 && n.rng.Float64() < l.Loss {
		return 0, false, true
	}
	d = l.Delay
	switch l.Dist {
	case DelayUniform:
		if l.Jitter > 0 {
			d += time.Duration(n.rng.Int64N(int64(l.Jitter) + 1))
		}
	case DelayExp:
		d += time.Duration(n.rng.ExpFloat64() * float64(l.Jitter))
	}
	if l.Reorder > 0 && n.rng.Float64() < l.Reorder {
		rd := l.ReorderDelay
		if rd == 0 {
			rd = max(10*l.Delay, time.Millisecond)
		}
		d += time.Duration(n.rng.Int64N(int64(rd) + 1))
		reordered = true
	}
	return d, reordered, false
}

func (n *Network) duplicate(from, to ProcID) bool {
	l := &n.links[int(from)*n.n+int(to)]
	return l.Dup > 0 && n.rng.Float64() < l.Dup
}

func (n *Network) isCut(from, to ProcID) bool { return n.cut[int(from)*n.n+int(to)] }

func (n *Network) setCut(from, to ProcID, v bool) { n.cut[int(from)*n.n+int(to)] = v }

func (n *Network) healAll() {
	for i := range n.cut {
		n.cut[i] = false
	}
}
