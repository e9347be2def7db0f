package zookeeper

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// The server's tests drive an ensemble at the level of the ZooKeeper API,
// with no lock recipe: drivers connect, create, delete and watch as scripted,
// and the tests read their replies, the servers' notes and their states.

// ensemble is a test world: servers z1..zN (z1 leads a fresh ensemble), then
// drivers d1, d2, ... each connected to one server.
type ensemble struct {
	w       *sim.World
	servers []sim.ProcID
	drivers []sim.ProcID
}

func newEnsemble(n int, cfg ServerConfig) *ensemble {
	e := &ensemble{w: sim.NewWorld(sim.Config{Seed: 1, Snapshots: true,
		Limits: sim.Limits{MaxEvents: 200_000, MaxTime: 20 * time.Second, MaxQueue: 10_000}})}
	for i := range n {
		e.servers = append(e.servers, sim.ProcID(i))
	}
	cfg.Servers = e.servers
	for i := range n {
		e.w.AddProcess(fmt.Sprintf("z%d", i+1), "zookeeper", sim.Clock{}, NewServer(cfg))
	}
	e.w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	return e
}

// driver adds a driver connected to server i, asking for a session timeout;
// it pings every ping (0: never).
func (e *ensemble) driver(i int, timeout, ping time.Duration) sim.ProcID {
	srv := e.servers[i]
	d := e.w.AddProcess(fmt.Sprintf("d%d", len(e.drivers)+1), "client", sim.Clock{}, func(sim.Env) sim.Process {
		return &driver{server: srv, timeout: timeout, ping: ping}
	})
	e.drivers = append(e.drivers, d)
	return d
}

// at has driver d send m at a time, in its session.
func (e *ensemble) at(at time.Duration, d sim.ProcID, m sim.Message) {
	e.w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: d, Msg: m})
}

func (e *ensemble) act(at time.Duration, a sim.Action) { e.w.Schedule(sim.Time(at), a) }

// driver is a bare ZooKeeper client: it connects to its server at start and
// sends what it is commanded in its session. Each reply it gets becomes a
// note: "CREATED /L/n-0000000000", "ERROR BADVERSION", "WATCH /a NodeCreated".
type driver struct {
	server  sim.ProcID
	timeout time.Duration
	ping    time.Duration
	session int64
}

const timerDriverPing sim.TimerID = 1

func (d *driver) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		out.Send(d.server, sim.Message{Op: OpConnect, ID: 1}.With(ArgSession, 0).With(ArgTimeout, d.timeout.Milliseconds()))
		if d.ping > 0 {
			out.SetTimer(timerDriverPing, d.ping)
		}
	case sim.InTimer:
		out.Send(d.server, sim.Message{Op: OpPing}.With(ArgSession, d.session))
		out.SetTimer(timerDriverPing, d.ping)
	case sim.InCommand:
		out.Send(d.server, in.Msg.With(ArgSession, d.session))
	case sim.InMessage:
		m := in.Msg
		if m.Op == RepPong {
			return
		}
		if m.Op == RepConnected {
			d.session = m.Num(ArgSession)
		}
		out.Observe(sim.Note(sim.NoProc, "%s", strings.Join(strings.Fields(m.Op+" "+m.Key+" "+m.Value+" "+m.Opts), " ")))
	}
}

func (d *driver) Describe() string { return "" }

// replies are the notes of process p, in order.
func replies(tr *sim.Trace, p sim.ProcID) []string {
	var got []string
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && o.Proc == p {
			got = append(got, o.Text)
		}
	}
	return got
}

// notes are the notes containing text, with their true times.
func notes(tr *sim.Trace, text string) []string {
	var got []string
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && strings.Contains(o.Text, text) {
			got = append(got, fmt.Sprintf("%s %s", o.At, o.Text))
		}
	}
	return got
}

// lastState is a process's last described state.
func lastState(tr *sim.Trace, name string) string {
	s := ""
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Proc >= 0 && tr.Names[e.Proc] == name {
			if st := tr.State(e); st != "" {
				s = st
			}
		}
	}
	return s
}

var statePrefix = regexp.MustCompile(`^\w+ \(epoch \d+, leader \w+\), `)

// data is a server's replicated state as Describe shows it: its last zxid and
// its znodes, without its role.
func data(tr *sim.Trace, name string) string {
	return statePrefix.ReplaceAllString(lastState(tr, name), "")
}

// sameData fails unless every server ends with the same data.
func sameData(t *testing.T, tr *sim.Trace, names ...string) {
	t.Helper()
	for _, n := range names[1:] {
		if data(tr, n) != data(tr, names[0]) {
			t.Errorf("%s and %s differ:\n %s\n %s", names[0], n, lastState(tr, names[0]), lastState(tr, n))
		}
	}
}

// The ZooKeeper API's delete(path, version): it succeeds only when the node has
// that version (-1: any), else BADVERSION; a missing node is NONODE (ZooKeeper
// programmer's guide).
func TestDeleteWithVersion(t *testing.T) {
	e := newEnsemble(1, ServerConfig{})
	d := e.driver(0, 4*time.Second, 0)
	e.at(10*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/L/n-", Opts: "EPHEMERAL SEQUENTIAL"})
	e.at(20*time.Millisecond, d, sim.Message{Op: OpDelete, Key: "/L/n-0000000000"}.With(ArgVersion, 3))
	e.at(30*time.Millisecond, d, sim.Message{Op: OpDelete, Key: "/L/n-0000000000"}.With(ArgVersion, 0))
	e.at(40*time.Millisecond, d, sim.Message{Op: OpDelete, Key: "/L/n-0000000000"})
	got := replies(e.w.Run(), d)
	want := []string{"CONNECTED", "CREATED /L/n-0000000000", "ERROR /L/n-0000000000 BADVERSION",
		"DELETED /L/n-0000000000", "ERROR /L/n-0000000000 NONODE"}
	if !slices.Equal(got, want) {
		t.Fatalf("replies %q, want %q", got, want)
	}
}
