package sim

import (
	"math/rand/v2"
	"time"
)

// ProcID identifies a process within one world: its index, in the order added.
type ProcID int32

// Process is every simulated participant: a pure state machine. Given its own clock
// reading and one input it appends its outputs to out, which the kernel owns and
// reuses, so a step allocates nothing on its own account. A process never sees true
// time or another process's state except through messages.
type Process interface {
	// Step handles one input: now is the process's own clock reading (never
	// true time), in what woke it; everything it does goes into out.
	Step(now LocalTime, in Input, out *Outputs)
	// Describe is the process's state as text, for per-step snapshots.
	Describe() string
}

// TimerNamer is implemented by processes that name their timers for the log.
type TimerNamer interface {
	// TimerName is the timer's name in the log ("validity", "retry"), or "".
	TimerName(TimerID) string
}

// BackgroundTimers is implemented by processes some of whose timers only keep
// something alive (a heartbeat, a session ping, a keepalive): the kernel marks
// their firing as background (Event.Background), as the protocol marks the
// messages such a timer sends (Message.Background).
type BackgroundTimers interface {
	// BackgroundTimer reports whether the timer only keeps something alive.
	BackgroundTimer(TimerID) bool
}

// Env is what a process is told about itself when it is created (or re-created after
// a crash: a crash loses memory, so the kernel builds a fresh process each time).
type Env struct {
	ID    ProcID     // this process's ID: what others send to, what observations name
	Name  string     // its name in the scenario ("c1", "r1")
	Names []string   // every process's name, indexed by ProcID
	Rand  *rand.Rand // this process's own stream; it survives restarts
	// Incarnation counts restarts: 0 for the first run. A process that must make
	// values unique across its own crashes (a lock's random value) uses it.
	Incarnation int
}

// Lookup returns the ID of the process called name, or NoProc.
func (e Env) Lookup(name string) ProcID {
	for i, n := range e.Names {
		if n == name {
			return ProcID(i)
		}
	}
	return NoProc
}

// InputKind says what woke a process.
type InputKind uint8

const (
	InMessage  InputKind = iota + 1 // a message delivered from From
	InTimer                         // timer Timer fired
	InCommand                       // the scenario commands a client (Msg)
	InRestart                       // the process starts again; Disk holds what survived
	InShutdown                      // a clean shutdown: persist what must survive
)

// TimerID is chosen by the process; setting a timer with the same ID replaces it.
type TimerID uint64

// Input is one thing a process handles in one step.
type Input struct {
	Kind  InputKind // what woke the process
	From  ProcID    // InMessage: the sender
	Msg   Message   // InMessage: the message; InCommand: the command ({Op: "acquire", Key: "L"})
	Timer TimerID   // InTimer: which timer fired
	Disk  []Message // InRestart: the records that survived, oldest first
}

// Outputs collects what one step produces. Sends go out as the step makes them
// (the kernel records each and queues its delivery at once: a message is not
// copied again); the rest is applied after the step in this order: disk
// writes, timers, observations.
type Outputs struct {
	world   *World // the world the step runs in (nil outside one: nothing is sent)
	from    ProcID // the stepping process
	timers  []timerOp
	obs     []Observation
	writes  []Message
	fsyncAt int // number of this step's writes covered by an fsync, or -1
}

type timerOp struct {
	id     TimerID
	after  time.Duration // monotonic delay, or the wall deadline when wall is set
	wall   bool
	cancel bool
}

func (o *Outputs) reset() {
	o.timers, o.obs, o.writes = o.timers[:0], o.obs[:0], o.writes[:0]
	o.fsyncAt = -1
}

// Send sends m to process to over the network. What is sent is m as it is now:
// the kernel takes its own copy of the payload (Message.Clone).
func (o *Outputs) Send(to ProcID, m Message) {
	m.ownBody() // even outside a world: a payload that would be shared is refused
	if o.world != nil {
		o.world.transmit(o.from, to, &m)
	}
}

// SetTimer (re)arms timer id to fire after d of this process's monotonic clock.
func (o *Outputs) SetTimer(id TimerID, d time.Duration) {
	o.timers = append(o.timers, timerOp{id: id, after: d})
}

// SetWallTimer (re)arms timer id to fire when this process's wall clock reaches
// deadline, like an absolute CLOCK_REALTIME timer: a clock jump past the deadline
// fires it at once. Redis uses it for key expiry, which follows the wall clock.
func (o *Outputs) SetWallTimer(id TimerID, deadline time.Duration) {
	o.timers = append(o.timers, timerOp{id: id, after: deadline, wall: true})
}

// CancelTimer disarms timer id, if armed.
func (o *Outputs) CancelTimer(id TimerID) { o.timers = append(o.timers, timerOp{id: id, cancel: true}) }

// Observe reports a fact for the checker and the timeline.
func (o *Outputs) Observe(ob Observation) { o.obs = append(o.obs, ob) }

// Write hands a record to the operating system: it survives a process crash, but a
// power loss only once it has been fsynced (or the OS has flushed it). The disk
// keeps the record as it is now (Message.Clone).
func (o *Outputs) Write(rec Message) { o.writes = append(o.writes, rec.Clone()) }

// Fsync makes every record written so far durable.
func (o *Outputs) Fsync() { o.fsyncAt = len(o.writes) }
