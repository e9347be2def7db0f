package tui

import (
	"runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// pinger is a process for the synthetic trace: it answers pings until the count
// runs out. Every other ping is background traffic, so that quiet has half the
// rows to fold.
type pinger struct{}

// argLeft is how many pings are left in the rally.
const argLeft = sim.Num1

func (pinger) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	ping := func(n int64) sim.Message {
		m := sim.Message{Op: "ping"}.With(argLeft, n)
		if n%2 == 0 {
			m = m.InBackground()
		}
		return m
	}
	switch in.Kind {
	case sim.InCommand:
		out.Send(1, ping(in.Msg.Num(argLeft)))
	case sim.InMessage:
		if in.Msg.Num(argLeft) > 1 {
			out.Send(in.From, ping(in.Msg.Num(argLeft)-1))
		}
	}
}
func (pinger) Describe() string { return "" }

// bigRun is a synthetic run of about n trace events (a long ping-pong); with a
// note, one more row in its middle, so that two runs compared differ there.
func bigRun(b *testing.B, n int, note bool) *scenarios.Result {
	w := sim.NewWorld(sim.Config{Limits: sim.Limits{MaxEvents: n + 10, MaxTime: 24 * time.Hour, MaxQueue: 10}})
	w.AddProcess("a", "client", sim.Clock{}, func(sim.Env) sim.Process { return pinger{} })
	w.AddProcess("b", "client", sim.Clock{}, func(sim.Env) sim.Process { return pinger{} })
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: 0, Msg: sim.Message{Op: "go"}.With(argLeft, int64(n/2))})
	if note {
		w.Schedule(sim.Time(time.Duration(n/4)*time.Millisecond), sim.Action{Kind: sim.ActNote, Proc: sim.NoProc, Narration: "half way"})
	}
	tr := w.Run()
	s, _ := scenarios.Parse("synthetic.scn", "# A synthetic run.\nnode r1 redis\n")
	return &scenarios.Result{Scenario: s, Trace: tr, Report: check.Check(tr, check.Options{})}
}

func heap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkKeypress1M measures one keypress (Update and View) at 200x60 on runs
// of a million events, plain, in presentation mode with quiet on, and two such
// runs compared; and the memory the UI adds per event beyond the traces:
//
//	go test ./tui -run '^$' -bench Keypress1M -benchmem
func BenchmarkKeypress1M(b *testing.B) {
	const events = 1_000_000
	a1, a2 := bigRun(b, events, false), bigRun(b, events, true)
	for _, mode := range []struct {
		name string
		opt  Options
	}{
		{"plain", Options{Result: a1}},
		{"present-quiet", Options{Result: a1, Present: true}},
		{"compare", Options{Result: a1, Versus: a2}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			traced := a1.Trace.Len()
			if mode.opt.Versus != nil {
				traced += a2.Trace.Len()
			}
			before := heap()
			mode.opt.Dark = true
			a := NewApp(mode.opt)
			a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
			a.View()
			added := float64(heap()) - float64(before)
			down, end, start := keyMsg("down"), keyMsg("G"), keyMsg("g")
			a.Update(keyMsg("n"))
			b.ResetTimer()
			for i := range b.N {
				switch i % 1000 {
				case 998:
					a.Update(end) // jump to the far end now and then: still only visible rows
				case 999:
					a.Update(start)
				}
				a.Update(down)
				a.View()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/keypress")
			b.ReportMetric(added/float64(traced), "UI-bytes/event")
			runtime.KeepAlive(a)
		})
	}
	// The keys that rebuild a view rather than move in one: b (quiet) lays the
	// run's rows out again; opening two runs compared lines them up.
	b.Run("quiet-toggle", func(b *testing.B) {
		a := NewApp(Options{Result: a1, Dark: true})
		a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		q := keyMsg("b")
		for range b.N {
			a.Update(q)
			a.View()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/keypress")
	})
	b.Run("compare-open", func(b *testing.B) {
		for range b.N {
			a := NewApp(Options{Result: a1, Versus: a2, Dark: true})
			a.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
			a.View()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/open")
	})
	runtime.KeepAlive(a1)
	runtime.KeepAlive(a2)
}
