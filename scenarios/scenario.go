package scenarios

import (
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Scenario is a parsed script: everything needed to build and run a world, judge it
// and compare the judgement with what the script expects.
type Scenario struct {
	ID       string        // the file name without its extension
	File     string        // where it was read from ("catalogue/redis-happy.scn")
	Summary  string        // the first line of the teaching paragraph
	Teaching string        // the whole teaching paragraph
	Source   string        // the scenario's text, as read (the HTML export shows it)
	Protocol string        // its protocol line (or its kinds')
	Seed     uint64        // its seed line (1 when none)
	Limits   sim.Limits    // its limit line's, over the defaults
	Bound    time.Duration // the liveness bound
	Until    time.Duration // the scenario's chosen end; 0: run until quiet or a limit
	Expects  []Expect      // its expect lines
	// CompareWith names the scenario this one is best seen against (compare-with):
	// its control, or the mistake it fixes. A catalogue id, or a path relative to
	// this file. Control loads it.
	CompareWith string
	// Warnings are what the text shows its author almost surely did not mean
	// (see Warning); Result.Warnings adds what only the run shows.
	Warnings []Warning
	// WhatIf lists the lines With added to the scenario it was made from, or nil.
	WhatIf     []string
	whatIfLine int  // the first added line's number in the forked text
	withArgs   bool // the added lines came as --with arguments (With), not in a file

	// Exercise is the scenario's exercise part (allow, goal, hint, proved
	// lines), or nil: docs/exercises.md.
	Exercise *Exercise

	reg   *Registry
	net   sim.Link
	links []linkDecl
	procs []procDecl
	steps []step
	inTxn []txnResource // resources in a lock's transaction (intxn.go)
}

type linkDecl struct {
	from, to sim.ProcID
	link     sim.Link
}

type procDecl struct {
	name   string
	kind   Kind
	clock  sim.Clock
	build  func(sim.Env) sim.Process
	given  []string     // the arguments its line gives, in order
	values []string     // the same as key=value
	refs   []sim.ProcID // the processes its arguments name
}

// step is one scheduled action: at a time, or when an observation matches.
type step struct {
	at      time.Duration
	col     int // the column of at's time, for errors
	when    *sim.Match
	after   time.Duration
	action  sim.Action
	trigger string // the trigger's text, for the timeline
	// every repeats the action every so often from at (an every line), up
	// to until (0: the run's end), at the times while holds (nil: all).
	every time.Duration
	until time.Duration
	while *sim.Holding
}

// ExpectKind is what an expect line asserts.
type ExpectKind uint8

const (
	ExpectVerdict  ExpectKind = iota + 1 // expect verdict SAFE|UNSAFE|STUCK
	ExpectViolated                       // expect violated INVARIANT
	ExpectHolds                          // expect holds INVARIANT
	ExpectNA                             // expect n/a INVARIANT
	ExpectMetric                         // expect metric NAME VALUE
)

// Expect is one `expect` line.
type Expect struct {
	Kind  ExpectKind // which assertion
	Name  string     // invariant, metric or verdict
	Value float64    // a metric's expected value
	Text  string     // the line as written, without "expect"
	Line  int        // the line it was written on
}

// ExpectedVerdict is the verdict the scenario expects, or "" if it states none.
func (s *Scenario) ExpectedVerdict() string {
	for _, e := range s.Expects {
		if e.Kind == ExpectVerdict {
			return e.Name
		}
	}
	return ""
}

// ProcNames lists the declared processes in order.
func (s *Scenario) ProcNames() []string {
	ns := make([]string, len(s.procs))
	for i, p := range s.procs {
		ns[i] = p.name
	}
	return ns
}

// Process is a declared process as tools outside the package see it.
type Process struct {
	Name string // its name in the scenario
	Decl string // node, client or resource
	Kind string // redis, redlock, zk-lock, ...
	Role string // its kind's role ("client", "redis")
	// Talks lists the processes it exchanges messages with, as its kind says:
	// those its arguments name (server=, ensemble=) and every process of the
	// kinds its kind talks to (Kind.TalksTo).
	Talks []string
	// Faults lists the fault verbs its kind declares that the explorer may draw
	// on it (failover, on a replica).
	Faults []string
}

// Registry is the registry of kinds the scenario was parsed with.
func (s *Scenario) Registry() *Registry { return s.reg }

// Processes lists the declared processes in declaration order.
func (s *Scenario) Processes() []Process {
	out := make([]Process, len(s.procs))
	for i, d := range s.procs {
		p := Process{Name: d.name, Decl: d.kind.Decl, Kind: d.kind.Name, Role: d.kind.Role}
		for j, o := range s.procs {
			if j != i && (slices.Contains(d.refs, sim.ProcID(j)) || slices.Contains(d.kind.TalksTo, o.kind.Name)) {
				p.Talks = append(p.Talks, o.name)
			}
		}
		for _, v := range d.kind.Verbs {
			if v.Fault && (v.Needs == "" || slices.Contains(d.given, v.Needs)) {
				p.Faults = append(p.Faults, v.Name)
			}
		}
		out[i] = p
	}
	return out
}

// declaredLink is the link from one process to another as declared (the last
// link line for the pair), or the network's settings.
func (s *Scenario) declaredLink(from, to sim.ProcID) sim.Link {
	l := s.net
	for _, d := range s.links {
		if d.from == from && d.to == to {
			l = d.link
		}
	}
	return l
}

// ResourceGuard says how the scenario's protected resources guard the data
// against a stale holder, in the TUI badge's words: "fenced" when one checks
// fencing tokens (fencing=on or writes-only), "checked by lock value" for
// antirez's check-and-set (fencing=lock-value), "in NODE's transaction" for a
// resource that lives in the lock's own database (in=NODE), and "" when none
// checks anything: such a resource is never said to be fenced.
func (s *Scenario) ResourceGuard() string {
	guards := map[string]string{"fencing=on": "fenced", "fencing=writes-only": "fenced", "fencing=lock-value": "checked by lock value"}
	best := ""
	for _, r := range s.inTxn {
		best = "in " + s.procs[r.node].name + "'s transaction"
	}
	for _, d := range s.procs {
		if d.kind.Decl != DeclResource {
			continue
		}
		for _, g := range d.values {
			if w, ok := guards[g]; ok && (best == "" || w == "fenced") {
				best = w
			} else if node, ok := strings.CutPrefix(g, "in="); ok && best == "" {
				best = "in " + node + "'s transaction"
			}
		}
	}
	return best
}
