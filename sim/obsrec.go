package sim

import (
	"slices"
	"sort"
	"time"
)

// obsRec is an observation as the trace stores it: 88 bytes and no pointer,
// where an Observation is 200 bytes holding seven strings. Its words (lock,
// service, grant, operation, reason, name, text) are numbers into the trace's
// string table, where each distinct word is stored once ("L", "c1#1",
// "expired" repeat thousands of times). Trace.Observation rebuilds the
// Observation readers see.
type obsRec struct {
	at, token, window, value, seq int64
	event                         int32
	proc, client, by              ProcID
	lock, service, grant, op      uint32
	reason, name, text            uint32
	kind                          ObsKind
	flags                         uint8 // obsHasToken, obsAccepted
}

const (
	obsHasToken uint8 = 1 << iota
	obsAccepted
)

func (t *Trace) addObs(o *Observation) {
	t.bytes += obsSize(o) // the estimate of the public Observation: the same limits as before
	r := t.obs.grow()     // filled in place, every field
	r.at, r.token, r.window, r.value, r.seq = int64(o.At), o.Token, int64(o.Window), o.Value, o.Seq
	r.event, r.proc, r.client, r.by = int32(o.Event), o.Proc, o.Client, o.By
	r.lock, r.service, r.grant, r.op = t.strs.id(o.Lock), t.strs.id(o.Service), t.strs.id(o.Grant), t.strs.id(o.Op)
	r.reason, r.name, r.text = t.strs.id(o.Reason), t.strs.id(o.Name), t.strs.id(o.Text)
	r.kind, r.flags = o.Kind, 0
	if o.HasToken {
		r.flags |= obsHasToken
	}
	if o.Accepted {
		r.flags |= obsAccepted
	}
}

// NumObs is the number of observations.
func (t *Trace) NumObs() int { return t.obs.len() }

// Observation returns observation i (0 <= i < NumObs()), in the order reported.
func (t *Trace) Observation(i int) Observation {
	r := t.obs.at(i)
	return Observation{Kind: r.kind, At: Time(r.at), Event: int(r.event), Proc: r.proc, Client: r.client, By: r.by,
		Lock: t.strs.str(r.lock), Service: t.strs.str(r.service), Grant: t.strs.str(r.grant),
		Token: r.token, HasToken: r.flags&obsHasToken != 0, Window: time.Duration(r.window),
		Op: t.strs.str(r.op), Accepted: r.flags&obsAccepted != 0, Reason: t.strs.str(r.reason),
		Name: t.strs.str(r.name), Value: r.value, Text: t.strs.str(r.text), Seq: r.seq}
}

// ObsEvent is the index of the event whose step reported observation i: read
// without rebuilding the observation.
func (t *Trace) ObsEvent(i int) int { return int(t.obs.at(i).event) }

// ObsOf is the range [from, to) of the observations event i's step reported
// (empty when it reported none).
func (t *Trace) ObsOf(i int) (from, to int) {
	n := t.NumObs()
	from = sort.Search(n, func(k int) bool { return t.ObsEvent(k) >= i })
	to = from
	for to < n && t.ObsEvent(to) == i {
		to++
	}
	return from, to
}

// Observations returns every observation in a slice: for a reader that walks
// them again and again (the checker). The slice is the caller's to read until
// the trace is recycled (Trace.Recycle), which may lend its memory to the next
// run: a caller that keeps observations longer copies them.
func (t *Trace) Observations() []Observation {
	var out []Observation
	if t.reuse != nil && t.obsBuf == nil { // the run before's slice
		out, t.reuse.obsBuf = t.reuse.obsBuf, nil
	}
	out = slices.Grow(out[:0], t.NumObs())[:t.NumObs()]
	for i := range out {
		out[i] = t.Observation(i)
	}
	if t.reuse != nil {
		t.obsBuf = out // given back with the trace's other memory
	}
	return out
}
