package check

import (
	"slices"

	"github.com/locksim/locksim/sim"
)

// resOp is one operation the protected resource reported, read against the grant
// ledger: the acquisition it acts under and, when the resource had already seen an
// operation under a later acquisition of the same lock from the same service,
// that newer acquisition and when the resource first saw it (the op is stale).
type resOp struct {
	o         *sim.Observation
	g         *grantRec // the acquisition it acts under, or nil when none was reported
	newer     *grantRec // a later acquisition the resource had seen: the op is stale
	newerSeen sim.Time  // when the resource first saw an operation under newer
	newerBy   sim.ProcID
}

func (r *resOp) stale() bool { return r.newer != nil }

// resourceOps reads the resource operations once, in trace order. For each
// resource and each lock of each service it keeps the latest acquisition it has
// seen an operation under (accepted or refused: a refusal still shows the
// resource the newer token).
func (f *facts) resourceOps() []resOp {
	if f.resOps != nil {
		return f.resOps
	}
	type seenKey struct {
		res           sim.ProcID
		service, lock string
	}
	type seenAcq struct {
		g  *grantRec
		at sim.Time
		by sim.ProcID
	}
	seen := map[seenKey]seenAcq{}
	f.resOps = []resOp{}
	for i := range f.obs {
		o := &f.obs[i]
		if o.Kind != sim.ObsResource {
			continue
		}
		op := resOp{o: o, g: f.operatesUnder(o)}
		if g := op.g; g != nil {
			k := seenKey{o.Proc, g.service, g.lock}
			s, ok := seen[k]
			switch {
			case ok && later(s.g, g):
				op.newer, op.newerSeen, op.newerBy = s.g, s.at, s.by
			case !ok || later(g, s.g):
				seen[k] = seenAcq{g, o.At, o.Client}
			}
		}
		f.resOps = append(f.resOps, op)
	}
	return f.resOps
}

// resourceSafe: the protected resource loses no update. Two clauses:
//   - recency: a write under an acquisition is refused once the resource has
//     seen an operation (accepted or refused) under a later acquisition of the
//     same lock from the same service, whoever holds it (the same client's next
//     acquisition included; a renewal is the same acquisition; for Redlock the
//     client's majority grant, not a node's vote). This is exactly what fencing
//     can guarantee: a resource that has not yet seen the newer token cannot
//     refuse. It is the lost update of Kleppmann's GC-pause story, whether or
//     not the stale holder touched the resource before its pause. A stale read
//     is told in the note: it loses nothing by itself.
//   - serial: accepted writes, grouped by client and acquisition, never come
//     back to a section after another section's operations (the critical
//     sections interleave), whatever the ledger knows of their grants.
func resourceSafe(f *facts) Result {
	var r Result
	type section struct {
		client sim.ProcID
		grant  string
		first  sim.Time
	}
	seen := map[string]section{} // per resource: section -> its first operation
	current := map[sim.ProcID]string{}
	var staleReads []string
	for _, op := range f.resourceOps() {
		o := op.o
		r.Applicable = true
		if !o.Accepted {
			continue
		}
		sec := f.name(o.Client) + " " + grantText(o.Grant)
		key := f.name(o.Proc) + "\x00" + sec
		cur := current[o.Proc]
		_, before := seen[key]
		switch {
		case op.stale() && o.Op == "write":
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s accepted %s's write %s of %s, after it had seen an operation under the later grant %s (%s's, since %s): a stale write, the lost update",
					f.name(o.Proc), f.name(o.Client), grantText(o.Grant), op.g.lock, op.newer.grant, f.name(op.newerBy), op.newerSeen),
				f.name(op.newer.client), f.name(o.Client)).at(o.Event))
		case op.stale():
			staleReads = append(staleReads, sprintf("%s served %s a stale %s %s of %s at %s, after seeing the later grant %s (since %s)",
				f.name(o.Proc), f.name(o.Client), o.Op, grantText(o.Grant), op.g.lock, o.At, op.newer.grant, op.newerSeen))
		case before && cur != sec && o.Op == "write":
			other := seen[f.name(o.Proc)+"\x00"+cur]
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s accepted %s's write %s after operations of %s %s (since %s): the critical sections interleave",
					f.name(o.Proc), f.name(o.Client), grantText(o.Grant), f.name(other.client), grantText(other.grant), other.first),
				f.name(other.client), f.name(o.Client)).at(o.Event))
		}
		if !before {
			seen[key] = section{o.Client, o.Grant, o.At}
		}
		current[o.Proc] = sec
	}
	if len(staleReads) > 0 {
		r.Note = "a stale read loses no update by itself: " + staleReads[0]
		if n := len(staleReads) - 1; n > 0 {
			r.Note += sprintf(" (and %d more)", n)
		}
	}
	return r
}

