package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/locksim/locksim/tui/layout"
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

// screen drives an app with keys and returns its plain screen.
func screen(a *App, w, h int, keys ...string) string {
	drive(a, tea.WindowSizeMsg{Width: w, Height: h})
	for _, k := range keys {
		drive(a, keyMsg(k))
	}
	return ansi.Strip(a.View().Content)
}

type goldenCase struct {
	name string
	app  func() *App
	w, h int
	keys []string
}

func runApp(t *testing.T, id string, opt Options) func() *App {
	return func() *App {
		opt.Result, opt.Dark = result(t, id), true
		return NewApp(opt)
	}
}

func compareApp(t *testing.T, a, b string) func() *App {
	return func() *App { return NewApp(Options{Result: result(t, a), Versus: result(t, b), Dark: true}) }
}

// sizes are the four a workshop meets: a laptop's 80x24, a projector's 120x40,
// a wide screen's 200x60, and half a projector split top and bottom.
var sizes = [][2]int{{80, 24}, {120, 40}, {200, 60}, {120, 20}}

func TestGoldenViews(t *testing.T) {
	cases := []goldenCase{
		{"catalogue-80x24", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, 80, 24, []string{"down"}},
		{"catalogue-filter-80x24", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, 80, 24, []string{"/", "c", "l", "o", "c", "k"}},
		{"del-after-expiry-first-violation-80x24", runApp(t, "redis-del-after-expiry", Options{}), 80, 24, []string{"n"}},
		{"del-after-expiry-first-violation-160x48", runApp(t, "redis-del-after-expiry", Options{}), 160, 48, []string{"n"}},
		{"clock-jump-after-faults-160x48", runApp(t, "redlock-clock-jump", Options{}), 160, 48, []string{"f", "f", "f", "n", "tab"}},
		{"gc-pause-state-160x48", runApp(t, "redlock-gc-pause", Options{}), 160, 48, []string{"G", "N", "tab", "l"}},
		{"del-after-expiry-state-strip-80x24", runApp(t, "redis-del-after-expiry", Options{}), 80, 24, []string{"n", "tab"}},
		{"clock-jump-clocks-strip-120x12", runApp(t, "redlock-clock-jump", Options{}), 120, 12, []string{"f", "f", "f", "n", "tab", "tab"}},
		{"fencing-badge-120x40", runApp(t, "fencing-token", Options{}), 120, 40, []string{"G"}},
		{"opened-from-catalogue-160x48", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, 160, 48, []string{"down", "down", "enter", "down", "down"}}, // redis-del-after-expiry, the first lesson
		{"zk-failover-hidden-quiet-120x40", runApp(t, "zk-leader-failover", Options{}), 120, 40, []string{"b", "f", "x", "l", "l", "l", "x"}},
	}
	for _, sz := range sizes {
		at := fmt.Sprintf("-%dx%d", sz[0], sz[1])
		cases = append(cases,
			goldenCase{"present-clock-jump" + at, runApp(t, "redlock-clock-jump", Options{}), sz[0], sz[1], []string{"p", "n", "n"}},
			goldenCase{"walk-3pc-partition" + at, runApp(t, "3pc-partition", Options{Walk: true}), sz[0], sz[1], []string{"space", "space", "space", "space", "space"}},
			goldenCase{"compare-clock-jump" + at, compareApp(t, "redlock-clock-jump", "redlock-no-clock-jump"), sz[0], sz[1], []string{"d"}},
			goldenCase{"legend" + at, runApp(t, "fencing-token", Options{}), sz[0], sz[1], []string{"?"}},
		)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := screen(tc.app(), tc.w, tc.h, tc.keys...)
			checkFits(t, got, tc.w, tc.h)
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
	if !updating() {
		files, _ := filepath.Glob(filepath.Join("..", "testdata", "tui", "*.txt"))
		if len(files) != len(cases) {
			t.Errorf("%d golden screens for %d cases: remove the stale ones", len(files), len(cases))
		}
	}
}

// checkFits fails when a screen is not exactly h lines of at most w cells.
func checkFits(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d", i+1, n, w)
		}
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

// From tiny to very wide, in every mode: never a panic, never a line wider than
// the screen, and below 40x8 a plain "too small".
func TestResizeSweep(t *testing.T) {
	t.Parallel()
	type mode struct {
		name string
		app  func() *App
		keys []string
	}
	modes := []mode{
		{"catalogue", func() *App { return NewApp(Options{Catalogue: catalogue(t), Dark: true}) }, nil},
		{"run", runApp(t, "redlock-clock-jump", Options{}), []string{"n"}},
		{"present", runApp(t, "redlock-clock-jump", Options{Present: true}), []string{"n", "x"}},
		{"walk", runApp(t, "3pc-partition", Options{Walk: true}), []string{"space", "space", "space"}},
		{"narrow-strip", runApp(t, "zk-leader-failover", Options{}), []string{"b", "f", "tab"}},
		{"help", runApp(t, "fencing-token", Options{}), []string{"?"}},
		{"compare", compareApp(t, "redlock-clock-jump", "redlock-no-clock-jump"), []string{"d", "b"}},
	}
	// The full sweep (every 23 columns by every 7 lines, 289 sizes a mode) runs
	// with -tags long. The default (and -short's) is 100 sizes a mode: the
	// sizes around the "too small" edge (39, 40 and 41 wide; 7, 8 and 9 high),
	// where a screen turns from "too small" to drawn and a miscount of a line
	// or a cell shows first; a workshop's screens (80x24, 120x40, 200x60, 120x20
	// and 120x12); odd widths between them (57, 163); and the extremes, 10 to
	// 400 columns by 3 to 120 lines.
	var widths, heights []int
	if long(t, "100 sizes a mode, the edges and a workshop's screens", "every 23 columns by 7 lines, 289 sizes a mode") {
		for w := 10; w <= 400; w += 23 {
			widths = append(widths, w)
		}
		for h := 3; h <= 120; h += 7 {
			heights = append(heights, h)
		}
	} else {
		widths = []int{10, MinWidth - 1, MinWidth, MinWidth + 1, 57, 80, 120, 163, 200, 400}
		heights = []int{3, MinHeight - 1, MinHeight, MinHeight + 1, 12, 20, 24, 40, 60, 120}
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			a := m.app()
			drive(a, tea.WindowSizeMsg{Width: 120, Height: 40})
			for _, k := range m.keys {
				drive(a, keyMsg(k))
			}
			for _, w := range widths {
				for _, h := range heights {
					s := screen(a, w, h)
					lines := strings.Split(s, "\n")
					if len(lines) > h {
						t.Fatalf("%s %dx%d: %d lines, taller than the screen", m.name, w, h, len(lines))
					}
					for _, l := range lines {
						if ansi.StringWidth(l) > w {
							t.Fatalf("%s %dx%d: a line is %d wide", m.name, w, h, ansi.StringWidth(l))
						}
					}
					if w < MinWidth || h < MinHeight {
						if !strings.Contains(s, "too small") {
							t.Fatalf("%s %dx%d should say the terminal is too small, got %q", m.name, w, h, s)
						}
					}
				}
			}
		})
	}
}

