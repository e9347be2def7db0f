//go:build js && wasm

// Command locksim-wasm is locksim's engine for the browser: the playground
// (locksim playground) runs it in the page and in a Web Worker. It is the
// command line itself (package cli, built without the terminal UI), called
// from JavaScript with arguments and an in-memory file system that the page
// provides as the global fs, so the page says what locksim run, explore and
// check say, in the same words.
//
// Build: GOOS=js GOARCH=wasm go build ./cmd/locksim-wasm (go generate in
// cmd/locksim/internal/playground does it, gzipped, for locksim to embed).
package main

import (
	"encoding/json"
	"runtime"
	"syscall/js"

	"github.com/locksim/locksim/cmd/locksim/cli"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
)

// engine is the hash of the engine's sources the build was made from (set by
// go generate with -X): the page names it as its version.
var engine = "dev"

func main() {
	js.Global().Set("locksim", js.ValueOf(map[string]any{
		"version":   "locksim engine " + engine + " (" + runtime.Version() + ")",
		"cli":       js.FuncOf(runCLI),
		"catalogue": js.FuncOf(catalogue),
		"presets":   js.FuncOf(presets),
		"exercises": js.FuncOf(exercises),
	}))
	if ready := js.Global().Get("locksimReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {} // the functions above stay callable
}

// writer hands what the command line writes to a JavaScript function as it is
// written (explore's and check's lines arrive while they run), and keeps it.
type writer struct {
	fn  js.Value
	buf []byte
}

func (w *writer) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if w.fn.Type() == js.TypeFunction {
		w.fn.Invoke(string(p))
	}
	return len(p), nil
}

// runCLI is locksim.cli(args, onStdout, onStderr): the command line run on
// args; it returns {code, stdout, stderr}.
func runCLI(_ js.Value, in []js.Value) any {
	var args []string
	if len(in) > 0 {
		for i := range in[0].Length() {
			args = append(args, in[0].Index(i).String())
		}
	}
	out, errw := &writer{}, &writer{}
	if len(in) > 1 {
		out.fn = in[1]
	}
	if len(in) > 2 {
		errw.fn = in[2]
	}
	code := cli.Run(args, out, errw)
	return js.ValueOf(map[string]any{"code": code, "stdout": string(out.buf), "stderr": string(errw.buf)})
}

// entry is one scenario of the catalogue in the picker.
type entry struct {
	ID       string `json:"id"`
	Summary  string `json:"summary"`
	Verdict  string `json:"verdict"`
	Compare  string `json:"compare,omitempty"`
	Source   string `json:"source"`
	Lesson   int    `json:"lesson"`
	Protocol string `json:"protocol"`
}

// catalogue is locksim.catalogue(): a JSON array of the catalogue's
// scenarios, by protocol and lesson as the terminal's browser lists them
// (scenarios.Lessons), each with its source.
func catalogue(js.Value, []js.Value) any {
	cat, err := scenarios.Catalogue()
	if err != nil {
		return js.ValueOf("error: " + err.Error())
	}
	var out []entry
	n := 0
	for _, g := range scenarios.Lessons(cat) {
		for _, lesson := range g.Lessons {
			n++
			for _, s := range lesson {
				src, _ := scenarios.CatalogueSource(s.ID)
				out = append(out, entry{ID: s.ID, Summary: s.Summary, Verdict: s.ExpectedVerdict(), Compare: s.CompareWith,
					Source: src, Lesson: n, Protocol: g.Protocol})
			}
		}
	}
	b, _ := json.Marshal(out)
	return js.ValueOf(string(b))
}

// presets is locksim.presets(): explore's and check's presets, as JSON.
func presets(js.Value, []js.Value) any {
	b, _ := json.Marshal(explore.Presets())
	return js.ValueOf(string(b))
}

// exercises is locksim.exercises(): the embedded exercises, as JSON: each
// with its source, goal, budget and hints (docs/exercises.md).
func exercises(js.Value, []js.Value) any {
	all, err := scenarios.Exercises()
	if err != nil {
		return js.ValueOf("error: " + err.Error())
	}
	type ex struct {
		ID     string   `json:"id"`
		Source string   `json:"source"`
		Goal   string   `json:"goal"`
		Budget string   `json:"budget"`
		Hints  []string `json:"hints"`
		Proved bool     `json:"proved"`
		Fix    bool     `json:"fix"`
	}
	var out []ex
	for _, s := range all {
		src, _ := scenarios.ExerciseSource(s.ID)
		e := s.Exercise
		out = append(out, ex{ID: s.ID, Source: src, Goal: "make " + s.ID + " " + e.Goal.Words(), Budget: e.Budget(),
			Hints: e.Hints, Proved: e.Proved, Fix: e.Goal.Fix()})
	}
	b, _ := json.Marshal(out)
	return js.ValueOf(string(b))
}
