package layout

import (
	"sort"

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

// NarratedRows lists the rows whose event is a scenario step with narration.
func (tl *Timeline) NarratedRows() []int {
	if tl.narrRows == nil {
		tl.narrRows = []int{}
		seen := map[int32]bool{}
		for r, ref := range tl.refs {
			if ref < 0 {
				continue
			}
			a := tl.t.Event(int(ref)).Action
			if a >= 0 && int(a) < len(tl.t.Actions) && tl.t.Actions[a].Narration != "" && !seen[a] {
				seen[a] = true
				tl.narrRows = append(tl.narrRows, r)
			}
		}
	}
	return tl.narrRows
}

// Narration returns the narration in force at row r: that of the last narrated
// step at or before it, and that step's row (-1 when none).
func (tl *Timeline) Narration(r int) (string, int) {
	rows := tl.NarratedRows()
	i := sort.SearchInts(rows, r+1) - 1
	if i < 0 {
		return "", -1
	}
	ev := tl.t.Event(tl.RowEvent(rows[i]))
	return tl.t.Actions[ev.Action].Narration, rows[i]
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
