package sim

import (
	"fmt"
	"strings"
	"time"
)

// Config is a world's fixed settings.
type Config struct {
	Seed      uint64 // seeds every random draw of the run (network, processes' Env.Rand)
	Limits    Limits // when the run is cut short; the zero Limits is DefaultLimits
	Snapshots bool   // record each stepping process's Describe() after every step
	// CheckerOnly records only what the checker reads: every event, note and
	// observation, but no message contents (Trace.Msg returns the zero Message,
	// Event.HasMsg is false). The run itself is the same, event for event: a
	// run that only needs a verdict (an exploration's) saves the message table
	// and its string table, and a failing seed is re-run in full to be shown.
	CheckerOnly bool
	// WallTimers keeps a log of the wall-clock timers each process arms and
	// disarms (Trace.PendingWallDeadlines), for a search that sizes clock jumps
	// just past them. It changes nothing in the run.
	WallTimers bool
	// Reuse, when set, lends the trace memory earlier traces left (Trace.Recycle):
	// for a caller that runs many worlds one after another. The run is the same.
	Reuse *Reuse
}

// World is the kernel: it owns true time, the queue, the processes, the network and
// the trace, and steps one event at a time. It is single-threaded by design.
type World struct {
	cfg      Config
	streams  Streams
	now      Time
	seq      uint64
	msgSeq   uint64
	q        queue
	procs    []procSlot
	net      Network
	out      Outputs
	actions  []Action
	triggers []trigger
	// holding is each client's belief by lock, as its reports say, kept only
	// when an action's condition asks (a repeating workload's while).
	holding map[Holding]bool
	trace   Trace
	flying  inflight // messages on their way, with CheckerOnly
	// clockRestarts are the restarts waiting for a process's own wall clock
	// (Action.NodeClock), rescheduled when that clock jumps or drifts.
	clockRestarts []clockRestart
	started       bool
	ended         bool
}

// clockRestart is a restart due when a process's wall clock reads wall: the
// action to run, and the seq of its queued item (an older item is stale).
type clockRestart struct {
	proc   ProcID
	action int32
	wall   time.Duration
	seq    uint64
	done   bool
}

type procState uint8

const (
	stUp procState = iota
	stDown
	stPaused
)

type procSlot struct {
	name   string
	role   string
	newP   func(Env) Process
	p      Process
	env    Env
	clock  Clock
	state  procState
	gen    uint32
	timers []activeTimer
	held   []item // inputs queued while paused
	pauses int32  // counts pauses, so a pause's automatic resume cannot end a later one
	disk   Disk
}

type activeTimer struct {
	id       TimerID
	seq      uint64
	wall     bool
	deadline time.Duration // the local deadline: wall for wall timers, else monotonic
}

// NewWorld returns an empty world.
func NewWorld(cfg Config) *World {
	if cfg.Limits == (Limits{}) {
		cfg.Limits = DefaultLimits()
	}
	if cfg.Limits.MaxMemory == 0 {
		cfg.Limits.MaxMemory = DefaultMaxMemory
	}
	w := &World{}
	if r := cfg.Reuse; r != nil {
		if r.world != nil {
			w, r.world = r.world, nil
			w.reset()
		}
		w.actions, r.actions = r.actions, nil
		w.q.items, r.queue = r.queue, nil
	}
	w.cfg, w.streams = cfg, NewStreams(cfg.Seed)
	return w
}

// reset empties a world whose trace was recycled (Reuse) for the next run: a
// new World, but with the backing arrays of its processes, outputs, triggers,
// messages in flight and link tables kept, each cleared of what the last run
// left in it.
func (w *World) reset() {
	procs := w.procs[:cap(w.procs)]
	clear(procs)
	clear(w.out.obs[:cap(w.out.obs)])
	clear(w.out.writes[:cap(w.out.writes)])
	clear(w.triggers[:cap(w.triggers)])
	clear(w.flying.msgs[:cap(w.flying.msgs)])
	clear(w.net.near[:cap(w.net.near)])
	clear(w.net.links)
	*w = World{
		procs:    procs[:0],
		out:      Outputs{timers: w.out.timers[:0], obs: w.out.obs[:0], writes: w.out.writes[:0]},
		triggers: w.triggers[:0],
		flying:   inflight{msgs: w.flying.msgs[:0], refs: w.flying.refs[:0], free: w.flying.free[:0]},
		net:      Network{near: w.net.near[:0], links: w.net.links},
	}
}

