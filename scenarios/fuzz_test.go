package scenarios_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/export"
)

// Fuzzing the language (issue 15). Both targets start from the catalogue and the
// seed corpus in testdata/fuzz (extreme durations, many processes, long inputs,
// hostile text: each file says what it once broke), which `go test` runs as
// ordinary cases. To search further:
//
//	go test ./scenarios -run '^$' -fuzz FuzzParse -fuzztime 60s
//	go test ./scenarios -run '^$' -fuzz FuzzRun -fuzztime 60s
//
// An input the fuzzer finds failing is written to scenarios/testdata/fuzz/; keep
// it as a readable .scn file in testdata/fuzz with a first line saying what it
// broke.

func fuzzSeeds(f *testing.F) {
	cat, err := scenarios.Catalogue()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range cat {
		src, _ := scenarios.CatalogueSource(s.ID)
		f.Add(src)
	}
	files, err := filepath.Glob("../testdata/fuzz/*" + scenarios.Ext)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed corpus in testdata/fuzz (%v)", err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
}

// FuzzParse: no input makes the parser panic or hang; every error has its
// position, stays short however long the input, and prints as plain text.
func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		_, err := scenarios.Parse("fuzz.scn", src)
		if err == nil {
			return
		}
		var pe *scenarios.Error
		if !errors.As(err, &pe) || pe.Line < 1 || pe.Col < 1 {
			t.Fatalf("error without a position: %v", err)
		}
		if msg := err.Error(); len(msg) > 2048 || strings.IndexFunc(msg, notText) >= 0 {
			t.Fatalf("an error that is too long or not plain text (%d bytes): %.300q", len(msg), msg)
		}
	})
}

// FuzzRun: whatever parses also runs within tight limits, without a panic,
// never delivering a message before it was sent, and its trace prints as text.
func FuzzRun(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		s, err := scenarios.Parse("fuzz.scn", src)
		if err != nil {
			return
		}
		s.Limits.MaxEvents = min(s.Limits.MaxEvents, 20_000)
		s.Limits.MaxQueue = min(s.Limits.MaxQueue, 10_000)
		s.Limits.MaxMemory = min(s.Limits.MaxMemory, 64_000_000)
		s.Limits.MaxTime = min(s.Limits.MaxTime, 10*time.Minute)
		r := scenarios.Run(s, scenarios.RunOptions{Snapshots: true})
		tr := r.Trace
		sent := map[uint64]sim.Time{}
		for i := range tr.Len() {
			e := tr.Event(i)
			if i > 0 && e.At < tr.Event(i-1).At {
				t.Fatalf("event %d (%s) at %s comes after one at %s", i, tr.EventText(i), e.At, tr.Event(i-1).At)
			}
			switch e.Kind {
			case sim.EvSend:
				sent[e.MsgID] = e.At
			case sim.EvDeliver:
				if at, ok := sent[e.MsgID]; !ok || e.At < at {
					t.Fatalf("event %d (%s) at %s: its message was sent at %s (%v)", i, tr.EventText(i), e.At, at, ok)
				}
			}
			if text := tr.EventText(i) + tr.State(e); strings.IndexFunc(text, notText) >= 0 {
				t.Fatalf("event %d does not print as text: %q", i, text)
			}
		}
		var out strings.Builder
		if err := export.WriteText(&out, r, export.TextOptions{}); err != nil || strings.IndexFunc(out.String(), notText) >= 0 {
			t.Fatalf("the report does not print as text (%v)", err)
		}
	})
}

// notText is a character a terminal would not print as itself.
func notText(r rune) bool { return r != '\n' && r != '\t' && !unicode.IsGraphic(r) }
