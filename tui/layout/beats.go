package layout

import "sort"

// Beat is one stop of a walk and the rows that answer it: from its stop row to
// the row before the next stop or the next scheduled action, whichever comes
// first (or the run's last row). A walk shows the stop's question, when it has
// one, with nothing below the stop drawn; then the beat's rows and its
// narration together, so that no narration is ever on screen before the rows
// it tells of, nor with the rows of a later command it does not tell of.
type Beat struct {
	Stop, End int    // the stop row, and the last row of the beat
	Question  string // the scenario's question for the stop ("ask:" or note ... ask)
	Narration string // the stop's narration ("" for a fault or violation without one)
}

// Beats lists the walk's beats, in order (Stops gives their rows).
func (tl *Timeline) Beats() []Beat {
	if tl.beats == nil {
		stops, acts := tl.Stops(), tl.actionRows()
		tl.beats = make([]Beat, 0, len(stops))
		for i, r := range stops {
			b := Beat{Stop: r, End: tl.Len() - 1}
			if i+1 < len(stops) {
				b.End = stops[i+1] - 1
			}
			if a := Next(acts, r, false); a >= 0 && a-1 < b.End {
				b.End = max(a-1, r)
			}
			if ev := tl.RowEvent(r); ev >= 0 {
				e := tl.t.Event(ev)
				if a := e.Action; a >= 0 && int(a) < len(tl.t.Actions) {
					b.Question = tl.t.Actions[a].Question
				}
				if text, at := tl.Narration(r); at == r {
					b.Narration = text
				}
			}
			tl.beats = append(tl.beats, b)
		}
	}
	return tl.beats
}

// BeatOf is the beat that row r belongs to, and false before the first stop.
func (tl *Timeline) BeatOf(r int) (Beat, bool) {
	beats := tl.Beats()
	i := sort.Search(len(beats), func(i int) bool { return beats[i].Stop > r }) - 1
	if i < 0 {
		return Beat{}, false
	}
	return beats[i], true
}
