package zookeeper

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of the guaranteed delete on its own (release.go): after a reconnection
// the client deletes a released node again only if the node of that name is
// still the one it created, by its czxid. Two scripted servers stand in for
// the ensemble: z1 takes c1's lock node and then answers nothing (its delete
// among it), so c1 reconnects to z2, which shows the name with a czxid.

const ownCzxid = 5

// scriptedServer answers the recipe's requests as a server of one session
// would; once the client has released (its first DELETE) it answers nothing
// if mute. exists shows /L/lock-0000000000 with czxid.
type scriptedServer struct {
	mute     bool
	czxid    int64
	released bool
}

func (s *scriptedServer) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind != sim.InMessage {
		return
	}
	m := in.Msg
	if m.Op == OpDelete {
		s.released = true
	}
	if s.mute && s.released {
		return
	}
	reply := sim.Message{ID: m.ID, Key: m.Key}
	switch m.Op {
	case OpConnect:
		reply = reply.With(ArgSession, 1).With(ArgTimeout, 3000)
		reply.Op = RepConnected
	case OpPing:
		reply.Op = RepPong
	case OpCreate:
		reply = reply.With(ArgZxid, ownCzxid)
		reply.Op, reply.Key = RepCreated, "/L/lock-0000000000"
	case OpGetChildren:
		reply.Op, reply.Body = RepChildren, childList{"lock-0000000000"}
	case OpExists:
		reply = reply.With(ArgZxid, s.czxid)
		reply.Op = RepStat
	case OpDelete:
		reply.Op = RepDeleted
	}
	out.Send(in.From, reply)
}

func (s *scriptedServer) Describe() string { return "scripted" }

// resentDeletes runs c1 against z1 (which goes mute after c1's release) and
// z2 (which shows the name with czxid), and returns the DELETEs c1 sends z2
// and c1's notes.
func resentDeletes(t *testing.T, czxid int64) (deletes int, notes []string) {
	t.Helper()
	w := sim.NewWorld(sim.Config{Seed: 1})
	z1 := w.AddProcess("z1", "zookeeper", sim.Clock{}, func(sim.Env) sim.Process { return &scriptedServer{mute: true} })
	z2 := w.AddProcess("z2", "zookeeper", sim.Clock{}, func(sim.Env) sim.Process { return &scriptedServer{czxid: czxid} })
	c := w.AddProcess("c1", "client", sim.Clock{}, NewClient(ClientConfig{Servers: []sim.ProcID{z1, z2}, SessionTimeout: 3 * time.Second}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(sim.Time(100*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: CmdAcquire, Key: "L"}})
	w.Schedule(sim.Time(500*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: CmdRelease, Key: "L"}})
	w.Schedule(sim.Time(10*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvSend && e.Proc == c && e.Peer == z2 && tr.Msg(e).Op == OpDelete {
			deletes++
		}
	}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && o.Proc == c {
			notes = append(notes, o.Text)
		}
	}
	if !strings.Contains(strings.Join(notes, "\n"), "c1 lost its connection") {
		t.Fatalf("c1 never lost its connection to mute z1: %q", notes)
	}
	return deletes, notes
}

// A node of another czxid under the name is not c1's: its own was deleted
// (its delete was committed unanswered) and the name issued again. c1 asks,
// and deletes nothing.
func TestReleaseAfterAReconnectionSparesANodeOfTheSameName(t *testing.T) {
	deletes, notes := resentDeletes(t, ownCzxid+4)
	if deletes != 0 {
		t.Errorf("c1 sent %d DELETEs to z2, where /L/lock-0000000000 is another node (czxid 0x9)", deletes)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "the name is another node's now") {
		t.Errorf("no note that c1 forgets its delete: %q", notes)
	}
}

// The node under the name is still c1's (its czxid): c1 deletes it, once, and
// the answer ends the delete.
func TestReleaseAfterAReconnectionDeletesItsOwnNode(t *testing.T) {
	if deletes, _ := resentDeletes(t, ownCzxid); deletes != 1 {
		t.Errorf("c1 sent %d DELETEs to z2, where /L/lock-0000000000 is still its node: want 1", deletes)
	}
}
