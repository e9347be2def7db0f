package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// JSONDifference is a line of a comparison that only one run has
// (docs/json-output.md#compare).
type JSONDifference struct {
	Line      int     `json:"line"` // its place among the lined-up rows, from 0
	AtMs      float64 `json:"at_ms"`
	Run       string  `json:"run"`                 // "a" or "b": the run that has it
	Event     *int    `json:"event,omitempty"`     // the row's event: its index in that run's trace (and event_list)
	Invariant string  `json:"invariant,omitempty"` // a violation row: the invariant
	Text      string  `json:"text"`                // the row's sentence, as the timeline writes it
}

// WriteCompareJSON writes two runs lined up on true time (layout.Compare, as
// `locksim run A --vs B` prints them): how many lines the comparison has, every
// line only one run has, then each run's own JSON form (with its event list when
// asked for), under "a" and "b".
func WriteCompareJSON(w io.Writer, a, b *scenarios.Result, opt scenarios.JSONOptions) error {
	c := layout.Compare(layout.New(a.Trace, &a.Report), layout.New(b.Trace, &b.Report))
	diffs := []JSONDifference{}
	for i := range c.Len() {
		if !c.Differs(i) {
			continue
		}
		ra, rb := c.Own(i)
		d, tl, r := JSONDifference{Line: i, AtMs: c.Time(i).Ms(), Run: "a"}, c.A, ra
		if ra < 0 {
			d.Run, tl, r = "b", c.B, rb
		}
		row := tl.Row(r)
		d.Text, d.Invariant = row.Text, row.Invariant
		if row.Event >= 0 {
			ev := row.Event
			d.Event = &ev
		}
		diffs = append(diffs, d)
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false) // "c2->C", as the event list writes it
	enc.SetIndent("", "  ")
	err := enc.Encode(struct {
		SchemaVersion int              `json:"schema_version"`
		Reproduce     string           `json:"reproduce"`
		Lines         int              `json:"lines"`
		Differences   []JSONDifference `json:"differences"`
	}{scenarios.SchemaVersion, scenarios.CompareCommand(a, b), c.Len(), diffs})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(bytes.TrimSuffix(head.Bytes(), []byte("\n}\n")))
	for i, r := range []*scenarios.Result{a, b} {
		bw.WriteString(",\n  \"" + "ab"[i:i+1] + "\": ")
		if err := r.WriteJSONIn(bw, opt, "  "); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}