// Above 40x12 the detail line and the narration never shrink to nothing.
func TestDetailAndNarrationAlwaysShow(t *testing.T) {
	for _, opt := range []Options{{}, {Present: true}, {Walk: true}} {
		a := runApp(t, "redlock-clock-jump", opt)()
		for _, sz := range [][2]int{{40, 12}, {80, 24}, {120, 20}, {120, 40}, {200, 60}, {60, 14}} {
			s := screen(a, sz[0], sz[1], "n", "n")
			if !strings.Contains(s, "VIOLATION mutex-belief") && !strings.Contains(s, "2.103s") {
				t.Errorf("%+v at %dx%d: no detail line:\n%s", opt, sz[0], sz[1], s)
			}
			if !strings.Contains(s, "c2 asks") {
				t.Errorf("%+v at %dx%d: no narration:\n%s", opt, sz[0], sz[1], s)
			}
			drive(a, keyMsg("g"))
		}
	}
}

// A smoke test through a real program (teatest): open, step, jump, quit.
func TestProgramSmoke(t *testing.T) {
	cat := catalogue(t)
	seen := make(chan tea.Msg, 4)
	tm := teatest.NewTestModel(t, probe{App: NewApp(Options{Catalogue: cat, Dark: true}), seen: seen}, teatest.WithInitialTermSize(120, 40))
	look := looker(t, tm)
	for i := 0; ; i++ { // down to redis-del-after-expiry, in the browser's order
		if scr, _, _ := look(); strings.Contains(scr, "▸   redis-del-after-expiry") || strings.Contains(scr, "▸ ┌ redis-del-after-expiry") {
			break
		}
		if i == len(cat) {
			t.Fatal("redis-del-after-expiry is not in the browser")
		}
		tm.Send(keyMsg("down"))
	}
	tm.Send(keyMsg("enter"))
	// The scenario opens once the run is done (a command of the catalogue's):
	// the probe says when its result has arrived, then the test jumps to the
	// violation.
	await[loadedMsg](t, tm, seen)
	if scr, _, _ := look(); !strings.Contains(strings.Split(scr, "\n")[0], "redis-del-after-expiry") {
		t.Fatalf("the scenario did not open:\n%s", scr)
	}
	tm.Send(keyMsg("n"))
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t)
	if a := tm.FinalModel(t).(probe); a.run == nil || a.run.Cursor() == 0 {
		t.Error("the program did not open the scenario and jump to its violation")
	}
}

