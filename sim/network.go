package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

// String is the distribution's name in the scenario language: "fixed", "uniform", "exp".
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
	Delay        time.Duration // the least time a message takes
	Jitter       time.Duration // the spread added to Delay (see Dist)
	Dist         DelayDist     // how the spread is drawn
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

// Network holds the link settings and the partitions between the processes. It
// keeps state only for the links that need it (those the scenario or a fault set,
// those cut, and those that carried a message), so a world of ten thousand
// processes costs what its traffic costs, not a hundred million links.
type Network struct {
	def       Link
	overrides []linkOverride
	links     map[linkKey]*linkState
	// near finds a link of a small world without hashing: by from*procs+to,
	// the same states as links (nil in a world of more than nearProcs).
	near  []*linkState
	procs int
	cuts  int // links cut now: while none is, no lookup is needed to check
	rng   *rand.Rand
}

type linkKey uint64

func keyOf(from, to ProcID) linkKey { return linkKey(uint32(from))<<32 | linkKey(uint32(to)) }

// linkState is one directed link that differs from the default or carried traffic.
type linkState struct {
	link Link
	cut  bool
	last Time // the latest arrival queued on the link (FIFO)
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

// Declared is the link from one process to another as set before the run: the
// last SetLink for the pair, or the default. A link fault (an ActLink action)
// starts from it, and restores it when the fault ends.
func (n *Network) Declared(from, to ProcID) Link {
	l := n.def
	for _, o := range n.overrides {
		if o.from == from && o.to == to {
			l = o.link
		}
	}
	return l
}

// setLive changes a link during the run (an ActLink fault).
func (n *Network) setLive(from, to ProcID, l Link) { n.state(from, to).link = l }

// nearProcs is the most processes a world may have for Network.near: 64 make
// 4,096 entries (32 KB); a larger world hashes.
const nearProcs = 64

func (n *Network) build(rng *rand.Rand, procs int) {
	n.rng = rng
	if n.links == nil { // a reused world's come cleared (World.reset)
		n.links = map[linkKey]*linkState{}
	}
	if procs <= nearProcs {
		n.near, n.procs = slices.Grow(n.near[:0], procs*procs)[:procs*procs], procs
	}
	for _, o := range n.overrides {
		n.state(o.from, o.to).link = o.link
	}
}

// nearSlot is the link's entry in the near table, or nil: a large world has
// none, and a pair naming a process the world does not have (SetLink before
// the run takes any ProcID) is only in the map, never in another link's slot.
func (n *Network) nearSlot(from, to ProcID) **linkState {
	if n.near == nil || uint(from) >= uint(n.procs) || uint(to) >= uint(n.procs) {
		return nil
	}
	return &n.near[int(from)*n.procs+int(to)]
}

// state returns the link's state, made from the default on first use.
func (n *Network) state(from, to ProcID) *linkState {
	near := n.nearSlot(from, to)
	if near != nil && *near != nil {
		return *near
	}
	k := keyOf(from, to)
	st := n.links[k]
	if st == nil {
		st = &linkState{link: n.def}
		n.links[k] = st
	}
	if near != nil {
		*near = st
	}
	return st
}

// arrival draws when a message sent at now on link st arrives, or reports it
// lost. Only links with randomness draw from the stream, so a
// fixed network consumes no randomness. A message never arrives before now: every
// delay is at least 0 and sums saturate rather than wrap.
func (n *Network) arrival(st *linkState, now Time) (at Time, lost bool) {
	d, reordered, lost := n.delay(&st.link)
	if lost {
		return 0, true
	}
	at = now.Add(d)
	if reordered {
		return at, false // held back: later messages may overtake it
	}
	at = max(at, st.last)
	st.last = at
	return at, false
}

// maxDraw is the largest bound a uniform draw takes: Int64N(n+1) needs n+1 to fit.
const maxDraw = math.MaxInt64 - 1

func (n *Network) delay(l *Link) (d time.Duration, reordered, lost bool) {
	if l.Loss > 0 && n.rng.Float64() < l.Loss {
		return 0, false, true
	}
	d = max(l.Delay, 0)
	switch l.Dist {
	case DelayUniform:
		if l.Jitter > 0 {
			d = satAdd(d, time.Duration(n.rng.Int64N(int64(min(l.Jitter, maxDraw))+1)))
		}
	case DelayExp:
		if l.Jitter > 0 {
			d = satAdd(d, durationOf(n.rng.ExpFloat64()*float64(l.Jitter)))
		}
	}
	if l.Reorder > 0 && n.rng.Float64() < l.Reorder {
		rd := l.ReorderDelay
		if rd <= 0 { // 10 x the delay, at least 1 ms
			rd = math.MaxInt64
			if l.Delay <= math.MaxInt64/10 {
				rd = max(10*l.Delay, time.Millisecond)
			}
		}
		d = satAdd(d, time.Duration(n.rng.Int64N(int64(min(rd, maxDraw))+1)))
		reordered = true
	}
	return d, reordered, false
}

func (n *Network) duplicate(st *linkState) bool {
	return st.link.Dup > 0 && n.rng.Float64() < st.link.Dup
}

func (n *Network) isCut(from, to ProcID) bool {
	if n.cuts == 0 {
		return false
	}
	var st *linkState
	if near := n.nearSlot(from, to); near != nil {
		st = *near // every state of a small world's links is here
	} else {
		st = n.links[keyOf(from, to)]
	}
	return st != nil && st.cut
}

func (n *Network) setCut(from, to ProcID, v bool) {
	st := n.state(from, to)
	if st.cut != v {
		st.cut = v
		if v {
			n.cuts++
		} else {
			n.cuts--
		}
	}
}

// healAll restores every cut link (the order of the map does not matter: each
// link is only uncut).
func (n *Network) healAll() {
	for _, st := range n.links {
		st.cut = false
	}
	n.cuts = 0
}