// AddProcess adds a process called name, built by newP now and again after every
// crash. role is a short word for displays ("redis", "client", "resource").
func (w *World) AddProcess(name, role string, clock Clock, newP func(Env) Process) ProcID {
	if w.started {
		panic("sim: AddProcess after Run")
	}
	id := ProcID(len(w.procs))
	w.procs = append(w.procs, procSlot{name: name, role: role, newP: newP, clock: clock})
	return id
}

// Network returns the network, to configure before Run.
func (w *World) Network() *Network { return &w.net }

// Schedule makes a happen at true time at and returns the action's index.
func (w *World) Schedule(at Time, a Action) int {
	i := w.addAction(a)
	w.push(item{at: at, kind: itAction, proc: a.Proc, slot: int32(i)})
	return i
}

// When makes a happen, after the given delay, the first time an observation matches m.
func (w *World) When(m Match, after time.Duration, a Action) int {
	i := w.addAction(a)
	w.triggers = append(w.triggers, trigger{match: m, after: after, action: i})
	return i
}

func (w *World) addAction(a Action) int {
	if a.While != nil && w.holding == nil {
		w.holding = map[Holding]bool{}
	}
	w.actions = append(w.actions, a)
	return len(w.actions) - 1
}

func (w *World) push(it item) {
	w.seq++
	it.seq = w.seq
	w.q.push(it)
}

// Run runs the world to its end and returns the trace. A world runs once.
func (w *World) Run() *Trace {
	w.start()
	for !w.ended {
		w.next()
	}
	return &w.trace
}

func (w *World) start() {
	if w.started {
		panic("sim: Run called twice")
	}
	w.started = true
	names := make([]string, len(w.procs))
	roles := make([]string, len(w.procs))
	for i := range w.procs {
		names[i], roles[i] = w.procs[i].name, w.procs[i].role
	}
	w.trace = Trace{Seed: w.cfg.Seed, Names: names, Roles: roles, Limits: w.cfg.Limits, world: w}
	w.cfg.Reuse.attach(&w.trace)
	for i := range w.procs {
		w.trace.Clocks = append(w.trace.Clocks, w.procs[i].clock)
	}
	w.net.build(w.streams.Stream("network"), len(w.procs))
	for i := range w.procs {
		s := &w.procs[i]
		s.env = Env{ID: ProcID(i), Name: s.name, Names: names, Rand: w.streams.Stream("proc/" + s.name)}
		s.p = s.newP(s.env)
		ev := w.ev(EvStart, ProcID(i), NoProc)
		w.step(ProcID(i), &Input{Kind: InRestart}, &ev)
	}
}

// stale reports a queued item that no longer stands for anything: a cancelled or
// re-armed timer, or the automatic resume of a pause that a crash ended. Stale items
// are discarded without an event, and no time passes for them.
func (w *World) stale(it *item) bool {
	switch it.kind {
	case itTimer:
		s := &w.procs[it.proc]
		return it.gen != s.gen || !w.timerArmed(s, *it)
	case itResume:
		s := &w.procs[it.proc]
		return it.gen != s.gen || s.state != stPaused || it.slot != s.pauses
	}
	return false
}

// next handles one queued item, or ends the run.
func (w *World) next() {
	for w.q.len() > 0 && w.stale(w.q.peek()) {
		w.q.pop()
	}
	lim := w.cfg.Limits
	switch {
	case w.q.len() == 0:
		w.end(EndQuiescent, "nothing left to happen")
		return
	case w.trace.Len() >= lim.MaxEvents:
		w.end(EndEventLimit, fmt.Sprintf("event limit %d reached", lim.MaxEvents))
		return
	case w.q.len() > lim.MaxQueue:
		w.end(EndQueueLimit, fmt.Sprintf("queue limit %d exceeded", lim.MaxQueue))
		return
	case w.memory() > lim.MaxMemory:
		w.end(EndMemoryLimit, "memory limit "+FormatBytes(lim.MaxMemory)+" reached")
		return
	case w.q.peek().at > Time(lim.MaxTime):
		w.now = Time(lim.MaxTime)
		w.end(EndTimeLimit, "time limit "+FormatDuration(lim.MaxTime)+" reached")
		return
	}
	it := w.q.pop()
	w.now = it.at
	w.dispatch(&it)
}