// Play runs the cursor down one row per tick and stops at the end. The tick is
// a timer: drive leaves it pending (it never waits for it), and the test
// delivers each tick itself.
func TestPlayAdvancesOneRowPerTick(t *testing.T) {
	t.Parallel()
	a := NewApp(Options{Result: result(t, "redis-del-after-expiry"), Dark: true})
	drive(a, tea.WindowSizeMsg{Width: 120, Height: 40})
	if n := drive(a, keyMsg("space")); n != 1 || !a.run.play.playing || a.run.Cursor() != 0 {
		t.Fatalf("space: %d timers pending, playing %v, cursor on row %d; want the first tick pending and the cursor still on row 0", n, a.run.play.playing, a.run.Cursor())
	}
	for range 3 {
		a.Update(tickMsg{gen: a.run.play.gen})
	}
	if got := a.run.Cursor(); got != 3 {
		t.Fatalf("after three ticks the cursor is on row %d, want 3", got)
	}
	a.Update(keyMsg("space"))
	a.Update(tickMsg{gen: a.run.play.gen})
	if got := a.run.Cursor(); got != 3 {
		t.Errorf("a paused play moved the cursor to row %d", got)
	}
}

// probe wraps the App in a real program so a test can look at it between keys:
// a probeMsg answers with the screen and the narration on it, from the
// program's own goroutine. When seen is set, the probe passes on each openMsg
// and loadedMsg the App gets (a scenario chosen, its run finished), so a test
// waits for them rather than polling; with hold, a finished run's loadedMsg is
// passed on but kept from the App, as if the run took for ever. (seen must
// have room for the two messages a test's one opening sends.)
type probe struct {
	*App
	seen chan<- tea.Msg
	hold bool
}

type probeMsg chan [3]string

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if ch, ok := msg.(probeMsg); ok {
		got := [3]string{ansi.Strip(p.App.View().Content)}
		if p.run != nil {
			got[1], got[2] = p.run.narration(), ansi.Strip(p.run.tl.View())
		}
		ch <- got
		return p, nil
	}
	var cmd tea.Cmd
	if _, ok := msg.(loadedMsg); !ok || !p.hold {
		_, cmd = p.App.Update(msg)
	}
	switch msg.(type) {
	case openMsg, loadedMsg:
		if p.seen != nil {
			p.seen <- msg
		}
	}
	return p, cmd
}

// await waits until the program has had a message of type M (see probe.seen),
// failing if the program ends first.
func await[M tea.Msg](t *testing.T, tm *teatest.TestModel, seen <-chan tea.Msg) M {
	t.Helper()
	done := finished(tm)
	for {
		select {
		case m := <-seen:
			if m, ok := m.(M); ok {
				return m
			}
		case <-done:
			var m M
			t.Fatalf("the program ended before it had a %T", m)
			return m
		}
	}
}

// finished is closed when the program ends (it waits on the program, no timer).
func finished(tm *teatest.TestModel) <-chan struct{} {
	done := make(chan struct{})
	go func() { tm.GetProgram().Wait(); close(done) }()
	return done
}

