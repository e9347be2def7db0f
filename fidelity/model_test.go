package fidelity

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// The model side: a conductor process plays a case's script in a sim.World as
// the live runner plays it against a server, one driver process per
// connection. The conductor's own links are instant; the drivers' links to
// the servers are the world's (instant unless a system says otherwise).

// Messages between the conductor and the drivers.
const (
	opDo    = "do"    // conductor -> driver: send this command (Value)
	opReply = "reply" // driver -> conductor: the answer to the command (Value)
	opEvent = "event" // driver -> conductor: something the server sent unasked (a watch)
)

// A conn is one connection's client side in the model, inside a driver.
type conn interface {
	// do sends a script command the way a client would, or answers it at once
	// through d (an error a real client or server gives before running it).
	do(d *driver, now sim.LocalTime, cmd string, out *sim.Outputs)
	// step handles everything else the driver gets: the server's messages,
	// its own timers, its restart.
	step(d *driver, now sim.LocalTime, in sim.Input, out *sim.Outputs)
}

// driver is one connection: it hands the conductor's commands to its conn and
// the conn's answers back.
type driver struct {
	env    sim.Env
	boss   sim.ProcID
	server sim.ProcID
	conn   conn
}

func (d *driver) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind == sim.InMessage && in.From == d.boss {
		d.conn.do(d, now, in.Msg.Value, out)
		return
	}
	d.conn.step(d, now, in, out)
}

func (d *driver) Describe() string { return "" }

func (d *driver) answer(out *sim.Outputs, text string) {
	out.Send(d.boss, sim.Message{Op: opReply, Value: text})
}

func (d *driver) event(out *sim.Outputs, text string) {
	out.Send(d.boss, sim.Message{Op: opEvent, Value: text})
}

// A modelWorld is a case's world being built: its servers by name, and how a
// connection to each is made.
type modelWorld struct {
	w       *sim.World
	servers map[string]sim.ProcID
	def     string // the server a connection without "@" talks to
	newConn func(server string) conn
}

func newModelWorld() *modelWorld {
	w := sim.NewWorld(sim.Config{Seed: 1})
	w.Network().SetDefault(sim.Link{})
	return &modelWorld{w: w, servers: map[string]sim.ProcID{}}
}

func (mw *modelWorld) addServer(name, role string, p func(sim.Env) sim.Process) sim.ProcID {
	id := mw.w.AddProcess(name, role, sim.Clock{}, p)
	mw.servers[name] = id
	if mw.def == "" {
		mw.def = name
	}
	return id
}

