package simtest

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// ShortCases is how many cases a round of Check runs by default: enough that
// each built-in property still fails on the broken rule it guards (the
// mutation checks of issue 32, docs in /work/notes), few enough that
// `go test ./...` stays under a minute.
const ShortCases = 10

// LongCases is how many cases a round runs with -tags long: what rapid
// ran by default before issue 32.
const LongCases = 100

// Cases is how many cases rounds rounds of Check run: rounds×ShortCases by
// default, rounds×LongCases with -tags long.
func Cases(rounds int) int {
	rounds = max(rounds, 1)
	if Long() {
		return rounds * LongCases
	}
	return rounds * ShortCases
}

// Check runs a property that must hold over Cases(rounds) cases. The cases
// are fixed: case i draws everything from seed i (1, 2, ...), through a
// rapid.T of rapid's own generator, so two runs of a test try the same
// cases, whatever the machine, the flags or the other tests. A failure names
// its seed, and Replay(seed, prop) runs that case again. No case is shrunk:
// the schedules these tests draw are small, and a seed reproduces its case
// exactly.
func Check(t *testing.T, rounds int, prop func(*rapid.T)) {
	t.Helper()
	n := Cases(rounds)
	for seed := uint64(1); seed <= uint64(n); seed++ {
		if failed, msg := Replay(seed, prop); failed {
			t.Fatalf("case seed %d (of seeds 1-%d) fails: %s\nreplay it: simtest.Replay(%d, prop)", seed, n, msg, seed)
		}
	}
	t.Logf("%d cases, seeds 1-%d, all hold", n, n)
}

// Replay runs the case of seed seed: prop draws from a rapid.T whose random
// bits come from that seed alone, so the same seed draws the same case on
// every run. It reports whether prop failed (a Fatal, an Error or a panic)
// and the failure's message.
func Replay(seed uint64, prop func(*rapid.T)) (failed bool, msg string) {
	type outcome struct {
		failed bool
		msg    string
	}
	// rapid draws a generator's example from a seed of ours (Example): the
	// generator runs the property itself and turns its failure into a value.
	gen := rapid.Custom(func(t *rapid.T) (o outcome) {
		defer func() {
			p := recover()
			// rapid refuses a generator that draws nothing: one draw after
			// the case, so a property that draws nothing is a case too.
			rapid.Bool().Draw(t, "end")
			if p == nil {
				if t.Failed() {
					o = outcome{true, "the property failed"}
				}
				return
			}
			if fmt.Sprintf("%T", p) == "rapid.invalidData" { // rapid asks to draw again
				panic(p)
			}
			// t.Fatalf and its like end a case by panicking with the
			// message; any other panic is a failure of the code under test.
			if fmt.Sprintf("%T", p) == "rapid.stopTest" {
				o = outcome{true, fmt.Sprint(p)}
				return
			}
			o = outcome{true, fmt.Sprintf("panic: %v", p)}
		}()
		prop(t)
		return outcome{}
	})
	o := gen.Example(int(seed))
	return o.failed, o.msg
}
