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
		switch {
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
	if c.Width >= 100 {
		side := min(48, c.Width/3)
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.timeline(c.Width-side, bodyH), m.side(side, bodyH))
	} else {
		strip := 4
		body = lipgloss.JoinVertical(lipgloss.Left, m.timeline(c.Width, bodyH-strip), m.narrationStrip(c.Width, strip))
	}
	return lipgloss.JoinVertical(lipgloss.Left, header, body, footer)
}

func (m *Scenario) header() string {
	s := m.com.Styles
	at := sim.Time(0)
	if m.tl.Len() > 0 {
		at = m.tl.RowTime(m.cursor)
	}
	left := fmt.Sprintf(" %s  seed %d  t=%s  row %d/%d ", m.res.Scenario.ID, m.res.Seed, at, m.cursor+1, m.tl.Len())
	var badge string
	if names := m.tl.ViolatedBy(m.cursor); len(names) > 0 {
		badge = s.BadgeBad.Render(" VIOLATED so far: " + strings.Join(names, ", ") + " ")
	} else {
		badge = s.Badge.Render(" no violation so far ")
	}
	verdict := " verdict " + s.Verdict[string(m.res.Report.Verdict)].Render(string(m.res.Report.Verdict))
	if m.playing {
		verdict += "  ▶ " + speeds[m.speed].String()
	}
	return fit(s.Header.Render(left)+badge+verdict+"   ? help", m.com.Width)
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
	// Columns share what is left after the time and at least 30 cells of sentence.
	colW := min(max((w-12-30)/max(len(cols), 1), 6), 14)
	rows := h - 1
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+rows {
		m.top = m.cursor - rows + 1
	}
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
	at := fmt.Sprintf("%10s", row.At)
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
	hs := []int{h * 2 / 5, h * 3 / 10}
	hs = append(hs, h-hs[0]-hs[1])
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
	body := append([]string{m.com.Styles.PanelTitle.Render(title)}, lines...)
	content := m.box(body, max(w-4, 0), inner)
	return st.Padding(0, 1).Render(content)
}

func (m *Scenario) narrationStrip(w, h int) string {
	lines := append([]string{m.com.Styles.PanelTitle.Render("narration")}, m.narrationLines(w)...)
	return m.box(lines, w, h)
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

// stateLines shows the selected process's state at the cursor, marking what
// changed since its previous step.
func (m *Scenario) stateLines(w int) []string {
	p := m.stateProc()
	if p < 0 || m.tl.Len() == 0 {
		return []string{m.com.Styles.Dim.Render("(a violation row: no process stepped)")}
	}
	tr := m.res.Trace
	cur, prev := "", ""
	found := 0
	for r, n := m.cursor, 0; r >= 0 && found < 2 && n < 50_000; r, n = r-1, n+1 {
		ev := m.tl.RowEvent(r)
		if ev < 0 {
			continue
		}
		e := tr.Event(ev)
		if int(e.Proc) != p || tr.State(e) == "" {
			continue
		}
		if found == 0 {
			cur = tr.State(e)
		} else {
			prev = tr.State(e)
		}
		found++
	}
	if cur == "" {
		return []string{m.com.Styles.Dim.Render("(no step yet)")}
	}
	lines := wrapLines(cur, w)
	if prev != "" && prev != cur {
		for i := range lines {
			lines[i] = m.com.Styles.Changed.Render(lines[i])
		}
		lines = append(lines, m.com.Styles.Dim.Render("(changed at this step)"))
	}
	return lines
}

// clockLines shows each process's clock as of its last event at or before the
// cursor, and how far its wall clock is from true time.
func (m *Scenario) clockLines(w int) []string {
	tr := m.res.Trace
	cols := m.tl.Columns()
	seen := make([]bool, len(cols))
	lines := make([]string, len(cols))
	left := len(cols)
	for r, n := m.cursor, 0; r >= 0 && left > 0 && n < 50_000 && m.tl.Len() > 0; r, n = r-1, n+1 {
		ev := m.tl.RowEvent(r)
		if ev < 0 {
			continue
		}
		e := tr.Event(ev)
		if e.Proc < 0 || seen[e.Proc] {
			continue
		}
		seen[e.Proc] = true
		left--
		lines[e.Proc] = fmt.Sprintf("%-4s wall %s mono %s", cols[e.Proc].Name,
			sim.FormatDuration(e.Local.Wall), sim.FormatDuration(e.Local.Mono))
		if off := e.Local.Wall - time.Duration(e.At); off > time.Millisecond || off < -time.Millisecond {
			lines[e.Proc] += fmt.Sprintf(" (%+.3fs)", off.Seconds())
		}
	}
	for i := range lines {
		if !seen[i] {
			lines[i] = fmt.Sprintf("%-4s (no event yet)", cols[i].Name)
		}
		lines[i] = fit(lines[i], w)
	}
	return lines
}
