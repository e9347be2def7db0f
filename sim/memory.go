package sim

import (
	"math"
	"reflect"
	"strconv"
)

// A run bounds its memory like its events: it keeps an estimate of the bytes it
// holds, made from what it records (never from the Go runtime's figures, which
// depend on the machine and would make the outcome depend on them), and stops
// with EndMemoryLimit as soon as the estimate passes Limits.MaxMemory. The sizes come
// from the types themselves, so when a change makes the trace smaller the same
// budget allows more events by itself.

// DefaultMaxMemory is the memory budget of a run that sets none: 4 GB.
const DefaultMaxMemory = 4_000_000_000

// ProcBytes is what one process costs besides its share of the trace: the kernel's
// slot, its clock and random stream, the protocol's state and what the checker and
// the timeline keep per process. Measured on the 10,000-process scenario of
// issue 15 (docs/architecture.md, Limits), with room to spare.
const ProcBytes = 4 << 10

// traceFactor counts what is built from the trace after the run (the checker's
// ledger, the reports, the timeline's rows) and the garbage collector's
// headroom: together, about as much again as the trace (measured with `locksim
// run`, `verify` and `tui` on long runs; docs/architecture.md, Limits).
const traceFactor = 2

var (
	eventBytes = int64(reflect.TypeFor[Event]().Size())
	msgBytes   = int64(reflect.TypeFor[msgRec]().Size())
	bodyBytes  = int64(reflect.TypeFor[any]().Size())
	// internedBytes is what a distinct note costs the trace's string table
	// besides its bytes: its header in the table and its entry in the index.
	internedBytes = 3*strBytes + 8
	obsBytes      = int64(reflect.TypeFor[Observation]().Size())
	strBytes      = int64(reflect.TypeFor[string]().Size())
	itemBytes     = int64(reflect.TypeFor[item]().Size())
)

// MinMemory is the least memory a run of procs processes needs to reach these
// limits: every event at its least cost (an event with no message, note,
// observation or snapshot) and a queue at its limit. A scenario whose MinMemory
// exceeds its budget can never reach its limits, and is refused before it runs.
func (l Limits) MinMemory(procs int) int64 {
	return int64(procs)*ProcBytes + traceFactor*int64(l.MaxEvents)*eventBytes + int64(l.MaxQueue)*itemBytes
}

// EventsThatFit is the most events a run of procs processes with these limits can
// hold in its budget, every event at its least cost.
func (l Limits) EventsThatFit(procs int) int64 {
	rest := l.MaxMemory - int64(procs)*ProcBytes - int64(l.MaxQueue)*itemBytes
	return max(rest/(traceFactor*eventBytes), 0)
}

// memory is the run's estimate of its memory now.
func (w *World) memory() int64 {
	return int64(len(w.procs))*ProcBytes + traceFactor*w.trace.bytes + int64(w.q.len())*itemBytes
}

func msgSize(m *Message) int64 {
	n := msgBytes + int64(len(m.Op)+len(m.Key)+len(m.Value)+len(m.Opts))
	if m.Body != nil {
		n += bodyBytes
	}
	return n
}

func obsSize(o *Observation) int64 {
	return obsBytes + int64(len(o.Lock)+len(o.Service)+len(o.Grant)+len(o.Op)+len(o.Reason)+len(o.Name)+len(o.Text))
}

// FormatBytes is the one text form of a byte count, in the decimal units `limit
// memory=` reads: "4GB", "1.5GB", "640MB".
func FormatBytes(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	f, i := float64(n), 0
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) + units[i]
}
