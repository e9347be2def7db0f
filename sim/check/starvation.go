package check

import (
	"sort"

	"github.com/locksim/locksim/sim"
)

// noStarvation: a client trying for a lock does not wait a whole bound while one
// other live client keeps the lock past the end of its first grant by renewing
// that same grant (extensions, for ever: a lock watchdog that renews while its
// holder lives). The waiter's wait runs from its attempt until it holds the lock,
// gives up or goes down; the renewed hold runs from the end the grant was first
// promised until the grant is withdrawn or its holder goes down (an orphaned
// grant is deadlock-free's business). A long hold with nothing to renew (a
// ZooKeeper node, an etcd key under a kept-alive lease, a FOR UPDATE row) is not
// starvation, nor is contention where the lock changes hands. Applicable when a
// lock whose grants expire is wanted.
func noStarvation(f *facts) Result {
	type wait struct {
		client   sim.ProcID
		lock     string
		from, to sim.Time
	}
	var waits []wait
	open := map[voter]int{} // client and lock -> index of its open wait
	closeWait := func(c sim.ProcID, lock string, at sim.Time) {
		k := voter{c, lock}
		if i, ok := open[k]; ok {
			waits[i].to = at
			delete(open, k)
		}
	}
	wanted := map[string]bool{}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsAttempt:
			wanted[o.Lock] = true
			if _, ok := open[voter{o.Client, o.Lock}]; !ok {
				open[voter{o.Client, o.Lock}] = len(waits)
				waits = append(waits, wait{o.Client, o.Lock, o.At, sim.Never})
			}
		case sim.ObsBeliefStart, sim.ObsGiveUp:
			closeWait(o.Client, o.Lock, o.At)
		}
	}, func(p procEvent) {
		if !p.down() {
			return
		}
		for i := range waits {
			if waits[i].client == p.proc && waits[i].to == sim.Never {
				closeWait(p.proc, waits[i].lock, p.at)
			}
		}
	})
	waitsOn := map[string][]wait{}
	for _, w := range waits {
		waitsOn[w.lock] = append(waitsOn[w.lock], w)
	}
	downs := map[sim.ProcID][]sim.Time{} // each process's goings down, in order
	for _, p := range f.procs {
		if p.down() {
			downs[p.proc] = append(downs[p.proc], p.at)
		}
	}
	var r Result
	var short []sim.Time
	for _, g := range f.acqs {
		if g.firstEnd == sim.Never || !wanted[g.lock] {
			continue
		}
		r.Applicable = true
		if !g.renewed {
			continue
		}
		holdEnd := min(g.withdrawn, f.end())
		ds := downs[g.client]
		if i := sort.Search(len(ds), func(i int) bool { return ds[i] > g.at }); i < len(ds) {
			holdEnd = min(holdEnd, ds[i]) // its holder went down: deadlock-free's business from there
		}
		for _, w := range waitsOn[g.lock] {
			if w.client == g.client {
				continue
			}
			from, to := max(w.from, g.firstEnd), min(w.to, holdEnd, f.end())
			if to <= from {
				continue
			}
			if to-from > sim.Time(f.bound()) || to-from == sim.Time(f.bound()) && to < f.end() {
				r.Violations = append(r.Violations, violation(from.Add(f.bound()),
					sprintf("%s was trying to acquire %s from %s on, and for %s %s kept it past its first grant's end (%s) by renewing grant %s",
						f.name(w.client), g.lock, w.from, sim.FormatDuration(f.bound()), f.name(g.client), g.firstEnd, g.grant),
					f.name(g.client), f.name(w.client)))
			} else if to == f.end() {
				short = append(short, from)
			}
		}
	}
	if len(short) > 0 {
		undecided(&r, short[0], f)
	}
	return r
}
