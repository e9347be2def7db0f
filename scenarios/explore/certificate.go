package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim/fault"
)

// A certificate records what an exhaustive check proved, with nothing that
// changes from run to run (no timing, no worker count), so that CI can keep it
// between commits and fail when a change proves less (CompareCertificates).
// docs/check-certificate.schema.json is its schema.

// CertificateVersion is the certificate's schema_version.
const CertificateVersion = 1

// Certificate is what a check proved, or found.
type Certificate struct {
	// SchemaVersion is CertificateVersion.
	SchemaVersion int `json:"schema_version"`
	// Tool is the program that checked ("locksim").
	Tool string `json:"tool"`
	// Version is its version, as the Go build records it.
	Version string `json:"version"`
	// Target is the preset or file checked.
	Target string `json:"target"`
	// TemplateSHA256 identifies the template (Template.TemplateHash).
	TemplateSHA256 string `json:"template_sha256"`
	// Seed is every run's seed.
	Seed uint64 `json:"seed"`
	// Shard is the part of every level checked ("1/1": all of it).
	Shard string `json:"shard"`
	// Bound is what was covered.
	Bound CertBound `json:"bound"`
	// Invariants are what was judged; empty: what decides the verdict.
	Invariants []string `json:"invariants"`
	// Liveness: a heal phase followed the faults, and progress was judged.
	Liveness bool `json:"liveness"`
	// Schedules is how many schedules ran, at every level.
	Schedules int `json:"schedules"`
	// Levels is each level's count.
	Levels []CertTier `json:"levels"`
	// Result is "no-counterexample" (every schedule within the bound kept the
	// invariants) or "counterexample" (the shortest is Counterexample). A check
	// that did not finish writes no certificate.
	Result string `json:"result"`
	// Counterexample is the shortest counterexample, or nil.
	Counterexample *CertCase `json:"counterexample"`
}

// CertBound is a check's bound in words.
type CertBound struct {
	// MaxFaults: every schedule of up to this many faults.
	MaxFaults int `json:"max_faults"`
	// Faults are the kinds placed, by name.
	Faults []string `json:"faults"`
	// Menu is each kind's sizes, as --menu writes them.
	Menu map[string][]string `json:"menu"`
	// Deadlines: clock jumps were also tried just past pending wall deadlines.
	Deadlines bool `json:"deadline_jumps"`
	// Points is where faults fell: events, observations, at=...
	Points string `json:"points"`
	// Ends says where a fault that lasts ends: "menu", a size from the menu
	// after its start (its end is not placed between steps of its own).
	Ends string `json:"ends"`
}

// CertTier is one level of a check: its schedules of exactly Faults faults.
type CertTier struct {
	// Faults is the level: how many faults each of its schedules has.
	Faults int `json:"faults"`
	// Schedules is how many ran.
	Schedules int `json:"schedules"`
	// Counterexamples is how many of them broke what was judged.
	Counterexamples int `json:"counterexamples"`
	// Finished: every schedule of the level ran.
	Finished bool `json:"finished"`
}

// CertCase is a counterexample: its faults, and what they broke.
type CertCase struct {
	// Faults is each fault in words, in time order.
	Faults []string `json:"faults"`
	// Broken is what it broke.
	Broken []string `json:"broken"`
	// Detail is the first violation, in words.
	Detail string `json:"detail"`
	// AtMs is when, in true-time milliseconds.
	AtMs float64 `json:"at_ms"`
	// Scenario is the scenario file written for it.
	Scenario string `json:"scenario"`
}

// Result words.
const (
	ResultNone     = "no-counterexample"
	ResultFound    = "counterexample"
	ResultUnproved = "not-exhausted"
)

// TemplateHash identifies a template: the SHA-256 of its scenario lines (its
// topology, parameters and workload), so that a certificate names what it
// proved something about.
func (t *Template) TemplateHash() string {
	h := sha256.Sum256([]byte(t.Body))
	return hex.EncodeToString(h[:])
}

// BoundWords is the check's bound as a certificate writes it.
func (e *Exhaustive) BoundWords() CertBound {
	b := CertBound{MaxFaults: e.bound.MaxFaults, Deadlines: !e.bound.NoDeadlines && slices.Contains(e.kinds, fault.ClockJump), Points: e.bound.Points.String(),
		Ends: "menu", Menu: e.bound.Menu.Text(e.kinds)}
	for _, k := range e.kinds {
		b.Faults = append(b.Faults, string(k))
	}
	return b
}

// CompareCertificates says how new proves less than old: a smaller bound, a
// narrower menu, coarser points, another template, seed, judgement or shard,
// or another result. No reasons: new proves at least what old did.
func CompareCertificates(old, new *Certificate) []string {
	var why []string
	add := func(format string, a ...any) { why = append(why, fmt.Sprintf(format, a...)) }
	if new.TemplateSHA256 != old.TemplateSHA256 {
		add("the template changed (sha256 %s, was %s)", short(new.TemplateSHA256), short(old.TemplateSHA256))
	}
	if new.Seed != old.Seed {
		add("the seed changed (%d, was %d)", new.Seed, old.Seed)
	}
	if new.Shard != old.Shard {
		add("the shard changed (%s, was %s)", new.Shard, old.Shard)
	}
	if new.Bound.MaxFaults < old.Bound.MaxFaults {
		add("fewer faults: up to %d, was up to %d", new.Bound.MaxFaults, old.Bound.MaxFaults)
	}
	for _, k := range old.Bound.Faults {
		if !slices.Contains(new.Bound.Faults, k) {
			add("a narrower menu: no %s faults any more", k)
			continue
		}
		for _, z := range old.Bound.Menu[k] {
			if !slices.Contains(new.Bound.Menu[k], z) {
				add("a narrower menu: %s no longer tries %s", k, z)
			}
		}
	}
	if old.Bound.Deadlines && !new.Bound.Deadlines {
		add("a narrower menu: clock jumps no longer tried just past pending deadlines")
	}
	np, err1 := ParsePoints(new.Bound.Points)
	op, err2 := ParsePoints(old.Bound.Points)
	if err1 != nil || err2 != nil || !np.Finer(op) {
		add("coarser points: %s, was %s", new.Bound.Points, old.Bound.Points)
	}
	if new.Bound.Ends != old.Bound.Ends {
		add("faults end differently: %s, was %s", new.Bound.Ends, old.Bound.Ends)
	}
	if !judgesAtLeast(new, old) {
		add("other invariants judged: %s, were %s", judged(new), judged(old))
	}
	if new.Result != old.Result {
		add("the result changed: %s, was %s", new.Result, old.Result)
	} else if new.Result == ResultFound && old.Counterexample != nil && new.Counterexample != nil &&
		len(new.Counterexample.Faults) != len(old.Counterexample.Faults) {
		add("the shortest counterexample has %d fault(s), was %d", len(new.Counterexample.Faults), len(old.Counterexample.Faults))
	}
	return why
}

// judgesAtLeast reports whether n judges every invariant o judged: the same
// default (what decides the verdict), or a set of names that contains o's,
// with liveness judged when o judged it.
func judgesAtLeast(n, o *Certificate) bool {
	if o.Liveness && !n.Liveness || (len(n.Invariants) == 0) != (len(o.Invariants) == 0) {
		return false
	}
	for _, name := range o.Invariants {
		if !slices.Contains(n.Invariants, name) {
			return false
		}
	}
	return true
}

func judged(c *Certificate) string {
	s := "the verdict's"
	if len(c.Invariants) > 0 {
		s = strings.Join(c.Invariants, ",")
	}
	if c.Liveness {
		s += " with liveness"
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