func (w *World) end(r EndReason, why string) {
	w.ended = true
	if ru := w.cfg.Reuse; ru != nil {
		ru.queue, w.q.items = w.q.items[:0], nil // a world runs once: its queue is done
	}
	w.trace.Actions = w.actions
	w.trace.End = w.now
	w.trace.EndReason = r
	w.record(w.noted(w.ev(EvEnd, NoProc, NoProc), why))
}

func (w *World) dispatch(it *item) {
	switch it.kind {
	case itAction:
		if len(w.clockRestarts) > 0 && !w.clockRestartDue(it) {
			return // a restart by the node's clock, moved since it was queued
		}
		w.act(int(it.slot))
		return
	case itResume:
		w.resume(it.proc, it.gen, -1)
		return
	}
	if it.kind == itDeliver && !it.arrived && w.net.isCut(it.from, it.proc) {
		ev := w.ev(EvDrop, it.proc, it.from)
		ev.msg, ev.MsgID = w.traced(it.slot), it.id
		w.record(w.noted(ev, "partition"))
		w.handled(it.slot)
		return
	}
	s := &w.procs[it.proc]
	if it.gen != s.gen || s.state == stDown {
		w.release(*it)
		return // the process is down, or the incarnation it was meant for crashed
	}
	if it.kind == itTimer && !w.timerArmed(s, *it) {
		return // cancelled or re-armed since it was queued
	}
	if s.state == stPaused {
		it.arrived = true // it crossed the network; the pause only delays handling it
		s.held = append(s.held, *it)
		return
	}
	switch it.kind {
	case itDeliver:
		ev := w.ev(EvDeliver, it.proc, it.from)
		ev.msg, ev.MsgID = w.traced(it.slot), it.id
		// Each delivery gets its own payload: the trace keeps the message as sent,
		// and a duplicate's second delivery does not see what the first changed.
		in := Input{Kind: InMessage, From: it.from}
		w.flyingMsg(it.slot, &in.Msg)
		in.Msg.ownBody()
		w.handled(it.slot)
		w.step(it.proc, &in, &ev)
	case itTimer:
		w.disarm(s, it.timer())
		w.logWall(it.proc, wallDisarm, it.timer(), 0)
		ev := w.ev(EvTimer, it.proc, NoProc)
		ev.Timer = it.timer()
		if n, ok := s.p.(TimerNamer); ok {
			if name := n.TimerName(it.timer()); name != "" {
				ev = w.noted(ev, name)
			}
		}
		if b, ok := s.p.(BackgroundTimers); ok {
			ev.Background = b.BackgroundTimer(it.timer())
		}
		w.step(it.proc, &Input{Kind: InTimer, Timer: it.timer()}, &ev)
	}
}

// release frees what a stale or discarded item holds.
func (w *World) release(it item) {
	if it.kind == itDeliver {
		ev := w.ev(EvDrop, it.proc, it.from)
		ev.msg, ev.MsgID = w.traced(it.slot), it.id
		w.handled(it.slot)
		why := w.procs[it.proc].name + " is down"
		if w.procs[it.proc].state != stDown {
			why = "meant for an earlier incarnation of " + w.procs[it.proc].name
		}
		w.record(w.noted(ev, why))
	}
}

func (w *World) timerArmed(s *procSlot, it item) bool {
	for _, t := range s.timers {
		if t.id == it.timer() {
			return t.seq == it.seq
		}
	}
	return false
}

func (w *World) disarm(s *procSlot, id TimerID) {
	for i := range s.timers {
		if s.timers[i].id == id {
			s.timers = append(s.timers[:i], s.timers[i+1:]...)
			return
		}
	}
}

// step runs one process step: read its clock, record the event, let the process
// handle the input, and apply what it produced.
func (w *World) step(p ProcID, in *Input, ev *Event) {
	s := &w.procs[p]
	idx := w.trace.addEvent(ev)
	w.out.reset()
	w.out.world, w.out.from = w, p
	s.p.Step(ev.Local, *in, &w.out)
	w.apply(p, idx)
	if w.cfg.Snapshots && s.p != nil {
		w.trace.setState(idx, s.p.Describe())
	}
}