// staleAccepted counts the writes accepted under a superseded grant: the lost
// updates.
func staleAccepted(f *facts) int {
	n := 0
	for _, op := range f.resourceOps() {
		if op.stale() && op.o.Accepted && op.o.Op == "write" {
			n++
		}
	}
	return n
}

// blockedHolders says, for a run judged safe, which legitimate holders could
// not work: every operation a client sent under an acquisition was refused,
// though no later acquisition of its lock had been granted when it sent them
// (a token source that went backwards refuses the rightful holder).
func blockedHolders(f *facts) []string {
	type acq struct {
		g      *grantRec
		client sim.ProcID
	}
	refused := map[acq]int{}
	where := map[acq][]string{}
	known, spoilt := map[acq]bool{}, map[acq]bool{}
	var order []acq
	sent := f.sendTimes()
	for _, op := range f.resourceOps() {
		if op.g == nil {
			continue
		}
		a := acq{op.g, op.o.Client}
		if !known[a] {
			known[a] = true
			order = append(order, a)
		}
		if op.o.Accepted || f.supersededAt(op.g, sent(op.o)) {
			spoilt[a] = true
			continue
		}
		refused[a]++
		if res := f.name(op.o.Proc); !slices.Contains(where[a], res) {
			where[a] = append(where[a], res)
		}
	}
	var out []string
	for _, a := range order {
		if !spoilt[a] && refused[a] > 0 {
			out = append(out, sprintf("safe, but %s could not work: %s refused all %d of its operations under %s, the newest grant of %s when it sent them",
				f.name(a.client), listNames(where[a]), refused[a], a.g.grant, a.g.lock))
		}
	}
	return out
}

// sendTimes returns when the operation a resource reported was sent: the send
// event of the delivered message (the operation's own time when none is found).
func (f *facts) sendTimes() func(o *sim.Observation) sim.Time {
	want := map[uint64]bool{}
	for _, op := range f.resourceOps() {
		if e := f.t.Event(op.o.Event); e.Kind == sim.EvDeliver {
			want[e.MsgID] = true
		}
	}
	at := map[uint64]sim.Time{}
	for i := range f.t.Len() {
		if len(at) == len(want) {
			break // every send found (or none wanted): a run without a resource reads no event
		}
		if f.t.KindOf(i) != sim.EvSend {
			continue
		}
		if e := f.t.Event(i); want[e.MsgID] {
			at[e.MsgID] = e.At
		}
	}
	return func(o *sim.Observation) sim.Time {
		if e := f.t.Event(o.Event); e.Kind == sim.EvDeliver {
			if t, ok := at[e.MsgID]; ok {
				return t
			}
		}
		return o.At
	}
}

func grantText(g string) string {
	if g == "" {
		return "under no grant"
	}
	return "under " + g
}

// fencingMonotonic: the resource accepts an operation only if its token is at least
// every token it has already seen.
func fencingMonotonic(f *facts) Result {
	var r Result
	type high struct {
		token  int64
		client sim.ProcID
	}
	highest := map[sim.ProcID]high{}
	for i := range f.obs {
		o := &f.obs[i]
		if o.Kind != sim.ObsResource || !o.HasToken {
			continue
		}
		r.Applicable = true
		h, ok := highest[o.Proc]
		if o.Accepted && ok && o.Token < h.token {
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s accepted %s's %s with token %d after seeing token %d from %s",
					f.name(o.Proc), f.name(o.Client), o.Op, o.Token, h.token, f.name(h.client)),
				f.name(h.client), f.name(o.Client)).at(o.Event))
		}
		if !ok || o.Token > h.token {
			highest[o.Proc] = high{o.Token, o.Client}
		}
	}
	return r
}
