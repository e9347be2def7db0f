package sim

import "time"

// ActionKind names something a scenario makes happen: a command to a client or a
// fault. Faults are data, so a schedule can be written out, shrunk and replayed.
type ActionKind uint8

const (
	ActCommand   ActionKind = iota + 1 // deliver Msg to Proc as a command
	ActCrash                           // Proc crashes
	ActPowerLoss                       // Proc's machine loses power
	ActShutdown                        // Proc shuts down cleanly
	ActRestart                         // Proc restarts, after Dur
	ActPause                           // Proc pauses for Dur (0: until ActResume)
	ActResume                          // Proc resumes
	ActJump                            // Proc's wall clock jumps by Dur
	ActDrift                           // Proc's clock drift becomes PPM
	ActPartition                       // cut links between group A and group B
	ActHeal                            // restore every cut link
	ActStop                            // end the run here
	ActLink                            // links from A to B (and back unless OneWay) behave as Link from now on
	ActNote                            // the scenario's note: Narration at this moment; changes nothing
)

// Action is one scheduled command or fault.
type Action struct {
	Kind ActionKind    // what happens
	Proc ProcID        // the process it happens to (a command's client, a fault's victim)
	Msg  Message       // a command: what the client is told to do ({Op: "acquire", Key: "L"})
	Dur  time.Duration // restart: after how long; pause: for how long; clock jump: by how much
	// NodeClock: a restart's Dur is counted by Proc's own wall clock (a
	// supervisor on its machine, clock=node), not by true time, so a jump or
	// a drift of that clock while the process is down moves the restart.
	NodeClock bool
	PPM       int64    // drift: the clock's new drift in parts per million
	A, B      []ProcID // partition sides
	OneWay    bool     // partition, link: only A's messages to B
	Link      Link     // link: the new settings
	Label     string   // its text as the scenario wrote it
	Narration string   // the scenario's comment for this step
	// Question is the scenario's question for this step: a walk asks it before
	// it shows what the step leads to and its narration (the answer).
	Question string
	Line     int // scenario line, for messages
	// Every, when above 0, repeats the action every Every of true time from
	// its first time on, while the next time is before Until (0: until the
	// run ends: its run until= or a limit stops it). A repeating workload (a
	// scenario's every line) is the application's own loop, not a command
	// from outside, so a time is skipped, with no event, when the action's
	// process is paused or down (a frozen application issues nothing, where
	// a command from outside would wait for it), and when While is set and
	// not met. The repeats share the action's index.
	Every time.Duration
	// Until, with Every, is the end of the repeats: a time at or after it is
	// not queued (0: none before the run's end).
	Until Time
	// While, with Every, is each time's condition: its client believes, at
	// that time, that it holds the lock.
	While *Holding
}

// Holding is a condition on a client's belief: Client believes it holds Lock
// (its latest report for the lock is a belief start, not an end).
type Holding struct {
	Client ProcID // the client whose belief is asked about
	Lock   string // the lock it must believe it holds
}

// Match selects observations that fire a trigger. A zero field matches anything
// (NoProc for the process fields).
type Match struct {
	Kind   ObsKind // the observation's kind (never zero: a trigger names what it waits for)
	Proc   ProcID  // the emitting process
	Client ProcID  // the client the observation is about
	Lock   string  // the lock, key or resource
	Name   string  // a counter's name (ObsCounter: "elections")
}

func (m Match) matches(o *Observation) bool {
	return o.Kind == m.Kind && (m.Proc == NoProc || m.Proc == o.Proc) &&
		(m.Client == NoProc || m.Client == o.Client) && (m.Lock == "" || m.Lock == o.Lock) &&
		(m.Name == "" || m.Name == o.Name)
}

type trigger struct {
	match  Match
	after  time.Duration
	action int
	fired  bool
}