// ev starts an event at the current time with no message, note or state.
func (w *World) ev(kind EventKind, proc, peer ProcID) Event {
	e := Event{At: w.now, Kind: kind, Proc: proc, Peer: peer, Action: -1, msg: -1, note: -1, state: -1}
	if proc >= 0 {
		e.Local = w.procs[proc].clock.Read(w.now)
	}
	return e
}

// noted returns e with note s (interned: notes repeat).
func (w *World) noted(e Event, s string) Event {
	e.note = w.trace.internNote(s)
	return e
}

func (w *World) record(ev Event) int { return w.trace.addEvent(&ev) }

func (w *World) apply(p ProcID, idx int) {
	s := &w.procs[p]
	out := &w.out
	if len(out.writes) > 0 || out.fsyncAt >= 0 {
		s.disk.write(w.now, out.writes, out.fsyncAt)
	}
	for _, t := range out.timers {
		w.setTimer(p, t)
	}
	for i := range out.obs {
		o := &out.obs[i]
		o.At, o.Event, o.Proc = w.now, idx, p
		w.trace.addObs(o)
		w.fireTriggers(o)
		if w.holding != nil && (o.Kind == ObsBeliefStart || o.Kind == ObsBeliefEnd) {
			w.holding[Holding{o.Client, o.Lock}] = o.Kind == ObsBeliefStart
		}
	}
}

func (w *World) transmit(from, to ProcID, m *Message) {
	if to < 0 || int(to) >= len(w.procs) {
		panic(fmt.Sprintf("sim: %s sent %q to unknown process %d", w.procs[from].name, m.String(), to))
	}
	w.msgSeq++
	// The send's clock reading is the sender's at this step, which the trace
	// gives back from the clocks (Event.Local): the record keeps none.
	send := Event{At: w.now, Kind: EvSend, Proc: from, Peer: to, Action: -1, note: -1, state: -1}
	slot := w.keep(m)
	send.msg, send.MsgID = w.traced(slot), w.msgSeq
	if w.net.isCut(from, to) {
		w.record(w.noted(send, "not sent: the link is cut"))
		w.recordDrop(&send, "partition")
		w.handled(slot)
		return
	}
	link := w.net.state(from, to)
	at, lost := w.net.arrival(link, w.now)
	if !lost {
		send.Dur = time.Duration(at - w.now)
	}
	w.trace.addEvent(&send)
	if lost {
		w.recordDrop(&send, "loss")
		w.handled(slot)
		return
	}
	w.queueMessage(from, to, slot, send.MsgID, at)
	if w.net.duplicate(link) {
		if at2, lost := w.net.arrival(link, w.now); !lost {
			w.queueMessage(from, to, slot, send.MsgID, at2)
		}
	}
	w.handled(slot) // the reference transmit held while queueing
}

func (w *World) recordDrop(send *Event, why string) {
	drop := w.ev(EvDrop, send.Peer, send.Proc)
	drop.msg, drop.MsgID = send.msg, send.MsgID
	w.record(w.noted(drop, why))
}

// queueMessage queues a delivery of the message in slot.
func (w *World) queueMessage(from, to ProcID, slot int32, id uint64, at Time) {
	w.flying.hold(slot, w.cfg.CheckerOnly)
	w.push(item{at: at, kind: itDeliver, proc: to, from: from,
		gen: w.procs[to].gen, slot: slot, id: id})
}

// Messages on their way. In a full run the trace's message table is also the
// store of messages in flight: a queued delivery names its message by its index
// there. With CheckerOnly the trace keeps no message, and a delivery names a slot
// in w.flying, freed once its last queued delivery is handled.

// keep stores a message just sent and returns its slot.
func (w *World) keep(m *Message) int32 {
	if !w.cfg.CheckerOnly {
		return w.trace.addMsg(m)
	}
	w.trace.countMsg(m) // the same estimate as a full run: the same limits
	return w.flying.put(m)
}

// traced is the trace's index of the message in slot (-1 when it keeps none).
func (w *World) traced(slot int32) int32 {
	if w.cfg.CheckerOnly {
		return -1
	}
	return slot
}

// flyingMsg copies the message in slot into m.
func (w *World) flyingMsg(slot int32, m *Message) {
	if w.cfg.CheckerOnly {
		*m = w.flying.msgs[slot]
		return
	}
	w.trace.message(slot, m)
}

