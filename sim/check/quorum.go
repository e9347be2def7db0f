package check

import (
	"slices"

	"github.com/locksim/locksim/sim"
)

// quorumBacked: throughout the validity window a client computed for itself (a
// grant that rests on a majority of N nodes), its value is stored on a majority of
// those nodes. Values leave a node when it removes them (expiry, delete) or when it
// restarts without them (the same inference as the grant ledger). The window ends
// early only when the owner releases. An extension (the same majority grant
// reported again while its window is open) moves the window's end: it is the
// same grant, judged once.
func quorumBacked(f *facts) Result {
	var r Result
	type window struct {
		client    sim.ProcID
		lock, val string
		n         int
		end       sim.Time
		broken    bool
	}
	stored := map[sim.ProcID]map[string]string{} // node -> lock -> value
	recovered := map[sim.ProcID]map[string]bool{}
	var open []*window
	count := func(w *window) (int, []string) {
		k := 0
		var on []string
		for p := range f.t.Names {
			if stored[sim.ProcID(p)][w.lock] == w.val {
				k++
				on = append(on, f.name(sim.ProcID(p)))
			}
		}
		return k, on
	}
	judge := func(at sim.Time, event int) {
		// Windows that ended or already broke are done for good: time only moves on.
		open = slices.DeleteFunc(open, func(w *window) bool { return w.broken || at >= w.end })
		for _, w := range open {
			if k, on := count(w); k < w.n/2+1 {
				w.broken = true
				where := "no node"
				if len(on) > 0 {
					where = joinNames(on)
				}
				r.Violations = append(r.Violations, violation(at,
					sprintf("%s's value %s for %s is on %d of %d nodes (%s), below the majority of %d, while its validity runs until %s",
						f.name(w.client), w.val, w.lock, k, w.n, where, w.n/2+1, w.end), f.name(w.client)).at(event))
			}
		}
	}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsStored:
			if stored[o.Proc] == nil {
				stored[o.Proc] = map[string]string{}
			}
			stored[o.Proc][o.Lock] = o.Grant
			if o.Reason == sim.ReasonRecovered {
				if recovered[o.Proc] == nil {
					recovered[o.Proc] = map[string]bool{}
				}
				recovered[o.Proc][o.Lock] = true
			}
		case sim.ObsRemoved:
			if stored[o.Proc][o.Lock] == o.Grant {
				delete(stored[o.Proc], o.Lock)
			}
			judge(o.At, o.Event)
		case sim.ObsGrant:
			if o.Value <= 0 {
				return
			}
			r.Applicable = true
			for _, w := range open {
				if w.client == o.Client && w.lock == o.Lock && w.val == o.Grant && !w.broken && o.At < w.end {
					w.end = promiseEnd(o) // an extension: the same window, with a new end
					judge(o.At, o.Event)
					return
				}
			}
			open = append(open, &window{client: o.Client, lock: o.Lock, val: o.Grant, n: int(o.Value), end: promiseEnd(o)})
			judge(o.At, o.Event)
		case sim.ObsGrantEnd:
			for _, w := range open {
				if w.client == o.Client && w.val == o.Grant && o.Reason == sim.ReasonReleased && o.By == o.Client {
					w.end = min(w.end, o.At)
				}
			}
		}
	}, func(p procEvent) {
		if p.kind != sim.EvRestart {
			return
		}
		for l := range stored[p.proc] {
			if !recovered[p.proc][l] {
				delete(stored[p.proc], l)
			}
		}
		delete(recovered, p.proc)
		judge(p.at, p.idx)
	})
	return r
}

func joinNames(ns []string) string {
	s := ""
	for i, n := range ns {
		if i > 0 {
			s += ","
		}
		s += n
	}
	return s
}
