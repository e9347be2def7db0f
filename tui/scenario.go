package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Panels of the side column, in tab order.
const (
	panelNarration = iota
	panelState
	panelClocks
	panelCount
)

// Speeds of play, slowest first.
var speeds = []time.Duration{2 * time.Second, time.Second, 500 * time.Millisecond, 250 * time.Millisecond,
	100 * time.Millisecond, 40 * time.Millisecond, 10 * time.Millisecond}

// Scenario walks one finished run.
type Scenario struct {
	com      *Common
	res      *scenarios.Result
	tl       *layout.Timeline
	cursor   int
	top      int
	playing  bool
	playGen  int
	speed    int
	walk     bool
	panel    int
	proc     int // the process the state panel shows; -1 follows the cursor
	showHelp bool
	help     help.Model
}

type tickMsg struct{ gen int }

// NewScenario opens a run in the viewer. walk makes play stop at every narrated
// step (for workshops).
func NewScenario(com *Common, res *scenarios.Result, walk bool) *Scenario {
	h := help.New()
	if com.Styles.Plain {
		h.Styles = help.Styles{}
	}
	return &Scenario{com: com, res: res, tl: layout.New(res.Trace, &res.Report), speed: 2, walk: walk,
		proc: -1, help: h}
}

// Cursor is the selected row.
func (m *Scenario) Cursor() int { return m.cursor }

// Update handles one message.
func (m *Scenario) Update(msg tea.Msg) tea.Cmd {
	k := m.com.Keys
	last := m.tl.Len() - 1
	switch msg := msg.(type) {
	case tickMsg:
		if !m.playing || msg.gen != m.playGen {
			return nil
		}
		if m.cursor >= last {
			m.playing = false
			return nil
		}
		m.cursor++
		if m.walk && layout.Next(m.tl.NarratedRows(), m.cursor-1, false) == m.cursor {
			m.playing = false
			return nil
		}
		return m.tick()
	case tea.MouseWheelMsg:
		if msg.Mouse().Button == tea.MouseWheelUp {
			m.move(-3)
		} else {
			m.move(3)
		}
	case tea.KeyPressMsg:
		if m.showHelp && !key.Matches(msg, k.Help) {
			m.showHelp = false // any key closes the help
			return nil
		}
		switch {
		case key.Matches(msg, k.Follow):
			m.proc = -1
		case key.Matches(msg, k.Down):
			m.move(1)
		case key.Matches(msg, k.Up):
			m.move(-1)
		case key.Matches(msg, k.Start):
			m.cursor = 0
		case key.Matches(msg, k.End):
			m.cursor = last
		case key.Matches(msg, k.Play):
			m.playing = !m.playing
			m.playGen++
			if m.playing {
				return m.tick()
			}
		case key.Matches(msg, k.Faster):
			m.speed = min(m.speed+1, len(speeds)-1)
		case key.Matches(msg, k.Slower):
			m.speed = max(m.speed-1, 0)
		case key.Matches(msg, k.NextViolation), key.Matches(msg, k.PrevViolation):
			m.jump(m.tl.ViolationRows(), key.Matches(msg, k.PrevViolation))
		case key.Matches(msg, k.NextFault), key.Matches(msg, k.PrevFault):
			m.jump(m.tl.FaultRows(), key.Matches(msg, k.PrevFault))
		case key.Matches(msg, k.Tab):
			m.panel = (m.panel + 1) % panelCount
		case key.Matches(msg, k.Left), key.Matches(msg, k.Right):
			n := len(m.tl.Columns())
			if m.proc < 0 {
				m.proc = max(m.cursorProc(), 0)
			}
			if key.Matches(msg, k.Left) {
				m.proc = (m.proc + n - 1) % n
			} else {
				m.proc = (m.proc + 1) % n
			}
		case key.Matches(msg, k.Help):
			m.showHelp = !m.showHelp
		}
	}
	return nil
}

func (m *Scenario) tick() tea.Cmd {
	gen := m.playGen
	return tea.Tick(speeds[m.speed], func(time.Time) tea.Msg { return tickMsg{gen} })
}

func (m *Scenario) move(d int) { m.cursor = min(max(m.cursor+d, 0), max(m.tl.Len()-1, 0)) }

func (m *Scenario) jump(rows []int, back bool) {
	if r := layout.Next(rows, m.cursor, back); r >= 0 {
		m.cursor = r
	}
}

// cursorProc is the process of the cursor row's event, or -1.
func (m *Scenario) cursorProc() int {
	if m.tl.Len() == 0 {
		return -1
	}
	if ev := m.tl.RowEvent(m.cursor); ev >= 0 {
		return int(m.res.Trace.Event(ev).Proc)
	}
	row := m.tl.Row(m.cursor) // a violation row: the first process it names
	for i, c := range row.Cells {
		if c.Kind == layout.CellViolation {
			return i
		}
	}
	return -1
}

