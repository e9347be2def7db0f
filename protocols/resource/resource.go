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
	if r.cfg.Fencing {
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

// Describe is the resource's state.
func (r *Resource) Describe() string {
	s := fmt.Sprintf("version %d", r.version)
	if r.data != "" {
		s += ", " + r.data
	}
	if r.hasMax {
		s += fmt.Sprintf(", highest token %d", r.max)
	}
	return s
}
