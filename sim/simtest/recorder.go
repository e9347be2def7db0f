// Package simtest holds test support shared by the protocol packages' tests.
//
// May import: sim, sim/fault, the standard library and pgregory.net/rapid.
package simtest

import (
	"flag"
	"fmt"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// Find requires that rapid FINDS a counterexample to prop, for a configuration the
// literature calls unsafe, and returns rapid's shrunk report of it. An expected
// counterexample is not saved as a fail file (-rapid.nofailfile, for the call's
// duration; these tests do not run in parallel). A search stops at its first
// finding, so it may look at up to findChecks cases (a fifth under -short) without
// costing a passing run anything: the test must not fail for want of trying.
func Find(t *testing.T, prop func(*rapid.T)) string {
	t.Helper()
	if f := flag.Lookup("rapid.nofailfile"); f != nil {
		old := f.Value.String()
		flag.Set("rapid.nofailfile", "true")
		defer flag.Set("rapid.nofailfile", old)
	}
	if f := flag.Lookup("rapid.checks"); f != nil {
		old := f.Value.String()
		if n, err := strconv.Atoi(old); err == nil && n < findChecks {
			flag.Set("rapid.checks", strconv.Itoa(findChecks))
			defer flag.Set("rapid.checks", old)
		}
	}
	rec := &Recorder{TestName: t.Name()}
	rapid.Check(rec, prop)
	if !rec.Found {
		t.Fatal("random schedules found no counterexample where the literature says there is one")
	}
	t.Logf("found and shrunk: %s", rec.Message)
	return rec.Message
}

// findChecks is the least number of cases Find lets rapid try.
const findChecks = 1000

// Recorder stands in for *testing.T (it satisfies rapid.TB) so that a property
// test can require that rapid FINDS a counterexample instead of failing when it
// does.
type Recorder struct {
	TestName string
	Found    bool
	Message  string // the counterexample rapid reported, shrunk
}

func (r *Recorder) Helper()                   {}
func (r *Recorder) Name() string              { return r.TestName }
func (r *Recorder) Logf(string, ...any)       {}
func (r *Recorder) Log(...any)                {}
func (r *Recorder) Skipf(string, ...any)      {}
func (r *Recorder) Skip(...any)               {}
func (r *Recorder) SkipNow()                  {}
func (r *Recorder) Errorf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }
func (r *Recorder) Error(a ...any)            { r.fail(fmt.Sprint(a...)) }
func (r *Recorder) Fatalf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }
func (r *Recorder) Fatal(a ...any)            { r.fail(fmt.Sprint(a...)) }
func (r *Recorder) FailNow()                  { r.Found = true }
func (r *Recorder) Fail()                     { r.Found = true }
func (r *Recorder) Failed() bool              { return r.Found }
func (r *Recorder) fail(msg string)           { r.Found, r.Message = true, msg }
