package sim

// Reuse keeps the memory of traces their reader is done with, for the next runs
// to record into. An exploration runs thousands of short worlds one after the
// other and only reads each trace's verdict: writing the next trace into the
// chunks the last one filled (the process's own memory, often still in cache)
// costs a fraction of writing into fresh memory, which the allocator must clear
// and the collector must later reclaim (BenchmarkReuse measures it).
//
// A Reuse belongs to one caller at a time: give it to one world after the other
// (Config.Reuse), and call Trace.Recycle when done with each trace. It never
// changes a run: every entry is written before it can be read.
type Reuse struct {
	events [][]eventRec
	msgs   [][]msgRec
	states [][]int32
	obs    [][]obsRec
	bodies [][]any       // emptied when given back: payloads hold pointers
	obsBuf []Observation // Trace.Observations' slice, emptied when given back
	strs   strtab        // emptied, its index's memory kept
	// A world's own growing slices: its scenario actions (which its trace
	// keeps, so they come back with Recycle) and its queue (given back when the
	// run ends: a world runs once).
	actions []Action
	queue   []item
	// The world that recorded the last recycled trace (the trace lives in it),
	// for the next NewWorld to reset and run in.
	world *World
}

// NewReuse returns an empty Reuse.
func NewReuse() *Reuse { return &Reuse{} }

// attach makes t's tables take their chunks from r.
func (r *Reuse) attach(t *Trace) {
	if r == nil {
		return
	}
	t.reuse = r
	t.events.spare, t.msgs.spare, t.states.spare, t.obs.spare = &r.events, &r.msgs, &r.states, &r.obs
	t.bodies.spare = &r.bodies
	t.strs, r.strs = r.strs, strtab{}
}

// Recycle hands the trace's memory, and the world that recorded it, to the
// Reuse its world was given (Config.Reuse), for the next run, and empties the
// trace: it has no event left to read (Len is 0). Without a Reuse it only
// empties the trace. Call it only when nothing reads the trace or its world any
// more: the next run records into both, so the *Trace that Run returned then
// belongs to the next run: never read it, schedule on its world, or Recycle it
// again.
func (t *Trace) Recycle() {
	t.events.giveBack()
	t.msgs.giveBack()
	t.states.giveBack()
	t.obs.giveBack()
	for _, c := range t.bodies.chunks {
		clear(c) // payloads hold pointers: let them go
	}
	t.bodies.giveBack()
	if t.reuse != nil && t.obsBuf != nil {
		clear(t.obsBuf) // their strings
		t.reuse.obsBuf = t.obsBuf[:0]
	}
	t.obsBuf = nil
	if t.reuse != nil && t.world != nil {
		t.reuse.world = t.world // the trace lives in it: neither is read again
	}
	t.world = nil
	t.actionOf, t.clockLog, t.wallLog = nil, nil, nil
	if t.reuse != nil && t.Actions != nil {
		clear(t.Actions) // let their messages and process lists go
		t.reuse.actions = t.Actions[:0]
	}
	t.Actions = nil
	if t.reuse != nil {
		t.strs.empty()
		t.reuse.strs, t.strs = t.strs, strtab{}
	}
}