// run plays the steps and returns the transcript.
func (mw *modelWorld) run(steps []step) (transcript, error) {
	var conns []step // each connection's first step, in order, so the world is the same each run
	seen := map[string]bool{}
	for _, s := range steps {
		if s.verb == "close" {
			s.conn = s.arg
		}
		if s.conn == "" || seen[s.conn] {
			continue
		}
		if _, ok := mw.servers[s.server(mw.def)]; !ok {
			return nil, fmt.Errorf("%s: no server %s", s.text, s.server(mw.def))
		}
		seen[s.conn] = true
		conns = append(conns, s)
	}
	drivers := map[string]sim.ProcID{}
	res := &conductor{steps: steps, drivers: drivers}
	boss := mw.w.AddProcess("conductor", "test", sim.Clock{}, func(env sim.Env) sim.Process {
		res.env = env
		return res
	})
	for _, s := range conns {
		server := s.server(mw.def)
		c, srv := mw.newConn(server), mw.servers[server]
		drivers[s.conn] = mw.w.AddProcess(s.conn, "client", sim.Clock{}, func(env sim.Env) sim.Process {
			return &driver{env: env, boss: boss, server: srv, conn: c}
		})
	}
	for i, s := range steps {
		if s.verb == "" || s.verb == "sleep" {
			continue
		}
		a, err := mw.action(s, drivers)
		if err != nil {
			return nil, err
		}
		mw.w.When(sim.Match{Kind: sim.ObsNote, Proc: boss, Client: sim.NoProc, Lock: stepTag(i)}, 0, a)
	}
	mw.w.When(sim.Match{Kind: sim.ObsNote, Proc: boss, Client: sim.NoProc, Lock: stepTag(len(steps))}, 0,
		sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := mw.w.Run()
	if tr.EndReason != sim.EndUntil {
		return nil, fmt.Errorf("the model's run ended (%s) at %s, before the script did", tr.EndReason, sim.FormatDuration(tr.EndDuration()))
	}
	return res.results, nil
}

func stepTag(i int) string { return fmt.Sprintf("step %d", i) }

// action is what an action step does in the model.
func (mw *modelWorld) action(s step, drivers map[string]sim.ProcID) (sim.Action, error) {
	proc, ok := mw.servers[s.arg]
	if s.verb == "close" {
		proc, ok = drivers[s.arg]
	}
	if !ok {
		return sim.Action{}, fmt.Errorf("%s: no such process", s.text)
	}
	kinds := map[string]sim.ActionKind{"crash": sim.ActCrash, "restart": sim.ActRestart, "shutdown": sim.ActShutdown,
		"pause": sim.ActPause, "resume": sim.ActResume, "close": sim.ActCrash}
	return sim.Action{Kind: kinds[s.verb], Proc: proc, Label: s.text}, nil
}

// Conductor timers.
const (
	timerNext sim.TimerID = iota + 1 // start the next step
	timerBlock
	timerGrace
)

// conductor plays a script, one step at a time, and writes down what comes back.
type conductor struct {
	env     sim.Env
	steps   []step
	drivers map[string]sim.ProcID
	i       int
	waiting bool // the step awaits its own answer
	used    int  // connections used so far
	opened  map[string]bool
	now     arrival
	results transcript
}

func (c *conductor) Describe() string { return "" }

func (c *conductor) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		c.opened = map[string]bool{}
		c.i = -1
		c.next(out)
	case sim.InTimer:
		switch in.Timer {
		case timerNext:
			c.next(out)
		case timerBlock:
			c.waiting = false
			c.end(out)
		case timerGrace:
			c.end(out)
		}
	case sim.InMessage:
		name := c.env.Names[in.From]
		c.now.add(name, in.Msg.Value)
		if in.Msg.Op != opReply {
			return
		}
		if c.waiting && name == c.steps[c.i].conn {
			c.waiting = false
			out.CancelTimer(timerBlock)
			if c.used > 1 {
				out.SetTimer(timerGrace, grace) // what the command set off at the others
				return
			}
			c.end(out)
		}
	}
}

// next records the step that ended (with what came during the gap after it)
// and starts the next one.
func (c *conductor) next(out *sim.Outputs) {
	if c.i >= 0 {
		c.results = append(c.results, result{step: c.steps[c.i].text, replies: c.now.replies()})
	}
	c.i++
	if c.i == len(c.steps) {
		out.Observe(sim.Observation{Kind: sim.ObsNote, Client: sim.NoProc, By: sim.NoProc, Lock: stepTag(c.i)})
		return
	}
	s := c.steps[c.i]
	c.now = arrival{own: s.conn}
	switch {
	case s.conn != "":
		if !c.opened[s.conn] {
			c.opened[s.conn] = true
			c.used++
		}
		c.waiting = true
		out.Send(c.drivers[s.conn], sim.Message{Op: opDo, Value: s.cmd})
		out.SetTimer(timerBlock, blockWait)
	case s.verb == "sleep":
		out.SetTimer(timerNext, s.dur)
	default:
		out.Observe(sim.Observation{Kind: sim.ObsNote, Client: sim.NoProc, By: sim.NoProc, Lock: stepTag(c.i), Text: s.text})
		out.SetTimer(timerNext, grace+stepGap) // what the action sets off comes during it
	}
}

// end ends the wait of a command step; the next step starts after the gap.
func (c *conductor) end(out *sim.Outputs) { out.SetTimer(timerNext, stepGap) }
