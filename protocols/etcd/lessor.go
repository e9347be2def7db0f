package etcd

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// lessor is the leader's lease clock (etcd's lessor). Leases are granted and
// revoked through the log, but their deadlines live only here, on the leader's
// monotonic clock: a keepalive renews a lease without a log entry, and the
// leader alone decides that a lease has expired. Followers keep no deadlines.
type lessor struct {
	promoted bool
	expiry   map[int64]time.Duration // lease -> deadline (leader's mono clock)
	revoking map[int64]bool          // expiry revokes proposed, not applied yet
}

// promote starts the lessor on a new leader: every lease gets its full TTL
// again, plus an election timeout, so that clients have time to find the new
// leader (etcd's Promote(extend)).
func (l *lessor) promote(m *Member, now sim.LocalTime, out *sim.Outputs) {
	l.promoted, l.expiry, l.revoking = true, map[int64]time.Duration{}, map[int64]bool{}
	for id, ls := range m.st.leases {
		l.expiry[id] = now.Mono + ls.ttl + m.electionTimeout()
	}
	if len(m.st.leases) > 0 {
		out.Observe(sim.Note(sim.NoProc, "%s's lessor gives every lease its TTL again, plus %s", m.env.Name,
			sim.FormatDuration(m.electionTimeout())))
	}
}

// demote: a member that stops leading forgets every deadline.
func (l *lessor) demote() { *l = lessor{} }

// granted starts a new lease's clock on the leader.
func (l *lessor) granted(now sim.LocalTime, id int64, ttl time.Duration) {
	if l.promoted {
		l.expiry[id] = now.Mono + ttl
	}
}

// keepAlive answers a keepalive: the lease's TTL, renewed, or 0 when it is gone
// or has run out (an expired lease is never renewed, even before its revoke
// commits); an error while the lessor has not started.
func (l *lessor) keepAlive(m *Member, now sim.LocalTime, id int64) sim.Message {
	if !l.promoted {
		return sim.Message{Op: RepError, Value: ErrNoLeader}.With(ArgLease, id)
	}
	ls, ok := m.st.leases[id]
	if !ok || l.revoking[id] || now.Mono >= l.expiry[id] {
		return sim.Message{Op: RepTTL, Value: fmt.Sprintf("lease %d not found", id)}.Carrying(ArgLease, id)
	}
	l.expiry[id] = now.Mono + ls.ttl
	return sim.Message{Op: RepTTL, Value: fmt.Sprintf("lease %d ttl=%s", id, sim.FormatDuration(ls.ttl))}.
		Carrying(ArgLease, id).Carrying(ArgLeaseTTL, ls.ttl.Milliseconds())
}

// expire proposes the revoke of every lease past its deadline.
func (l *lessor) expire(m *Member, now sim.LocalTime, out *sim.Outputs) {
	if !l.promoted {
		return
	}
	for _, id := range slices.Sorted(maps.Keys(m.st.leases)) {
		if l.revoking[id] || now.Mono < l.expiry[id] {
			continue
		}
		l.revoking[id] = true
		ls := m.st.leases[id]
		out.Observe(sim.Note(sim.NoProc, "%s: lease %d of %s was not renewed within its TTL of %s: the leader revokes it",
			m.env.Name, id, m.env.Names[ls.client], sim.FormatDuration(ls.ttl)))
		m.raft.Propose(now, &cmd{Kind: cmdRevoke, Lease: id, Expired: true, Client: sim.NoProc, Origin: sim.NoProc}, out)
	}
}
