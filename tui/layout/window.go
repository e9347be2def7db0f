package layout

import (
	"sort"

	"github.com/locksim/locksim/sim"
)

// Cut returns the view of rows [from, to) of the timeline: an export of one
// stretch of a run (`--from`, `--to`), or a slide of a walk. The spans keep
// what the whole timeline knew, so a belief, a promise or a pause that began
// before the cut runs down from the first row of the view as it did on the
// whole; rows keep their keys (Key, RowAt). Cut a timeline after filtering it
// (Filter starts again from the whole).
func (tl *Timeline) Cut(from, to int) *Timeline {
	from, to = max(from, 0), min(to, tl.Len())
	if from == 0 && to == tl.Len() {
		return tl
	}
	to = max(to, from)
	base := tl.base
	if base == nil {
		base = tl
	}
	v := &Timeline{t: tl.t, cols: tl.cols, procCol: tl.procCol, viols: tl.viols, timeW: tl.timeW, base: base,
		refs: tl.refs[from:to:to]}
	if tl.folded != nil {
		v.folded = tl.folded[from:to:to]
	}
	v.spans = make([][]spanRange, len(tl.spans))
	for p, ranges := range tl.spans {
		for _, sr := range ranges {
			if sr.to > from && sr.from < to {
				v.spans[p] = append(v.spans[p], spanRange{max(sr.from, from) - from, min(sr.to, to) - from, sr.span})
			}
		}
	}
	return v
}

// Window is the view of the rows whose true time is in [from, to]: rows follow
// true time down a timeline, so they are one stretch of it.
func (tl *Timeline) Window(from, to sim.Time) *Timeline {
	lo := sort.Search(tl.Len(), func(r int) bool { return tl.RowTime(r) >= from })
	hi := sort.Search(tl.Len(), func(r int) bool { return tl.RowTime(r) > to })
	return tl.Cut(lo, hi)
}
