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

// pinger is a process for the synthetic trace: it answers pings until the count runs out.
type pinger struct{}

func (pinger) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		out.Send(1, sim.Message{Op: "ping"}.WithN(in.Msg.N))
	case sim.InMessage:
		if in.Msg.N > 1 {
			out.Send(in.From, sim.Message{Op: "ping"}.WithN(in.Msg.N-1))
		}
	}
}
func (pinger) Describe() string { return "" }

// bigRun is a synthetic run of about n trace events (a long ping-pong).
func bigRun(b *testing.B, n int) *scenarios.Result {
	w := sim.NewWorld(sim.Config{Limits: sim.Limits{MaxEvents: n + 10, MaxTime: 24 * time.Hour, MaxQueue: 10}})
	w.AddProcess("a", "client", sim.Clock{}, func(sim.Env) sim.Process { return pinger{} })
	w.AddProcess("b", "client", sim.Clock{}, func(sim.Env) sim.Process { return pinger{} })
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: 0, Msg: sim.Message{Op: "go"}.WithN(int64(n / 2))})
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

// BenchmarkKeypress1M measures one keypress (Update and View) on a trace of a
// million events, and the memory the UI adds per event beyond the trace itself:
//
//	go test ./tui -run '^$' -bench Keypress1M -benchmem
func BenchmarkKeypress1M(b *testing.B) {
	const events = 1_000_000
	res := bigRun(b, events)
	before := heap()
	a := NewApp(Options{Result: res, Dark: true})
	a.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	a.View()
	added := float64(heap()) - float64(before)
	down, end := keyMsg("down"), keyMsg("G")
	a.Update(keyMsg("n"))
	b.ResetTimer()
	for i := range b.N {
		if i%1000 == 999 {
			a.Update(end) // jump to the far end now and then: still only visible rows
		}
		a.Update(down)
		a.View()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/keypress")
	b.ReportMetric(added/float64(res.Trace.Len()), "UI-bytes/event")
	runtime.KeepAlive(res)
}