// handled drops one reference to the message in slot: a delivery handled, or
// the sender's own once its deliveries are queued.
func (w *World) handled(slot int32) {
	if w.cfg.CheckerOnly {
		w.flying.release(slot)
	}
}

// inflight is a pool of message slots with reference counts: the sender's while
// it queues, one per queued delivery.
type inflight struct {
	msgs []Message
	refs []int32
	free []int32
}

func (f *inflight) put(m *Message) int32 {
	if n := len(f.free); n > 0 {
		slot := f.free[n-1]
		f.free = f.free[:n-1]
		f.msgs[slot], f.refs[slot] = *m, 1
		return slot
	}
	f.msgs = append(f.msgs, *m)
	f.refs = append(f.refs, 1)
	return int32(len(f.msgs) - 1)
}

func (f *inflight) hold(slot int32, on bool) {
	if on {
		f.refs[slot]++
	}
}

func (f *inflight) release(slot int32) {
	if f.refs[slot]--; f.refs[slot] == 0 {
		f.msgs[slot] = Message{} // let its payload go
		f.free = append(f.free, slot)
	}
}

func (w *World) setTimer(p ProcID, t timerOp) {
	s := &w.procs[p]
	w.disarm(s, t.id)
	if t.cancel || !t.wall {
		w.logWall(p, wallDisarm, t.id, 0)
	} else {
		w.logWall(p, wallArm, t.id, t.after)
	}
	if t.cancel {
		return
	}
	at := activeTimer{id: t.id, wall: t.wall, deadline: t.after}
	if !t.wall {
		at.deadline = satAdd(s.clock.Read(w.now).Mono, t.after)
	}
	s.timers = append(s.timers, at)
	w.armTimer(p, &s.timers[len(s.timers)-1])
}

// armTimer queues the firing of an active timer at the true time its process's
// clock reaches the deadline, as the clock runs now.
func (w *World) armTimer(p ProcID, t *activeTimer) {
	s := &w.procs[p]
	now := s.clock.Read(w.now)
	d := satAdd(t.deadline, -now.Mono)
	if t.wall {
		d = satAdd(t.deadline, -now.Wall)
	}
	w.push(item{at: w.now.Add(s.clock.TrueDuration(d)), kind: itTimer, proc: p, gen: s.gen, id: uint64(t.id)})
	t.seq = w.seq
}

// queueClockRestart queues a restart for the true time at which its process's
// wall clock reads the restart's deadline, by the clock as it runs now (at once
// if it reads later already).
func (w *World) queueClockRestart(r *clockRestart) {
	s := &w.procs[r.proc]
	d := max(satAdd(r.wall, -s.clock.Read(w.now).Wall), 0)
	w.push(item{at: w.now.Add(s.clock.TrueDuration(d)), kind: itAction, proc: r.proc, slot: r.action})
	r.seq = w.seq
}

// requeueClockRestarts moves the restarts waiting for p's clock after it
// jumped or its drift changed; the items queued before become stale.
func (w *World) requeueClockRestarts(p ProcID) {
	for i := range w.clockRestarts {
		if w.clockRestarts[i].proc == p && !w.clockRestarts[i].done {
			w.queueClockRestart(&w.clockRestarts[i])
		}
	}
}

// clockRestartDue reports whether an action item is to run: any but a restart
// by a node's clock, and that one only from its latest queued item, once.
func (w *World) clockRestartDue(it *item) bool {
	for i, r := range w.clockRestarts {
		if r.action == it.slot {
			if r.done || r.seq != it.seq {
				return false
			}
			w.clockRestarts[i].done = true // an item queued before a requeue may still come
			return true
		}
	}
	return true
}

// rearmTimers reschedules a process's timers after its clock changed (a jump moves
// wall timers; a drift change moves all); the items queued before become stale.
func (w *World) rearmTimers(p ProcID, wallOnly bool) {
	s := &w.procs[p]
	for i := range s.timers {
		if s.timers[i].wall || !wallOnly {
			w.armTimer(p, &s.timers[i])
		}
	}
}

func (w *World) fireTriggers(o *Observation) {
	for i := range w.triggers {
		t := &w.triggers[i]
		if t.fired || !t.match.matches(o) {
			continue
		}
		t.fired = true
		if w.actions[t.action].Kind == ActNote && t.after == 0 {
			w.act(t.action) // a note belongs right with the step it is about
			continue
		}
		w.push(item{at: w.now.Add(t.after), kind: itAction, proc: w.actions[t.action].Proc, slot: int32(t.action)})
	}
}

