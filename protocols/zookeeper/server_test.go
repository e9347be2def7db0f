package zookeeper_test

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
)

// The ZooKeeper API's delete(path, version): it succeeds only when the node has
// that version (-1: any), else BADVERSION; a missing node is NONODE (ZooKeeper
// programmer's guide).

type driver struct {
	session int64
}

func (d *driver) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		out.Send(0, sim.Message{Op: zookeeper.OpConnect, ID: 1}.WithN(0).WithM(4000))
	case sim.InCommand:
		m := in.Msg
		m.N, m.HasN = d.session, true
		out.Send(0, m)
	case sim.InMessage:
		if in.Msg.Op == zookeeper.RepConnected {
			d.session = in.Msg.N
		}
		out.Observe(sim.Note(sim.NoProc, "%s", in.Msg.Op+" "+in.Msg.Value))
	}
}
func (d *driver) Describe() string { return "" }

func TestDeleteWithVersion(t *testing.T) {
	w := sim.NewWorld(sim.Config{})
	w.AddProcess("z1", "zookeeper", sim.Clock{}, zookeeper.NewServer(zookeeper.ServerConfig{Servers: []sim.ProcID{0}}))
	w.AddProcess("d", "client", sim.Clock{}, func(sim.Env) sim.Process { return &driver{} })
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	at := func(ms int, m sim.Message) {
		w.Schedule(sim.Time(time.Duration(ms)*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: 1, Msg: m})
	}
	at(10, sim.Message{Op: zookeeper.OpCreate, Key: "/L/n-", Opts: "EPHEMERAL SEQUENTIAL"})
	at(20, sim.Message{Op: zookeeper.OpDelete, Key: "/L/n-0000000000"}.WithM(3))
	at(30, sim.Message{Op: zookeeper.OpDelete, Key: "/L/n-0000000000"}.WithM(0))
	at(40, sim.Message{Op: zookeeper.OpDelete, Key: "/L/n-0000000000"})
	var got []string
	for _, o := range w.Run().Obs {
		if o.Kind == sim.ObsNote && o.Proc == 1 {
			got = append(got, o.Text)
		}
	}
	want := []string{"CONNECTED ", "CREATED ", "ERROR BADVERSION", "DELETED ", "ERROR NONODE"}
	if !slices.Equal(got, want) {
		t.Fatalf("replies %q, want %q", got, want)
	}
}
