package check

import (
	"strings"

	"github.com/locksim/locksim/sim"
)

// Atomic commit (2PC, 3PC). Sources: Bernstein, Hadzilacos and Goodman,
// "Concurrency Control and Recovery in Database Systems" (1987), ch. 7: AC1 all
// processes that decide reach the same decision; AC3 commit only if all voted
// yes; a protocol is nonblocking if every operational process decides.

// commitAgreement: every process that decides a transaction decides the same
// outcome, and nobody commits unless every participant voted yes.
func commitAgreement(f *facts) Result {
	decided := map[string][]decision{}
	yes := map[string]map[sim.ProcID]bool{}
	members := map[string][]sim.ProcID{} // each transaction's participants, as its begin named them
	var r Result
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsBegin:
			if o.Grant == "" {
				members[o.Lock] = f.txnParticipants(o)
			}
		case sim.ObsVote:
			r.Applicable = true
			if yes[o.Lock] == nil {
				yes[o.Lock] = map[sim.ProcID]bool{}
			}
			yes[o.Lock][o.Proc] = o.Name == sim.VoteYes
		case sim.ObsDecide:
			r.Applicable = true
			for _, d := range decided[o.Lock] {
				if d.name != o.Name {
					r.Violations = append(r.Violations, violation(o.At,
						sprintf("%s decides %s %s, but %s", f.name(o.Proc), strings.ToUpper(o.Name), o.Lock,
							sides(f, decided[o.Lock], o.Name)), f.name(d.proc), f.name(o.Proc)).at(o.Event))
					break
				}
			}
			if o.Name == sim.Commit {
				ps, ok := members[o.Lock]
				if !ok {
					ps = f.participants()
				}
				for _, p := range ps {
					if !yes[o.Lock][p] {
						r.Violations = append(r.Violations, violation(o.At,
							sprintf("%s decides COMMIT %s, but %s did not vote yes", f.name(o.Proc), o.Lock, f.name(p)),
							f.name(o.Proc)).at(o.Event))
						break
					}
				}
			}
			decided[o.Lock] = append(decided[o.Lock], decision{o.Proc, o.Name, o.At})
		}
	}, func(procEvent) {})
	return r
}

// decision is one process's decision of a transaction.
type decision struct {
	proc sim.ProcID
	name string
	at   sim.Time
}

// sides names who decided otherwise than name, and when.
func sides(f *facts, ds []decision, name string) string {
	var parts []string
	for _, d := range ds {
		if d.name != name {
			parts = append(parts, sprintf("%s decided %s at %s", f.name(d.proc), strings.ToUpper(d.name), d.at))
		}
	}
	return strings.Join(parts, ", ")
}

// txnParticipants are the processes a transaction's begin names (all of role
// sim.RoleParticipant when it names none).
func (f *facts) txnParticipants(o *sim.Observation) []sim.ProcID {
	if o.Text == "" {
		return f.participants()
	}
	var ps []sim.ProcID
	for _, n := range strings.Split(o.Text, ",") {
		for i, name := range f.t.Names {
			if name == n {
				ps = append(ps, sim.ProcID(i))
			}
		}
	}
	return ps
}

// participants are the processes of role sim.RoleParticipant.
func (f *facts) participants() []sim.ProcID { return f.ofRole(sim.RoleParticipant) }

// ofRole lists the processes of a role.
func (f *facts) ofRole(role string) []sim.ProcID {
	var ps []sim.ProcID
	for i, r := range f.t.Roles {
		if r == role {
			ps = append(ps, sim.ProcID(i))
		}
	}
	return ps
}

// downAtTime reports whether process p is down at true time t.
func (f *facts) downAtTime(p sim.ProcID, t sim.Time) bool {
	down := false
	for _, e := range f.procs {
		if e.at > t {
			break
		}
		if e.proc == p {
			down = e.down()
		}
	}
	return down
}

// nonblocking: every participant that voted on a transaction and is up decides
// it within the bound from its beginning. One that never voted is not blocked
// (it may still abort on its own whenever it likes), and one that is down at the
// deadline is not judged: a crashed process decides nothing.
func nonblocking(f *facts) Result {
	type txn struct {
		name  string
		begun sim.Time
	}
	var txns []txn
	decided := map[string]map[sim.ProcID]sim.Time{}
	voted := map[string]map[sim.ProcID]string{}
	var r Result
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsBegin:
			if o.Grant == "" {
				r.Applicable = true
				txns = append(txns, txn{o.Lock, o.At})
			}
		case sim.ObsVote:
			if voted[o.Lock] == nil {
				voted[o.Lock] = map[sim.ProcID]string{}
			}
			voted[o.Lock][o.Proc] = o.Name
		case sim.ObsDecide:
			if decided[o.Lock] == nil {
				decided[o.Lock] = map[sim.ProcID]sim.Time{}
			}
			if _, ok := decided[o.Lock][o.Proc]; !ok {
				decided[o.Lock][o.Proc] = o.At
			}
		}
	}, func(procEvent) {})
	var short []sim.Time
	for _, tx := range txns {
		deadline := tx.begun.Add(f.bound())
		var stuck []string
		for _, p := range f.participants() {
			if _, ok := voted[tx.name][p]; !ok {
				continue
			}
			if at, ok := decided[tx.name][p]; ok && at <= deadline {
				continue
			}
			if deadline > f.end() {
				short = append(short, tx.begun)
				continue
			}
			if f.downAtTime(p, deadline) {
				continue
			}
			how := "voted " + voted[tx.name][p]
			if how == "voted yes" {
				how = "voted yes and is uncertain"
			}
			stuck = append(stuck, f.name(p)+" ("+how+")")
		}
		if len(stuck) > 0 {
			r.Violations = append(r.Violations, violation(deadline,
				sprintf("%s began at %s, and %s later %s %s still undecided", tx.name, tx.begun,
					sim.FormatDuration(f.bound()), strings.Join(stuck, ", "), map[bool]string{true: "is", false: "are"}[len(stuck) == 1]),
				stuckNames(stuck)...))
		}
	}
	if len(short) > 0 {
		undecided(&r, short[0], f)
	}
	return r
}

func stuckNames(stuck []string) []string {
	out := make([]string, len(stuck))
	for i, s := range stuck {
		out[i], _, _ = strings.Cut(s, " ")
	}
	return out
}