// View draws the screen.
func (m *Scenario) View() string {
	c := m.com
	if c.tooSmall() {
		return tooSmallView(c)
	}
	header := m.header()
	footer := m.footer()
	bodyH := c.Height - lipgloss.Height(header) - lipgloss.Height(footer)
	if m.showHelp {
		return lipgloss.JoinVertical(lipgloss.Left, header, m.fullHelp(bodyH), footer)
	}
	var body string
	if c.Width >= 100 && bodyH >= 18 {
		side := min(48, c.Width/3)
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.timeline(c.Width-side, bodyH), m.side(side, bodyH))
	} else {
		strip := min(5, max(bodyH/3, 2))
		body = lipgloss.JoinVertical(lipgloss.Left, m.timeline(c.Width, bodyH-strip), m.strip(c.Width, strip))
	}
	return lipgloss.JoinVertical(lipgloss.Left, header, body, footer)
}

func (m *Scenario) header() string {
	s := m.com.Styles
	at := sim.Time(0)
	if m.tl.Len() > 0 {
		at = m.tl.RowTime(m.cursor)
	}
	var badge string
	if names := m.tl.ViolatedBy(m.cursor); len(names) > 0 {
		badge = s.BadgeBad.Render(" VIOLATED so far: " + strings.Join(names, ", ") + " ")
	} else {
		badge = s.Badge.Render(" no violation so far ")
	}
	play := ""
	if m.playing {
		play = " ▶ " + speeds[m.speed].String()
	}
	left := fmt.Sprintf(" t=%s%s  %s  seed %d  row %d/%d ", at, play, m.res.Scenario.ID, m.res.Seed, m.cursor+1, m.tl.Len())
	verdict := " verdict " + s.Verdict[string(m.res.Report.Verdict)].Render(string(m.res.Report.Verdict))
	return fit(badge+s.Header.Render(left)+verdict+"   ? help", m.com.Width)
}

func (m *Scenario) footer() string {
	m.help.SetWidth(m.com.Width)
	return fit(m.help.ShortHelpView(m.com.Keys.ShortHelp()), m.com.Width)
}

func (m *Scenario) fullHelp(h int) string {
	m.help.SetWidth(m.com.Width)
	lines := strings.Split(m.help.FullHelpView(m.com.Keys.FullHelp()), "\n")
	return m.box(lines, m.com.Width, h)
}

// box pads lines to exactly w x h.
func (m *Scenario) box(lines []string, w, h int) string {
	out := make([]string, h)
	for i := range out {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out[i] = fit(l, w)
	}
	return strings.Join(out, "\n")
}

// timeline draws the visible rows only: a long trace costs what the screen shows.
func (m *Scenario) timeline(w, h int) string {
	if h <= 1 {
		return m.box(nil, w, max(h, 0))
	}
	cols := m.tl.Columns()
	tw := m.tl.TimeWidth() + 2
	// Columns share what is left after the time and at least 30 cells of sentence.
	colW := min(max((w-tw-30)/max(len(cols), 1), 6), 14)
	rows := h - 1
	margin := min(3, rows/4) // keep a few rows of what comes next in view
	if m.cursor < m.top+margin {
		m.top = m.cursor - margin
	}
	if m.cursor >= m.top+rows-margin {
		m.top = m.cursor - rows + 1 + margin
	}
	m.top = max(min(m.top, m.tl.Len()-rows), 0)
	lines := []string{m.com.Styles.Title.Render(fit(" "+m.tl.Header(colW), w))}
	for r := m.top; r < m.top+rows && r < m.tl.Len(); r++ {
		lines = append(lines, m.row(r, colW, w))
	}
	return m.box(lines, w, h)
}

func (m *Scenario) row(r, colW, w int) string {
	s := m.com.Styles
	row := m.tl.Row(r)
	mark := " "
	at := fmt.Sprintf("%*s", m.tl.TimeWidth(), row.At)
	if row.Kind == layout.RowViolation {
		mark = s.Violation.Render("◆")
	}
	if r == m.cursor {
		at = s.Cursor.Render(at)
		mark = s.Cursor.Render("▸")
	}
	var b strings.Builder
	b.WriteString(mark + at + " ")
	for i, c := range row.Cells {
		b.WriteString(m.cell(c, i, colW))
	}
	text := row.Text
	if row.Kind == layout.RowViolation {
		text = s.Violation.Render(text)
	}
	b.WriteString("  " + text)
	return fit(b.String(), w)
}

// cell colours one semantic cell: the bar in its client's colour, the content by
// its kind. The text is exactly layout.CellText, so the screen and the log agree.
func (m *Scenario) cell(c layout.Cell, col, w int) string {
	s := m.com.Styles
	txt := []rune(layout.CellText(c, w))
	bar, rest := string(txt[:1]), string(txt[1:])
	switch {
	case c.Spans&layout.SpanBelief != 0:
		bar = s.Bars[col%len(s.Bars)].Render(bar)
	case c.Spans&layout.SpanDown != 0:
		bar = s.Dim.Render(bar)
	}
	if st, ok := s.Cells[c.Kind]; ok {
		rest = st.Render(rest)
	} else if c.Spans&layout.SpanPaused != 0 {
		rest = s.Cells[layout.CellPause].Render(rest)
	}
	return bar + rest
}