// looker asks a program running a probe for its screen, the narration on it and
// the timeline's grid. The program answers in its own time; if it ended
// instead, the test fails (a program that hangs is go test's -timeout's).
func looker(t *testing.T, tm *teatest.TestModel) func() (string, string, string) {
	done := finished(tm)
	return func() (string, string, string) {
		ch := make(probeMsg, 1)
		tm.Send(ch)
		select {
		case got := <-ch:
			return got[0], got[1], got[2]
		case <-done:
			t.Fatal("the program ended without answering")
			return "", "", ""
		}
	}
}

// --walk through 3pc-partition in a real program (teatest): each space shows
// the next beat of the story (a stop and the rows down to the next stop) with
// that beat's narration, nothing drawn below the cursor, and the story told in
// readable words: p1 COMMITs, p2 and p3 ABORT.
func TestWalkThrough3PCPartition(t *testing.T) {
	res := result(t, "3pc-partition")
	tl := layout.New(res.Trace, &res.Report)
	tm := teatest.NewTestModel(t, probe{App: NewApp(Options{Result: res, Walk: true, Dark: true})}, teatest.WithInitialTermSize(120, 40))
	look := looker(t, tm)
	var story []string
	for i, b := range tl.Beats() {
		tm.Send(keyMsg("space"))
		if b.Question != "" {
			tm.Send(keyMsg("space")) // the answer
		}
		scr, narration, grid := look()
		want := b.Narration
		if want == "" {
			want, _ = tl.Narration(b.End)
		}
		if want == "" {
			want = tl.Row(b.Stop).Text // a fault or violation nobody narrated: what it is
		}
		header := strings.Split(scr, "\n")[0]
		if !strings.Contains(header, fmt.Sprintf("row %d/%d", b.End+1, tl.Len())) || !strings.Contains(header, "WALK") {
			t.Fatalf("beat %d: the header is %q, want row %d", i+1, header, b.End+1)
		}
		if narration != want || want == "" {
			t.Errorf("beat %d: narration %q, want %q", i+1, narration, want)
		}
		cursor := false
		for _, l := range strings.Split(grid, "\n") {
			if cursor && strings.TrimSpace(l) != "" {
				t.Errorf("beat %d: a row is drawn below the cursor: %q", i+1, l)
			}
			cursor = cursor || strings.HasPrefix(l, "▸")
		}
		story = append(story, scr)
	}
	last := story[len(story)-1]
	for _, want := range []string{"⚑ COMMIT", "⚑ ABORT", "VIOLATED so far: commit-agreement"} {
		if !strings.Contains(last, want) {
			t.Errorf("the walk's last stop does not show %q:\n%s", want, last)
		}
	}
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t)
}

// Reveal: in a walk no row below the cursor is drawn; r shows them again.
func TestRevealHidesRowsBelowTheCursor(t *testing.T) {
	a := runApp(t, "3pc-partition", Options{Walk: true})()
	s := screen(a, 120, 40, "space", "space")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "▸") {
			if i+1 < len(lines) && strings.TrimSpace(strings.Split(lines[i+1], "│")[0]) != "" && !strings.HasPrefix(lines[i+1], "╰") {
				t.Errorf("a row is drawn below the cursor:\n%s\n%s", l, lines[i+1])
			}
		}
	}
	if strings.Contains(s, "verdict UNSAFE") {
		t.Error("the verdict is given away before the end")
	}
	s = screen(a, 120, 40, "r")
	if lines := strings.Split(s, "\n"); !strings.HasPrefix(lines[len(lines)-6], " ") || !strings.Contains(s, "1.182s") {
		t.Errorf("r did not show the rows below the cursor:\n%s", s)
	}
}

