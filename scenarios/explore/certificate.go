package explore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// A certificate records what an exhaustive check proved, with nothing that
// changes from run to run (no timing, no worker count), so that CI can keep it
// between commits and fail when a change proves less (CompareCertificates).
// docs/check-certificate.schema.json is its schema.

// CertificateVersion is the certificate's schema_version.
const CertificateVersion = 1

// Certificate is what a check proved, or found.
type Certificate struct {
	SchemaVersion  int        `json:"schema_version"`
	Tool           string     `json:"tool"`    // the program that checked ("locksim")
	Version        string     `json:"version"` // its version, as the Go build records it
	Target         string     `json:"target"`  // the preset or file checked
	TemplateSHA256 string     `json:"template_sha256"`
	Seed           uint64     `json:"seed"`
	Shard          string     `json:"shard"` // "1/1": every job
	Bound          CertBound  `json:"bound"`
	Invariants     []string   `json:"invariants"` // what is judged; empty: what decides the verdict
	Liveness       bool       `json:"liveness"`
	Schedules      int        `json:"schedules"`
	Levels         []CertTier `json:"levels"`
	// Result is "no-counterexample" (every schedule within the bound kept the
	// invariants) or "counterexample" (the shortest is Counterexample). A check
	// that did not finish writes no certificate.
	Result         string    `json:"result"`
	Counterexample *CertCase `json:"counterexample"`
}

// CertBound is a check's bound in words.
type CertBound struct {
	MaxFaults int                 `json:"max_faults"`
	Faults    []string            `json:"faults"`         // the kinds placed, by name
	Menu      map[string][]string `json:"menu"`           // each kind's sizes
	Deadlines bool                `json:"deadline_jumps"` // clock jumps just past pending wall deadlines too
	Points    string              `json:"points"`         // events, observations, at=...
	// Ends says where a fault that lasts ends: "menu", a size from the menu
	// after its start (its end is not placed between steps of its own).
	Ends string `json:"ends"`
}

// CertTier is one level of a check: its schedules of exactly Faults faults.
type CertTier struct {
	Faults          int  `json:"faults"`
	Schedules       int  `json:"schedules"`
	Counterexamples int  `json:"counterexamples"`
	Finished        bool `json:"finished"`
}

// CertCase is a counterexample: its faults, and what they broke.
type CertCase struct {
	Faults   []string `json:"faults"` // each fault in words, in time order
	Broken   []string `json:"broken"`
	Detail   string   `json:"detail"`
	AtMs     float64  `json:"at_ms"`
	Scenario string   `json:"scenario"` // the scenario file written for it
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
	b := CertBound{MaxFaults: e.bound.MaxFaults, Deadlines: !e.bound.NoDeadlines, Points: e.bound.Points.String(),
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
	if !slices.Equal(new.Invariants, old.Invariants) || new.Liveness != old.Liveness {
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