// ticks reports whether a repeating workload's tick happens: its process is
// running, and its condition, if any, holds now.
func (w *World) ticks(a *Action) bool {
	if a.Proc >= 0 && w.procs[a.Proc].state != stUp {
		return false
	}
	return a.While == nil || w.holding[*a.While]
}

// act carries out a scheduled action.
func (w *World) act(i int) {
	a := &w.actions[i]
	if a.Every > 0 {
		if next := w.now.Add(a.Every); a.Until == 0 || next < a.Until {
			w.push(item{at: next, kind: itAction, proc: a.Proc, slot: int32(i)})
		}
		if !w.ticks(a) {
			return
		}
	}
	ev := w.ev(0, a.Proc, NoProc)
	ev.Action = int32(i)
	var s *procSlot
	if a.Proc >= 0 {
		s = &w.procs[a.Proc]
		ev.Local = s.clock.Read(w.now)
	}
	switch a.Kind {
	case ActCommand:
		ev.Kind = EvCommand
		if w.cfg.CheckerOnly {
			w.trace.countMsg(&a.Msg)
		} else {
			ev.msg = w.trace.addMsg(&a.Msg)
		}
		switch s.state {
		case stDown:
			w.record(w.noted(ev, "ignored: "+s.name+" is down"))
		case stPaused:
			w.record(w.noted(ev, "queued: "+s.name+" is paused"))
			s.held = append(s.held, item{at: w.now, kind: itAction, proc: a.Proc, gen: s.gen, slot: int32(i)})
		default:
			w.step(a.Proc, &Input{Kind: InCommand, Msg: a.Msg.Clone()}, &ev)
		}
	case ActCrash, ActPowerLoss:
		ev.Kind = EvCrash
		if s.state == stDown {
			w.record(w.noted(ev, NoteAlreadyDown))
			return
		}
		if a.Kind == ActPowerLoss {
			ev.Kind = EvPowerLoss
			ev = w.noted(ev, fmt.Sprintf("%d unsynced records lost", s.disk.powerLoss(w.now)))
		}
		w.record(ev)
		w.kill(a.Proc)
	case ActShutdown:
		ev.Kind = EvShutdown
		if s.state == stDown {
			w.record(w.noted(ev, NoteAlreadyDown))
			return
		}
		if s.state == stPaused {
			s.state = stUp // a stopped process is woken to shut down
		}
		w.step(a.Proc, &Input{Kind: InShutdown}, &ev)
		w.kill(a.Proc)
		s.disk.syncAll()
	case ActRestart:
		if a.Dur > 0 {
			later := *a
			later.Dur, later.NodeClock = 0, false
			slot := int32(w.addAction(later))
			if a.NodeClock {
				w.clockRestarts = append(w.clockRestarts, clockRestart{proc: a.Proc, action: slot,
					wall: satAdd(ev.Local.Wall, a.Dur)})
				w.queueClockRestart(&w.clockRestarts[len(w.clockRestarts)-1])
				return
			}
			w.push(item{at: w.now.Add(a.Dur), kind: itAction, proc: a.Proc, slot: slot})
			return
		}
		if s.state != stDown {
			// Restarting a running process crashes it first, visibly: the checker
			// must see the crash end its beliefs.
			crash := ev
			crash.Kind = EvCrash
			how := "running"
			if s.state == stPaused {
				how = "paused"
			}
			w.record(w.noted(crash, "restarted while "+how))
			w.kill(a.Proc)
		}
		recs := s.disk.Records()
		ev.Kind = EvRestart
		ev = w.noted(ev, fmt.Sprintf(NoteRecovers, len(recs)))
		s.state = stUp
		s.gen++ // messages sent to the process while it was down are not for this incarnation
		s.env.Incarnation++
		s.p = s.newP(s.env)
		w.step(a.Proc, &Input{Kind: InRestart, Disk: recs}, &ev)
	case ActPause:
		ev.Kind, ev.Dur = EvPause, a.Dur
		if s.state != stUp {
			w.record(w.noted(ev, NoteNotRunning))
			return
		}
		s.state = stPaused
		s.pauses++
		w.record(ev)
		if a.Dur > 0 {
			w.push(item{at: w.now.Add(a.Dur), kind: itResume, proc: a.Proc, gen: s.gen, slot: s.pauses})
		}
	case ActResume:
		w.resume(a.Proc, s.gen, int32(i))
	case ActJump:
		s.clock.Jump(a.Dur)
		ev.Kind, ev.Dur = EvClockJump, a.Dur
		ev.Local = s.clock.Read(w.now)
		w.trace.clockChanged(a.Proc, w.record(ev), s.clock)
		w.rearmTimers(a.Proc, true)
		w.requeueClockRestarts(a.Proc)
	case ActDrift:
		s.clock.SetDrift(w.now, a.PPM)
		ev.Kind, ev.Dur = EvClockDrift, time.Duration(a.PPM) // the new rate, for Trace.ClockAt
		w.trace.clockChanged(a.Proc, w.record(w.noted(ev, fmt.Sprintf("drift now %+d ppm", a.PPM))), s.clock)
		w.rearmTimers(a.Proc, false)
		w.requeueClockRestarts(a.Proc)
	case ActPartition:
		for _, x := range a.A {
			for _, y := range a.B {
				w.net.setCut(x, y, true)
				if !a.OneWay {
					w.net.setCut(y, x, true)
				}
			}
		}
		ev.Kind = EvPartition
		w.record(w.noted(ev, w.sides(a)))
	case ActLink:
		for _, x := range a.A {
			for _, y := range a.B {
				w.net.setLive(x, y, a.Link)
				if !a.OneWay {
					w.net.setLive(y, x, a.Link)
				}
			}
		}
		ev.Kind = EvLink
		arrow := " <-> "
		if a.OneWay {
			arrow = " -> "
		}
		w.record(w.noted(ev, w.names(a.A)+arrow+w.names(a.B)+": "+a.Link.String()))
	case ActHeal:
		w.net.healAll()
		ev.Kind = EvHeal
		w.record(w.noted(ev, "every link restored"))
	case ActNote:
		ev.Kind = EvNote
		w.record(ev)
	case ActStop:
		w.end(EndUntil, "the scenario ends here")
	default:
		panic(fmt.Sprintf("sim: unknown action kind %d", a.Kind))
	}
}