// The acceptance points of issue 16, each as a teacher meets it.
func TestIssue16Acceptance(t *testing.T) {
	t.Run("the whole violation sentence at 120x40 after n n", func(t *testing.T) {
		s := screen(runApp(t, "redlock-clock-jump", Options{})(), 120, 40, "n", "n")
		if !strings.Contains(s, "c2 believes it holds L while c1 still believes it does (since 0.103s)") {
			t.Errorf("the sentence is not on screen:\n%s", s)
		}
	})
	t.Run("compare opens; d lands on the jump on C; both verdicts", func(t *testing.T) {
		a := compareApp(t, "redlock-clock-jump", "redlock-no-clock-jump")()
		s := screen(a, 120, 40, "d")
		if !strings.Contains(s, "verdict UNSAFE") || !strings.Contains(s, "verdict SAFE") {
			t.Errorf("the header lacks a verdict:\n%s", s)
		}
		c := a.cmp.Comparison()
		ra, rb := c.Own(a.cmp.Cursor())
		if rb >= 0 || ra < 0 || !strings.Contains(c.A.Row(ra).Text, "clock-jump C") {
			t.Errorf("d landed on line %d (%d, %d), not on the jump on C", a.cmp.Cursor(), ra, rb)
		}
		if !strings.Contains(s, "difference 1 of") || !strings.Contains(s, "⤴ +15s") {
			t.Errorf("the screen does not show the first difference:\n%s", s)
		}
	})
	t.Run("p gives the timeline the full width", func(t *testing.T) {
		a := runApp(t, "redlock-clock-jump", Options{})()
		before := screen(a, 120, 40, "n")
		after := screen(a, 120, 40, "p")
		if !strings.Contains(before, "╭") || strings.Contains(after, "╭") {
			t.Errorf("p left the side panels:\n%s", after)
		}
		head := strings.Split(after, "\n")[1]
		if i := strings.Index(head, "c2"); i < 100 {
			t.Errorf("presentation columns are not spread over the width: %q", head)
		}
	})
	t.Run("b in zk-leader-failover removes the ping rows", func(t *testing.T) {
		a := runApp(t, "zk-leader-failover", Options{})()
		rows := func() string {
			var b strings.Builder
			tl := a.run.tl.Layout()
			for r := range tl.Len() {
				b.WriteString(tl.Row(r).Text + "\n")
			}
			return b.String()
		}
		screen(a, 120, 40)
		if !strings.Contains(rows(), "LEADERPING") {
			t.Fatal("the run has no ping rows to fold")
		}
		screen(a, 120, 40, "b")
		for _, op := range []string{"LEADERPING", "PINGACK", " PING ", " PONG", "TOUCH"} {
			if strings.Contains(rows(), op) {
				t.Errorf("quiet still shows %s rows", op)
			}
		}
		for _, l := range strings.Split(rows(), "\n") {
			if strings.HasSuffix(l, ": tick") { // a tick that did something (an election) stays
				t.Errorf("quiet still shows a tick that did nothing but ping: %s", l)
			}
		}
	})
	t.Run("the badge agrees with a fenced SAFE verdict", func(t *testing.T) {
		s := screen(runApp(t, "fencing-token", Options{})(), 120, 40, "G")
		if !strings.Contains(s, "beliefs overlap; data safe (fenced)") || strings.Contains(s, "VIOLATED") {
			t.Errorf("the header contradicts the verdict:\n%s", strings.Split(s, "\n")[0])
		}
	})
}

// The ? screen's legend is drawn from layout.Legend: every mark is on it.
func TestLegendShowsEveryMark(t *testing.T) {
	s := strings.Join(legendLines(NewStyles(true, true), 1000), "\n")
	for _, e := range layout.Legend() {
		if !strings.Contains(s, e.Meaning) {
			t.Errorf("the legend lacks %q", e.Meaning)
		}
	}
}

// At 80x24 the legend is below the help's first screen: the footer says how to
// scroll to it, and each meaning is wrapped whole under itself, never cut at
// the edge mid-word (a teacher's walk found "the bar shows a promi" at 80).
func TestLegendAt80IsWrappedAndReachable(t *testing.T) {
	ls := legendLines(NewStyles(true, true), 80)
	var flat strings.Builder
	for _, l := range ls {
		l = ansi.Strip(l)
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a legend line is %d wide at 80 columns: %q", w, l)
		}
		flat.WriteString(" " + l)
	}
	text := strings.Join(strings.Fields(flat.String()), " ")
	for _, e := range layout.Legend() {
		if !strings.Contains(text, strings.Join(strings.Fields(e.Meaning), " ")) {
			t.Errorf("the wrapped legend lacks %q", e.Meaning)
		}
	}
	s := screen(runApp(t, "redlock-clock-jump", Options{})(), 80, 24, "?")
	lines := strings.Split(s, "\n")
	if foot := lines[len(lines)-1]; !strings.Contains(foot, "scroll") || !strings.Contains(foot, "more below") {
		t.Errorf("at 80x24 the help's footer does not say the legend is below and how to scroll: %q", foot)
	}
}
