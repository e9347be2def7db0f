package etcd

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// kv is one key's metadata (the lock keys carry no value worth modelling).
type kv struct {
	create, mod int64 // revisions
	lease       int64
}

type lease struct {
	ttl    time.Duration
	client sim.ProcID // who asked for it: the owner of the keys attached to it
	keys   []string
}

// holder is a lock's current owner: the key with the lowest create revision
// under its prefix, and the client whose lease the key is attached to.
type holder struct {
	key    string
	create int64
	owner  sim.ProcID
}

// store is the replicated state machine: every member applies the same entries
// in the same order and reaches the same store.
type store struct {
	rev     int64
	keys    map[string]*kv
	leases  map[int64]*lease
	deleted map[string][]int64 // each key's deletion revisions, in order: the watch history
	// holders is part of the replicated state, so a new leader reports grant
	// changes from where the cluster was.
	holders map[string]holder // by lock prefix
}

func newStore() *store {
	return &store{rev: 1, keys: map[string]*kv{}, leases: map[int64]*lease{}, deleted: map[string][]int64{},
		holders: map[string]holder{}}
}

// result is what applying an entry answers the client.
type result struct {
	msg sim.Message
	ok  bool // the entry answers anyone (noop and expiry revokes do not)
}

// apply performs one committed entry at log index idx.
func (s *store) apply(idx int64, c *cmd) result {
	if c == nil {
		return result{}
	}
	switch c.Kind {
	case cmdGrant:
		s.leases[idx] = &lease{ttl: c.TTL, client: c.Client}
		return result{sim.Message{Op: RepGranted, Value: fmt.Sprintf("lease %d ttl=%s", idx, sim.FormatDuration(c.TTL))}.
			Carrying(ArgLease, idx).Carrying(ArgLeaseTTL, c.TTL.Milliseconds()), true}
	case cmdRevoke:
		l, ok := s.leases[c.Lease]
		if !ok {
			return result{sim.Message{Op: RepError, Value: ErrLeaseNotFound}, !c.Expired}
		}
		if len(l.keys) > 0 {
			s.rev++                                  // one revision for the whole revoke, as etcd does
			for _, k := range slices.Clone(l.keys) { // del detaches each key from the lease
				s.del(k)
			}
		}
		delete(s.leases, c.Lease)
		return result{sim.Message{Op: RepRevoked, Value: fmt.Sprintf("lease %d", c.Lease)}, !c.Expired}
	case cmdLockTxn:
		l, ok := s.leases[c.Lease]
		if !ok && c.Lease != 0 { // lease 0 is none: the key is put without one
			return result{sim.Message{Op: RepError, Key: c.Key, Value: ErrLeaseNotFound}, true}
		}
		if _, exists := s.keys[c.Key]; !exists {
			s.rev++
			s.keys[c.Key] = &kv{create: s.rev, mod: s.rev, lease: c.Lease}
			if ok {
				l.keys = append(l.keys, c.Key)
			}
		}
		mine := s.keys[c.Key].create
		if _, ok := s.holders[c.Prefix]; !ok {
			s.holders[c.Prefix] = holder{owner: sim.NoProc} // the prefix is a lock from now on
		}
		owner, ownerRev := s.first(c.Prefix)
		return result{sim.Message{Op: RepTxn, Key: c.Key, Value: fmt.Sprintf("create_revision=%d; oldest under %s: %s (create_revision=%d)",
			mine, c.Prefix, owner, ownerRev)}.Carrying(ArgMyRev, mine).Carrying(ArgOwnerRev, ownerRev), true}
	case cmdGetPred:
		k, create := s.lastBefore(c.Key, c.MaxRev)
		text := fmt.Sprintf("none created at or before %d (revision %d)", c.MaxRev, s.rev)
		if k != "" {
			text = fmt.Sprintf("create_revision=%d (revision %d)", create, s.rev)
		}
		return result{sim.Message{Op: RepRange, Key: k, Value: text}.Carrying(ArgRevision, s.rev).Carrying(ArgCreateRev, create), true}
	case cmdGet:
		m := sim.Message{Op: RepRange, Key: c.Key, Value: fmt.Sprintf("not found (revision %d)", s.rev)}.Carrying(ArgRevision, s.rev)
		if x, ok := s.keys[c.Key]; ok {
			m, m.Value = m.Carrying(ArgCreateRev, x.create), fmt.Sprintf("create_revision=%d (revision %d)", x.create, s.rev)
		}
		return result{m, true}
	case cmdDelete:
		if _, ok := s.keys[c.Key]; ok {
			s.rev++
			s.del(c.Key)
		}
		return result{sim.Message{Op: RepDeleted, Key: c.Key, Value: fmt.Sprintf("revision %d", s.rev)}.Carrying(ArgRevision, s.rev), true}
	}
	return result{}
}

// del removes a key at the current revision and detaches it from its lease.
func (s *store) del(k string) {
	x := s.keys[k]
	delete(s.keys, k)
	s.deleted[k] = append(s.deleted[k], s.rev)
	if l, ok := s.leases[x.lease]; ok && x.lease != 0 {
		l.keys = slices.DeleteFunc(l.keys, func(y string) bool { return y == k })
	}
}

// first is the key under prefix with the lowest create revision.
func (s *store) first(prefix string) (string, int64) {
	best, rev := "", int64(0)
	// order-free: create revisions are unique, so one key has the lowest
	for k, x := range s.keys {
		if strings.HasPrefix(k, prefix) && (rev == 0 || x.create < rev) {
			best, rev = k, x.create
		}
	}
	return best, rev
}

// lastBefore is the key under prefix with the highest create revision at or
// below maxRev (any, when maxRev is 0, as etcd's max_create_revision 0 means
// no bound): the predecessor a waiter watches.
func (s *store) lastBefore(prefix string, maxRev int64) (string, int64) {
	best, rev := "", int64(0)
	// order-free: create revisions are unique, so one key has the highest
	for k, x := range s.keys {
		if strings.HasPrefix(k, prefix) && (maxRev <= 0 || x.create <= maxRev) && x.create > rev {
			best, rev = k, x.create
		}
	}
	return best, rev
}

// holderChange is a lock whose owner changed with an entry.
type holderChange struct {
	prefix        string
	before, after holder
}

// updateHolders recomputes each lock's owner after an entry and returns the
// changes, in prefix order.
func (s *store) updateHolders() []holderChange {
	var ch []holderChange
	for _, p := range slices.Sorted(maps.Keys(s.holders)) {
		k, rev := s.first(p)
		h := holder{key: k, create: rev, owner: sim.NoProc}
		if x, ok := s.keys[k]; ok {
			if l, ok := s.leases[x.lease]; ok {
				h.owner = l.client
			}
		}
		if h.key != s.holders[p].key {
			ch = append(ch, holderChange{p, s.holders[p], h})
		}
		s.holders[p] = h
	}
	return ch
}