func (w *World) sides(a *Action) string {
	if a.OneWay {
		return w.names(a.A) + " -> " + w.names(a.B) + " cut (one way)"
	}
	return w.names(a.A) + " | " + w.names(a.B)
}

// names joins processes' names with commas.
func (w *World) names(ps []ProcID) string {
	n := make([]string, len(ps))
	for i, p := range ps {
		n[i] = w.procs[p].name
	}
	return strings.Join(n, ",")
}

// kill takes a process down: memory, timers and queued inputs are gone.
func (w *World) kill(p ProcID) {
	s := &w.procs[p]
	held := s.held
	s.held = nil
	for _, it := range held {
		w.release(it)
	}
	s.timers = s.timers[:0]
	w.logWall(p, wallClear, 0, 0)
	s.state = stDown
	s.p = nil
	s.gen++
	for h := range w.holding { // a crash ends every belief (the checker reads the crash, not a report)
		if h.Client == p {
			delete(w.holding, h)
		}
	}
}

func (w *World) resume(p ProcID, gen uint32, action int32) {
	s := &w.procs[p]
	if s.state != stPaused || s.gen != gen {
		return
	}
	s.state = stUp
	ev := w.ev(EvResume, p, NoProc)
	ev.Action = action
	w.record(w.noted(ev, fmt.Sprintf("%d queued inputs", len(s.held))))
	held := append([]item(nil), s.held...)
	s.held = s.held[:0]
	for _, it := range held {
		if s.state != stUp {
			// An input handled during the resume crashed or paused the process again.
			if s.state == stPaused {
				s.held = append(s.held, it)
			} else {
				w.release(it)
			}
			continue
		}
		it.at = w.now
		if it.kind == itAction {
			w.act(int(it.slot))
			continue
		}
		w.dispatch(&it)
	}
}

// Now is the current true time (for tests and the runner).
func (w *World) Now() Time { return w.now }

// Names lists the processes' names, by ProcID.
func (w *World) Names() []string {
	out := make([]string, len(w.procs))
	for i := range w.procs {
		out[i] = w.procs[i].name
	}
	return out
}

// ProcName returns a process's name.
func (w *World) ProcName(p ProcID) string { return w.procs[p].name }
