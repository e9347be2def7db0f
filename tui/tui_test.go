package tui

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/locksim/locksim/scenarios"
)

// Views are tested the Charm way: send a WindowSizeMsg and key presses to Update,
// strip the ANSI codes from View, and compare with golden files:
//
//	go test ./tui -run TestGoldenViews -update
//
// (-update is the flag of Charm's golden package, which teatest brings along.)
func updating() bool { f := flag.Lookup("update"); return f != nil && f.Value.String() == "true" }

func keyMsg(k string) tea.Msg {
	switch k {
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func catalogue(t testing.TB) []*scenarios.Scenario {
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func result(t testing.TB, id string) *scenarios.Result {
	s, err := scenarios.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return scenarios.Run(s, scenarios.RunOptions{Snapshots: true})
}

// drive sends messages to an app, and the messages its commands answer with
// (opening a scenario, going back), as a program would; play ticks are not
// followed (tests step them with tickMsg).
func drive(a *App, msgs ...tea.Msg) {
	for _, msg := range msgs {
		_, cmd := a.Update(msg)
		for n := 0; cmd != nil && n < 10; n++ {
			answer := make(chan tea.Msg, 1)
			go func(cmd tea.Cmd) { answer <- cmd() }(cmd)
			cmd = nil
			select {
			case m := <-answer:
				switch m.(type) {
				case openMsg, backMsg:
					_, cmd = a.Update(m)
				}
			case <-time.After(200 * time.Millisecond): // a play tick: not followed
			}
		}
	}
}

// screen drives an app with keys and returns its plain screen.
func screen(a *App, w, h int, keys ...string) string {
	drive(a, tea.WindowSizeMsg{Width: w, Height: h})
	for _, k := range keys {
		drive(a, keyMsg(k))
	}
	return ansi.Strip(a.View().Content)
}

func TestGoldenViews(t *testing.T) {
	for _, tc := range []struct {
		name string
		app  func() *App
		w, h int
		keys []string
	}{
		{"catalogue-80x24", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, 80, 24, []string{"down"}},
		{"catalogue-filter-80x24", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, 80, 24, []string{"/", "c", "l", "o", "c", "k"}},
		{"del-after-expiry-first-violation-80x24", func() *App { return NewApp(Options{Result: result(t, "redis-del-after-expiry"), Dark: true}) }, 80, 24, []string{"n"}},
		{"del-after-expiry-first-violation-160x48", func() *App { return NewApp(Options{Result: result(t, "redis-del-after-expiry"), Dark: true}) }, 160, 48, []string{"n"}},
		{"clock-jump-after-faults-160x48", func() *App { return NewApp(Options{Result: result(t, "redlock-clock-jump"), Dark: true}) }, 160, 48, []string{"f", "f", "f", "n", "tab"}},
		{"gc-pause-state-160x48", func() *App { return NewApp(Options{Result: result(t, "redlock-gc-pause"), Dark: true}) }, 160, 48, []string{"G", "N", "tab", "l"}},
		{"del-after-expiry-state-strip-80x24", func() *App { return NewApp(Options{Result: result(t, "redis-del-after-expiry"), Dark: true}) }, 80, 24, []string{"n", "tab"}},
		{"clock-jump-clocks-strip-120x12", func() *App { return NewApp(Options{Result: result(t, "redlock-clock-jump"), Dark: true}) }, 120, 12, []string{"f", "f", "f", "n", "tab", "tab"}},
		{"fencing-help-80x24", func() *App { return NewApp(Options{Result: result(t, "fencing-token"), Dark: true}) }, 80, 24, []string{"?"}},
		{"opened-from-catalogue-160x48", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, 160, 48, []string{"down", "enter", "down", "down"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := screen(tc.app(), tc.w, tc.h, tc.keys...)
			lines := strings.Split(got, "\n")
			if len(lines) != tc.h {
				t.Errorf("%d lines, want %d", len(lines), tc.h)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > tc.w {
					t.Errorf("line %d is %d cells wide, more than %d", i+1, w, tc.w)
				}
			}
			path := filepath.Join("..", "testdata", "tui", tc.name+".txt")
			if updating() {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (create it with: go test ./tui -run TestGoldenViews -update)", err)
			}
			if got != string(want) {
				t.Errorf("screen differs from %s:\n%s", path, got)
			}
		})
	}
}

// The badge turns red at the first violation: before it, no violation is named.
func TestBadgeTurnsAtTheFirstViolation(t *testing.T) {
	a := NewApp(Options{Result: result(t, "redis-del-after-expiry"), Dark: true})
	if s := screen(a, 120, 40); !strings.Contains(s, "no violation so far") {
		t.Errorf("at the start the badge should be clean:\n%s", strings.SplitN(s, "\n", 2)[0])
	}
	raw := func() string { a.Update(keyMsg("n")); return a.View().Content }()
	badge := raw[:strings.Index(raw, "VIOLATED")]
	if !strings.Contains(ansi.Strip(raw), "VIOLATED so far: mutex-belief") || !strings.Contains(badge[strings.LastIndex(badge, "\x1b["):], "48;2;215;0;0") {
		t.Errorf("after n the badge should name mutex-belief on red:\n%s", strings.SplitN(raw, "\n", 2)[0])
	}
}

// NO_COLOR: the plain styles write no colour at all.
func TestNoColorWritesNoColour(t *testing.T) {
	a := NewApp(Options{Result: result(t, "redis-del-after-expiry"), Plain: true})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Update(keyMsg("n"))
	if c := a.View().Content; strings.Contains(c, "\x1b[38") || strings.Contains(c, "\x1b[48") {
		t.Error("NO_COLOR view contains colour codes")
	}
}

// From tiny to very wide: never a panic, never a line wider than the screen.
func TestResizeSweep(t *testing.T) {
	apps := []*App{
		NewApp(Options{Catalogue: catalogue(t), Dark: true}),
		NewApp(Options{Result: result(t, "redlock-clock-jump"), Dark: true}),
	}
	dw, dh := 11, 3
	if testing.Short() {
		dw, dh = 41, 13 // a coarser sweep (the race detector makes each screen slow)
	}
	for _, a := range apps {
		a.Update(keyMsg("n"))
		for w := 10; w <= 400; w += dw {
			for h := 3; h <= 120; h += dh {
				s := screen(a, w, h)
				lines := strings.Split(s, "\n")
				if len(lines) > h {
					t.Fatalf("%dx%d: %d lines, taller than the screen", w, h, len(lines))
				}
				for _, l := range lines {
					if ansi.StringWidth(l) > w {
						t.Fatalf("%dx%d: a line is %d wide", w, h, ansi.StringWidth(l))
					}
				}
				if w < MinWidth || h < MinHeight {
					if !strings.Contains(s, "too small") {
						t.Fatalf("%dx%d should say the terminal is too small, got %q", w, h, s)
					}
				}
			}
		}
	}
}

// A smoke test through a real program (teatest): open, step, jump, quit.
func TestProgramSmoke(t *testing.T) {
	cat := catalogue(t)
	tm := teatest.NewTestModel(t, NewApp(Options{Catalogue: cat, Dark: true}), teatest.WithInitialTermSize(120, 40))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("the catalogue")) },
		teatest.WithDuration(5*time.Second))
	for _, s := range cat {
		if s.ID == "redis-del-after-expiry" {
			break
		}
		tm.Send(keyMsg("down"))
	}
	tm.Send(keyMsg("enter"))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("redis-del-after-expiry")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("n"))
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	if a := tm.FinalModel(t).(*App); a.run == nil || a.run.Cursor() == 0 {
		t.Error("the program did not open the scenario and jump to its violation")
	}
}

// Play runs the cursor down one row per tick and stops at the end.
func TestPlayAdvancesOneRowPerTick(t *testing.T) {
	a := NewApp(Options{Result: result(t, "redis-del-after-expiry"), Dark: true})
	drive(a, tea.WindowSizeMsg{Width: 120, Height: 40})
	a.Update(keyMsg("space"))
	for range 3 {
		a.Update(tickMsg{gen: a.run.playGen})
	}
	if got := a.run.Cursor(); got != 3 {
		t.Fatalf("after three ticks the cursor is on row %d, want 3", got)
	}
	a.Update(keyMsg("space"))
	a.Update(tickMsg{gen: a.run.playGen})
	if got := a.run.Cursor(); got != 3 {
		t.Errorf("a paused play moved the cursor to row %d", got)
	}
}