func (m *Scenario) side(w, h int) string {
	clocks := min(len(m.tl.Columns())+3, h/2)
	state := max(6, (h-clocks)/3)
	hs := []int{h - clocks - state, state, clocks}
	return lipgloss.JoinVertical(lipgloss.Left,
		m.panelBox(panelNarration, "narration", m.narrationLines(w-4), w, hs[0]),
		m.panelBox(panelState, m.stateTitle(), m.stateLines(w-4), w, hs[1]),
		m.panelBox(panelClocks, "clocks at the cursor", m.clockLines(w-4), w, hs[2]))
}

func (m *Scenario) panelBox(p int, title string, lines []string, w, h int) string {
	st := m.com.Styles.Panel
	if p == m.panel {
		st = m.com.Styles.PanelFocus
	}
	inner := max(h-2, 0)
	body := cut(append([]string{m.com.Styles.PanelTitle.Render(title)}, lines...), inner)
	content := m.box(body, max(w-4, 0), inner)
	return st.Padding(0, 1).Render(content)
}

// strip is the narrow layout's bottom panel: the focused one (tab cycles).
func (m *Scenario) strip(w, h int) string {
	title, lines := "narration", m.narrationLines(w)
	switch m.panel {
	case panelState:
		title, lines = m.stateTitle(), m.stateLines(w)
	case panelClocks:
		title, lines = "clocks at the cursor", m.clockLines(w)
	}
	return m.box(cut(append([]string{m.com.Styles.PanelTitle.Render(title + "  (tab: next panel)")}, lines...), h), w, h)
}

// cut keeps at most h lines, marking what it drops.
func cut(lines []string, h int) []string {
	if len(lines) <= h || h <= 0 {
		return lines
	}
	lines = append([]string{}, lines[:h]...)
	lines[h-1] = "…"
	return lines
}

func (m *Scenario) narrationLines(w int) []string {
	if m.tl.Len() == 0 {
		return nil
	}
	text, at := m.tl.Narration(m.cursor)
	if at < 0 {
		text = m.res.Scenario.Summary
	}
	return wrapLines(text, w)
}

func (m *Scenario) stateProc() int {
	if m.proc >= 0 {
		return m.proc
	}
	return m.cursorProc()
}

func (m *Scenario) stateTitle() string {
	p := m.stateProc()
	if p < 0 {
		return "state"
	}
	return "state of " + m.tl.Columns()[p].Name
}

// stateLines shows the selected process's state at the cursor, marking it when
// this very row is that process's step and changed it.
func (m *Scenario) stateLines(w int) []string {
	p := m.stateProc()
	dim := m.com.Styles.Dim
	if p < 0 || m.tl.Len() == 0 {
		return []string{dim.Render("no process stepped at this row (h/l choose one)")}
	}
	if m.tl.Row(m.cursor).Cells[p].Spans&layout.SpanDown != 0 {
		return []string{m.com.Styles.Violation.Render("down: crashed, not restarted yet")}
	}
	tr := m.res.Trace
	cur, prev := "", ""
	curRow := -1
	found := 0
	for r, n := m.cursor, 0; r >= 0 && found < 2 && n < 200_000; r, n = r-1, n+1 {
		ev := m.tl.RowEvent(r)
		if ev < 0 {
			continue
		}
		e := tr.Event(ev)
		if int(e.Proc) != p || tr.State(e) == "" {
			continue
		}
		if found == 0 {
			cur, curRow = tr.State(e), r
		} else {
			prev = tr.State(e)
		}
		found++
	}
	if cur == "" {
		return []string{dim.Render("(no step yet)")}
	}
	lines := wrapLines(cur, w)
	if curRow == m.cursor && prev != "" && prev != cur {
		for i := range lines {
			lines[i] = m.com.Styles.Changed.Render(lines[i])
		}
		lines = append(lines, dim.Render("(changed at this step)"))
	}
	return lines
}

// clockLines shows every process's clock at the cursor's true time, and how far
// its wall clock is from true time.
func (m *Scenario) clockLines(w int) []string {
	if m.tl.Len() == 0 {
		return nil
	}
	tr := m.res.Trace
	at := m.tl.RowTime(m.cursor)
	var lines []string
	for i, c := range m.tl.Columns() {
		r := tr.ClockAt(sim.ProcID(i), at)
		line := fmt.Sprintf("%-4s wall %s mono %s", c.Name, sim.FormatDuration(r.Wall), sim.FormatDuration(r.Mono))
		if off := r.Wall - time.Duration(at); off > time.Millisecond || off < -time.Millisecond {
			line = fmt.Sprintf("%-4s wall %s (%+.3fs) mono %s", c.Name, sim.FormatDuration(r.Wall), off.Seconds(),
				sim.FormatDuration(r.Mono))
		}
		lines = append(lines, fit(line, w))
	}
	return lines
}
