// Package resource models the protected resource a lock guards: a storage service
// that accepts reads and writes, each carrying the grant its client believes it acts
// under and, where the lock service mints one, a fencing token. With token checking
// on, it registers the token of every operation, reads included, and rejects any
// token lower than the highest it has seen (Kleppmann, "How to do distributed
// locking", 2016). Every protocol reuses it.
//
// May import: sim.
package resource

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// Config configures the resource.
type Config struct {
	Fencing bool // check tokens: reject any lower than the highest seen
	// WritesOnly checks and registers the tokens of writes only (with Fencing):
	// a new holder's read does not tell the resource that older tokens are
	// stale, so a stale write between the new holder's read and its write is
	// accepted. Kleppmann's fencing registers every operation.
	WritesOnly bool
	// LockValue is antirez's alternative to tokens ("Is Redlock safe?", 2016):
	// the resource keeps the lock's random value and accepts an operation only
	// if it carries the value it keeps (check-and-set). A value it has never
	// seen is a new holder marking the resource, the first step of that
	// protocol: the resource keeps it from then on, and refuses the values it
	// kept before. Random values have no order, so a stale holder whose first
	// operation comes after the new holder's mark is taken for a new holder.
	LockValue bool
}

// Replies.
const (
	ReplyOK       = "ok"
	ReplyRejected = "rejected"
)

// Resource is the protected storage.
type Resource struct {
	env     sim.Env
	cfg     Config
	max     int64
	hasMax  bool
	data    string
	version int64
	value   string          // LockValue: the lock value kept now
	marked  map[string]bool // LockValue: every value it has kept
}

// ArgVersion is the number on a reply: the data's version after the operation.
const ArgVersion = sim.Num1

// New returns a constructor for a resource with cfg.
func New(cfg Config) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process { return &Resource{env: env, cfg: cfg} }
}

// Step handles one operation.
func (r *Resource) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind != sim.InMessage {
		return
	}
	m := in.Msg
	lock, update := sim.ParseResourceOpts(m.Opts)
	ob := sim.Observation{Kind: sim.ObsResource, Client: in.From, By: sim.NoProc, Lock: lock,
		Grant: m.Value, Op: m.Op, Token: m.Num(sim.ArgToken), HasToken: m.Has(sim.ArgToken), Accepted: true, Name: update}
	switch {
	case r.cfg.LockValue:
		r.checkValue(m, &ob)
	case r.cfg.Fencing && r.cfg.WritesOnly && m.Op != "write":
		// a read neither checked nor registered
	case r.cfg.Fencing:
		switch {
		case !m.Has(sim.ArgToken):
			ob.Accepted, ob.Text = false, "no fencing token"
		case r.hasMax && m.Num(sim.ArgToken) < r.max:
			ob.Accepted, ob.Text = false, fmt.Sprintf("token %d < highest seen %d", m.Num(sim.ArgToken), r.max)
		default:
			r.max, r.hasMax = m.Num(sim.ArgToken), true
		}
	}
	reply := sim.Message{Op: ReplyOK, Key: m.Key, ID: m.ID}
	if ob.Accepted && m.Op == "write" {
		r.version++
		r.data = "written by " + m.Value
	}
	if !ob.Accepted {
		reply.Op = ReplyRejected
	}
	out.Observe(ob)
	out.Send(in.From, reply.With(ArgVersion, r.version))
}

// checkValue is the check-and-set against the kept lock value.
func (r *Resource) checkValue(m sim.Message, ob *sim.Observation) {
	switch {
	case m.Value == "":
		ob.Accepted, ob.Text = false, "no lock value"
	case m.Value == r.value:
	case r.marked[m.Value]:
		ob.Accepted, ob.Text = false, fmt.Sprintf("lock value %s is not the kept %s", m.Value, r.value)
	default: // a value never seen: a new holder marks the resource
		if r.marked == nil {
			r.marked = map[string]bool{}
		}
		r.marked[m.Value], r.value = true, m.Value
	}
}

// Describe is the resource's state.
func (r *Resource) Describe() string {
	s := fmt.Sprintf("version %d", r.version)
	if r.data != "" {
		s += ", " + r.data
	}
	if r.hasMax {
		s += fmt.Sprintf(", highest token %d", r.max)
	}
	if r.value != "" {
		s += ", lock value " + r.value
	}
	return s
}
