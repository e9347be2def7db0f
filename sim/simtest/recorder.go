// Package simtest holds test support shared by the protocol packages' tests.
//
// May import: the standard library only.
package simtest

import "fmt"

// Recorder stands in for *testing.T (it satisfies rapid.TB) so that a property
// test can require that rapid FINDS a counterexample in a configuration the
// literature calls unsafe, instead of failing when it does.
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
