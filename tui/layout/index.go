package layout

import (
	"slices"
	"sort"
	"time"

	"github.com/locksim/locksim/sim"
)

// RowEvent returns the trace event of row r, or -1 for a violation row.
func (tl *Timeline) RowEvent(r int) int {
	if ref := tl.refs[r]; ref >= 0 {
		return int(ref)
	}
	return -1
}

// RowTime is row r's true time, without laying the row out.
func (tl *Timeline) RowTime(r int) sim.Time {
	if ref := tl.refs[r]; ref >= 0 {
		return tl.t.Event(int(ref)).At
	}
	return tl.viols[-1-int(tl.refs[r])].v.At
}

// ViolationRows lists the rows that are violations, in order.
func (tl *Timeline) ViolationRows() []int {
	if tl.violRows == nil {
		tl.violRows = []int{}
		for r, ref := range tl.refs {
			if ref < 0 {
				tl.violRows = append(tl.violRows, r)
			}
		}
	}
	return tl.violRows
}

// FaultRows lists the rows that are faults (crash, pause, clock jump, partition...).
func (tl *Timeline) FaultRows() []int {
	if tl.faultRows == nil {
		tl.faultRows = []int{}
		for r, ref := range tl.refs {
			if ref >= 0 && tl.t.Event(int(ref)).Kind.IsFault() {
				tl.faultRows = append(tl.faultRows, r)
			}
		}
	}
	return tl.faultRows
}

// Stops lists the rows a walk stops at, the beats of the story: each narrated
// step and note, each fault, each violation that no such stop caused. A step
// without narration at the same true time as the one before it belongs to that
// one's beat (two partition lines under one comment are one stop), and so does
// a violation within a second after a stop and before the next scheduled
// action: the answer to what the stop asked, shown with the rows it follows
// from (a clock jump and the quorum it breaks; a note and the liveness
// violation it explains).
func (tl *Timeline) Stops() []int {
	if tl.stopRows == nil {
		tl.stopRows = []int{}
		acts := tl.actionRows()
		last := -1 // the last stop, while no other action has begun since
		for r, ref := range tl.refs {
			_, first := slices.BinarySearch(acts, r)
			stop := false
			switch {
			case ref < 0:
				stop = last < 0 || tl.RowTime(r)-tl.RowTime(last) > sim.Time(time.Second)
			case first:
				e := tl.t.Event(int(ref))
				stop = e.Kind.IsFault() || tl.narration(e) != ""
				last = -1
			}
			if stop {
				tl.stopRows = append(tl.stopRows, r)
				if ref >= 0 {
					last = r
				}
			}
		}
	}
	return tl.stopRows
}

// actionRows lists the rows where a narration starts or stops: the first row of
// each scheduled action (a command, a fault, a note) and the run's end, but not
// a step without narration at the same time as the action row before it.
func (tl *Timeline) actionRows() []int {
	if tl.actRows == nil {
		tl.actRows = []int{}
		seen := map[int32]bool{}
		last := sim.Time(-1)
		for r, ref := range tl.refs {
			if ref < 0 {
				continue
			}
			e := tl.t.Event(int(ref))
			if e.Kind != sim.EvEnd && (e.Action < 0 || seen[e.Action]) {
				continue
			}
			seen[e.Action] = true
			if e.Kind != sim.EvEnd && tl.narration(e) == "" && e.At == last {
				continue // the beat of the action before it
			}
			last = e.At
			tl.actRows = append(tl.actRows, r)
		}
	}
	return tl.actRows
}

// narration is the narration of the action behind event e, or "".
func (tl *Timeline) narration(e sim.Event) string {
	if a := e.Action; a >= 0 && int(a) < len(tl.t.Actions) {
		return tl.t.Actions[a].Narration
	}
	return ""
}

// Narration returns the narration in force at row r and the row it belongs to:
// a step's narration holds from the first row its action caused until the next
// scheduled action (narrated or not) or the end of the run, so it is never stale.
// Before the first action, or after an action without narration, it returns
// "" and -1.
func (tl *Timeline) Narration(r int) (string, int) {
	rows := tl.actionRows()
	i := sort.SearchInts(rows, r+1) - 1
	if i < 0 {
		return "", -1
	}
	if text := tl.narration(tl.t.Event(tl.RowEvent(rows[i]))); text != "" {
		return text, rows[i]
	}
	return "", -1
}

// Key orders rows across views of one trace (a filtered view and its base):
// rows showing the same thing have the same key, and keys grow down a timeline.
func (tl *Timeline) Key(r int) int64 {
	if ref := tl.refs[r]; ref >= 0 {
		return int64(ref) << 16
	}
	return tl.viols[-1-int(tl.refs[r])].key
}

// RowAt is the last row whose key is at most k (0 when none): where a cursor
// lands in this view when it was on a row with key k in another.
func (tl *Timeline) RowAt(k int64) int {
	return max(sort.Search(len(tl.refs), func(r int) bool { return tl.Key(r) > k })-1, 0)
}

// Next returns the first of rows after r (or before it, backwards), or -1.
func Next(rows []int, r int, backwards bool) int {
	if backwards {
		i := sort.SearchInts(rows, r) - 1
		if i >= 0 {
			return rows[i]
		}
		return -1
	}
	i := sort.SearchInts(rows, r+1)
	if i < len(rows) {
		return rows[i]
	}
	return -1
}

// ViolatedBy lists the invariants violated at or before row r, in first-violation
// order (the header's live badge).
func (tl *Timeline) ViolatedBy(r int) []string {
	var names []string
	for _, vr := range tl.ViolationRows() {
		if vr > r {
			break
		}
		name := tl.viols[-1-int(tl.refs[vr])].name
		found := false
		for _, n := range names {
			found = found || n == name
		}
		if !found {
			names = append(names, name)
		}
	}
	return names
}
