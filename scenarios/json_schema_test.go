package scenarios

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON output against its published schema (docs/json-output.schema.json,
// JSON Schema draft 2020-12), validated by an independent implementation.

func outputSchema(t *testing.T) *jsonschema.Schema { return schema(t, "json-output.schema.json") }

// schema compiles one of the schemas in docs/, which may refer to the others.
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, file := range []string{"json-output.schema.json", "json-compare.schema.json"} {
		f, err := os.Open("../docs/" + file)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s is not JSON: %v", file, err)
		}
		if err := c.AddResource("https://github.com/locksim/locksim/docs/"+file, doc); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("https://github.com/locksim/locksim/docs/" + name)
	if err != nil {
		t.Fatalf("%s does not compile: %v", name, err)
	}
	return sch
}

// TestCatalogueJSONMatchesTheSchema runs every catalogue scenario as
// `locksim run ID --format json --events` does and validates the output; the
// event list has one entry per event the run counts. Under -short the longest
// runs (tens of thousands of events) are validated without their event list.
func TestCatalogueJSONMatchesTheSchema(t *testing.T) {
	t.Parallel()
	sch := outputSchema(t)
	for _, res := range catalogueRuns(t) {
		s := res.Scenario
		// Every run's event list with -tags long; by default those of the
		// shorter runs (validating tens of thousands of events takes seconds).
		events := long() || res.Trace.Len() <= 2000
		var b bytes.Buffer
		if err := res.WriteJSON(&b, JSONOptions{Events: events}); err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%s: not JSON: %v", s.ID, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", s.ID, err)
		}
		var out struct {
			Events    int               `json:"events"`
			EventList []json.RawMessage `json:"event_list"`
		}
		if err := json.Unmarshal(b.Bytes(), &out); err != nil {
			t.Fatal(err)
		}
		if events && len(out.EventList) != out.Events || out.Events != res.Trace.Len() {
			t.Errorf("%s: event_list has %d entries, events says %d, the trace %d", s.ID, len(out.EventList), out.Events, res.Trace.Len())
		}
	}
}

// TestTheSchemaRefusesWhatItMust: the validation is not vacuous.
func TestTheSchemaRefusesWhatItMust(t *testing.T) {
	sch := outputSchema(t)
	s, err := Load("redlock-clock-jump")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Run(s, RunOptions{}).WriteJSON(&b, JSONOptions{Events: true}); err != nil {
		t.Fatal(err)
	}
	good := b.String()
	for name, bad := range map[string]string{
		"a missing verdict":             strings.Replace(good, `"verdict": "UNSAFE",`, "", 1),
		"an unknown verdict":            strings.Replace(good, `"verdict": "UNSAFE"`, `"verdict": "MAYBE"`, 1),
		"an event without its kind":     strings.Replace(good, `"kind":"deliver",`, "", 1),
		"a dropped message without why": strings.Replace(good, `"dropped":true,"why":"partition"`, `"dropped":true`, 1),
		"the old schema version":        strings.Replace(good, `"schema_version": 2`, `"schema_version": 1`, 1),
	} {
		if bad == good {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Errorf("the schema accepts %s", name)
		}
	}
}
