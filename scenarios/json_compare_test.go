package scenarios_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/export"
)

// The comparison's JSON (tui/export, which lines the runs up with the layout)
// against its published schema; in this package's tests because the schema
// and the catalogue pairs are the scenarios'.

// TestCompareJSONMatchesTheSchema writes every catalogue pair (a scenario and
// its compare-with) as `locksim run A --vs B --format json --events` does and
// validates it against docs/json-compare.schema.json; each difference names a
// row of its own run at its own time. The schema refuses a broken comparison.
// Under -short the longest pairs are left out; without -tags long, the
// event lists of one pair per protocol are validated, not of every pair.
func TestCompareJSONMatchesTheSchema(t *testing.T) {
	t.Parallel()
	sch := scenarios.Schema(t, "json-compare.schema.json")
	pairs := 0
	eventsSeen := map[string]bool{} // protocols whose pair JSON was validated with its events
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat {
		if s.CompareWith == "" {
			continue
		}
		c, err := s.Control()
		if err != nil {
			t.Fatal(err)
		}
		pairs++
		a, b := scenarios.CatalogueRun(t, s.ID), scenarios.CatalogueRun(t, c.ID)
		if testing.Short() && a.Trace.Len()+b.Trace.Len() > 5000 {
			continue // tens of thousands of differences: left to the full run
		}
		// The event lists are validated run by run (TestCatalogueJSONMatchesTheSchema):
		// here, in a pair's JSON, once per protocol by default, every pair with
		// -tags long (validating a long pair's events takes seconds).
		events := scenarios.Long() || !eventsSeen[s.Protocol] && a.Trace.Len()+b.Trace.Len() < 5000
		eventsSeen[s.Protocol] = eventsSeen[s.Protocol] || events
		var buf bytes.Buffer
		if err := export.WriteCompareJSON(&buf, a, b, scenarios.JSONOptions{Events: events}); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: not JSON: %v", s.ID, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s --vs %s: %v", s.ID, c.ID, err)
		}
		var out struct {
			Lines       int
			Differences []export.JSONDifference
			A, B        struct {
				Scenario  string
				EventList []scenarios.JSONEvent `json:"event_list"`
			}
		}
		if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if out.A.Scenario != s.ID || out.B.Scenario != c.ID || events && len(out.A.EventList) != a.Trace.Len() {
			t.Errorf("%s: a is %q with %d events, b %q", s.ID, out.A.Scenario, len(out.A.EventList), out.B.Scenario)
		}
		if pairs == 1 {
			good := buf.String()
			for name, bad := range map[string]string{
				"a third run":        strings.Replace(good, `"run": "a"`, `"run": "c"`, 1),
				"an unknown verdict": strings.Replace(good, `"verdict": "`+string(b.Report.Verdict)+`"`, `"verdict": "MAYBE"`, 2),
				"no differences":     strings.Replace(good, `"differences"`, `"diffs"`, 1),
				"an old version":     strings.Replace(good, `"schema_version": 2`, `"schema_version": 1`, 2),
			} {
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
				if bad == good || err != nil {
					t.Fatalf("%s: the edit changed nothing, or broke the JSON: %v", name, err)
				}
				if sch.Validate(inst) == nil {
					t.Errorf("the compare schema accepts %s", name)
				}
			}
		}
		for _, d := range out.Differences {
			r := map[string]*scenarios.Result{"a": a, "b": b}[d.Run]
			if d.Line >= out.Lines || d.Event != nil && (r.Trace.Event(*d.Event).At.Ms() != d.AtMs || !strings.HasPrefix(d.Text, r.Trace.EventText(*d.Event))) {
				t.Errorf("%s: the difference %+v is not its run's row", s.ID, d)
			}
		}
	}
	if pairs < 20 {
		t.Errorf("only %d catalogue pairs", pairs)
	}
}
