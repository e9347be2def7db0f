package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Panels, in tab order.
const (
	panelNarration = iota
	panelState
	panelClocks
	panelCount
)

// ScenarioOptions say how a run opens.
type ScenarioOptions struct {
	Walk    bool // follow the story: space goes to the next stop; rows below the cursor stay hidden
	Present bool // presentation: the timeline takes the width, narration and detail in a strip
	Back    bool // esc goes back to the catalogue

	Layout *layout.Timeline // the run laid out already, off the UI's event loop (nil: lay it out here)
}

// Scenario is the screen of one finished run: the timeline, the panels (narration,
// state, clocks), the detail line, the header and the footer.
type Scenario struct {
	com     *Common
	keys    KeyMap
	res     *scenarios.Result
	tl      Timeline
	panels  [panelCount]Panel
	detail  Detail
	help    HelpScreen
	walk    bool
	present bool
	asking  int  // walk: the stop row whose question is on screen, its answer not yet shown (-1: none)
	synced  int  // the cursor's row when the panels were last filled
	hints   int  // an exercise's hints shown so far (e)
	pageTop int  // walk: the top row of the page of a long beat just shown (-1: none)
	walked  bool // walk: a beat has been shown (before that, the first stop may be the cursor's row)
	quiet   bool // quiet as it was before presentation turned it on
	play    player
	focus   int // the panel that tab chose
	w, h    int
	lay     screenLayout
}

// screenLayout is where everything goes at the current size.
type screenLayout struct {
	side    bool // the panels stand in a column beside the timeline
	sideW   int
	tlH     int
	panelH  [panelCount]int // the side column's panels (0: given way), or the strip's height
	detailH int
}

// backMsg asks the root for the catalogue again.
type backMsg struct{}

// NewScenario opens a run.
func NewScenario(com *Common, res *scenarios.Result, opt ScenarioOptions) Scenario {
	base := opt.Layout
	if base == nil {
		base = layout.New(res.Trace, &res.Report)
	}
	m := Scenario{com: com, keys: com.Keys, res: res, tl: NewTimeline(com, base),
		detail: NewDetail(com), help: NewHelpScreen(com), play: player{speed: 2}, asking: -1, pageTop: -1}
	for i := range m.panels {
		m.panels[i] = NewPanel(com)
	}
	m.keys.Back.SetEnabled(opt.Back)
	m.keys.NextDifference.SetEnabled(false)
	m.keys.PrevDifference.SetEnabled(false)
	m.setWalk(opt.Walk)
	m.setPresent(opt.Present)
	m.sync()
	return m
}

// Cursor is the cursor's row in the timeline as shown.
func (m Scenario) Cursor() int { return m.tl.Cursor() }

// SetSize sets the screen's size.
func (m *Scenario) SetSize(w, h int) {
	m.w, m.h = w, h
	m.relayout()
}

func (m *Scenario) setWalk(on bool) {
	m.walk = on
	m.asking, m.walked = -1, false
	m.tl.SetReveal(on)
	if on {
		m.keys.Play.SetHelp("space", "next stop")
		m.keys.Walk.SetHelp("w", "end the walk")
	} else {
		m.keys.Play.SetHelp("space", "play/pause")
		m.keys.Walk.SetHelp("w", "walk the story")
	}
}

func (m *Scenario) setPresent(on bool) {
	if on == m.present {
		return
	}
	m.present = on
	m.tl.SetWide(on)
	m.keys.Tab.SetEnabled(!on)
	if on {
		m.quiet = m.tl.Quiet()
		m.tl.SetQuiet(true) // background traffic folds by default in front of a room
	} else {
		m.tl.SetQuiet(m.quiet)
	}
}

// Update handles one message.
func (m Scenario) Update(msg tea.Msg) (Scenario, tea.Cmd) {
	k := m.keys
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tickMsg:
		var due bool
		if cmd, due = m.play.advance(msg, m.tl.Cursor(), m.tl.Layout().Len(), m.tl.SetCursor); !due {
			return m, nil
		}
	case tea.KeyPressMsg:
		if cmd, done := screenKey(msg, k, &m.help); done {
			return m, cmd
		}
		switch {
		case key.Matches(msg, k.Help):
			m.help.Open(m.keys.ScenarioHelp(m.walk))
		case key.Matches(msg, k.Play) && m.walk:
			m.pageTop = -1
			m.nextStop()
			m.sync()
			// The panels' heights follow the new narration, and so does the
			// timeline's: a page of a long beat measured before is cut to the
			// rows that are now on screen (twice at most: the detail line's
			// height follows the row).
			for i := 0; i < 2 && m.pageTop >= 0 && m.tl.Cursor() > m.pageTop+m.tl.Rows()-1; i++ {
				m.tl.SetCursor(m.pageTop + m.tl.Rows() - 1)
				m.sync()
			}
		case key.Matches(msg, k.Walk):
			m.setWalk(!m.walk)
		case key.Matches(msg, k.Hint) && m.res.Scenario.IsExercise():
			m.hints = min(m.hints+1, len(m.res.Scenario.Exercise.Hints))
		case key.Matches(msg, k.Present):
			m.setPresent(!m.present)
		case key.Matches(msg, k.Tab):
			m.focus = (m.focus + 1) % panelCount
		case key.Matches(msg, k.PanelUp), key.Matches(msg, k.PanelDown):
			m.panels[m.focus], cmd = m.panels[m.focus].Update(msg)
		default: // the player's keys, then the timeline's
			var played bool
			if cmd, played = m.play.key(msg, k); !played {
				m.tl, cmd = m.tl.Update(msg)
			}
		}
	case tea.MouseWheelMsg:
		m.tl, cmd = m.tl.Update(msg)
	}
	m.sync()
	return m, cmd
}

// nextStop goes on with the walk. At a stop whose question is on screen, it
// shows the answer: the beat's rows, down to the next stop, and its
// narration. Otherwise it goes to the next stop: to ask its question, or,
// when it has none, to show its beat and narration at once. After the last
// beat, the end of the run.
//
// A beat taller than the screen is shown a screen at a time, its stop at the
// top first: drawn whole at once, its stop (a violation, often) would scroll
// off above rows of what followed it. The next space goes on down the beat.
func (m *Scenario) nextStop() {
	tl := m.tl.Layout()
	if m.asking >= 0 {
		if b, ok := tl.BeatOf(m.asking); ok {
			m.tl.SetCursor(m.beatPage(b.Stop, b.End))
		}
		m.asking = -1
		return
	}
	from := m.tl.Cursor()
	if !m.walked {
		from = -1 // the walk opens on the first row, which may be the first stop
	}
	if b, ok := tl.BeatOf(from); ok && m.walked && from < b.End {
		m.tl.SetCursor(m.beatPage(from+1, b.End)) // the rest of a long beat
		return
	}
	m.walked = true
	next := layout.Next(tl.Stops(), from, false)
	if next < 0 {
		m.tl.SetCursor(tl.Len() - 1)
		return
	}
	b, _ := tl.BeatOf(next)
	if b.Question != "" {
		m.tl.SetCursor(next)
		m.asking = next
		return
	}
	m.tl.SetCursor(m.beatPage(next, b.End))
}

// beatPage is where the cursor goes to show a beat's rows from row top on:
// its end, or, when they do not fit, the last row that does with top at the
// top of the screen.
func (m *Scenario) beatPage(top, end int) int {
	m.pageTop = top
	return min(end, top+m.tl.Rows()-1)
}

// sync puts what the cursor shows into the panels and the detail line, then
// lays the screen out again (their heights follow their text).
func (m *Scenario) sync() {
	if m.asking != m.tl.Cursor() {
		m.asking = -1 // the cursor left the stop: the question is no longer asked
	}
	if cur := m.tl.Cursor(); m.walk && m.walked && cur != m.synced {
		// Back on a stop that asks (↑, S, g): it asks again, its answer hidden,
		// so a teacher can put the question to the room once more.
		if b, ok := m.tl.Layout().BeatOf(cur); ok && b.Stop == cur && b.Question != "" {
			m.asking = cur
		}
	}
	m.synced = m.tl.Cursor()
	for i := range m.panels {
		m.panels[i].SetFocus(i == m.focus && !m.present)
	}
	tl := m.tl.Layout()
	if tl.Len() > 0 {
		row := m.tl.Row()
		if m.walk && m.asking >= 0 && tl.IsNote(m.asking) { // a note at a stop that asks is its answer
			row.Lines = []string{"note: its text is the answer to the question (space)"}
			row.Text = row.Lines[0]
		}
		m.detail.SetRow(row, "")
	}
	m.panels[panelNarration].SetContent("narration", m.narration())
	if !m.present { // state and clocks are not on screen in presentation
		title, text := m.stateText()
		if m.walk && m.asking >= 0 { // what a process believes now may be the answer
			text = m.com.Styles.Dim.Render("(hidden while the walk asks: space shows the answer)")
		}
		m.panels[panelState].SetContent(title, text)
		m.panels[panelClocks].SetContent("clocks at the cursor", m.clockText())
	}
	m.relayout()
}

// narration is the narration in force at the cursor; before the story starts,
// the scenario's summary. In a walk, a stop's question while it is asked
// (its answer's rows not yet drawn), and then the beat's narration.
func (m Scenario) narration() string {
	if s := m.res.Scenario; s.IsExercise() && !m.walk {
		return exerciseText(m.com.Styles, s, m.hints, nil)
	}
	tl := m.tl.Layout()
	if tl.Len() == 0 {
		return ""
	}
	if m.walk && m.asking == m.tl.Cursor() {
		b, _ := tl.BeatOf(m.asking)
		return m.com.Styles.Question.Render("? "+b.Question) + "\n\n" + m.com.Styles.Dim.Render("space: the answer")
	}
	if b, ok := tl.BeatOf(m.tl.Cursor()); m.walk && ok {
		if b.Narration != "" {
			return b.Narration
		}
		if text, at := tl.Narration(m.tl.Cursor()); at < 0 || text == "" {
			return tl.Row(b.Stop).Text // a fault or a violation the scenario does not narrate: what it is
		}
	}
	if text, at := tl.Narration(m.tl.Cursor()); at >= 0 {
		return text
	}
	if first := layout.Next(tl.Stops(), -1, false); first < 0 || m.tl.Cursor() < first {
		return m.com.Styles.Dim.Render(m.res.Scenario.Summary)
	}
	return m.com.Styles.Dim.Render("(no narration for this step)")
}

// stateText is the selected process's state at the cursor, marked when this very
// row is that process's step and changed it.
func (m Scenario) stateText() (string, string) {
	dim := m.com.Styles.Dim
	p := m.tl.Selected()
	tl := m.tl.Layout()
	if p < 0 || tl.Len() == 0 {
		return "state", dim.Render("no process stepped at this row (←/→ choose one)")
	}
	title := "state of " + tl.Trace().Name(p)
	if m.tl.Row().Cells[tl.Column(p)].Spans&layout.SpanDown != 0 {
		return title, m.com.Styles.Violation.Render("down: crashed, not restarted yet")
	}
	tr := tl.Trace()
	cur, prev := "", ""
	curRow := -1
	for r, found, n := m.tl.Cursor(), 0, 0; r >= 0 && found < 2 && n < 200_000; r, n = r-1, n+1 {
		ev := tl.RowEvent(r)
		if ev < 0 {
			continue
		}
		e := tr.Event(ev)
		if e.Proc != p || tr.State(e) == "" {
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
		return title, dim.Render("(no step yet)")
	}
	if curRow == m.tl.Cursor() && prev != "" && prev != cur {
		return title, m.com.Styles.Changed.Render(cur) + "\n" + dim.Render("(changed at this step)")
	}
	return title, cur
}

// clockText is every process's clock at the cursor's true time, as a table
// narrow enough for the side column (28 cells at 120x40): its wall clock, and
// how far that is from true time when it is (a jump, a skew, a drift), then its
// monotonic clock. Readings are rounded to the millisecond: the header and the
// detail line give the exact true time, and an offset under a millisecond is
// not shown at all.
func (m Scenario) clockText() string {
	tl := m.tl.Layout()
	if tl.Len() == 0 {
		return ""
	}
	tr := tl.Trace()
	at := tl.RowTime(m.tl.Cursor())
	ms := func(d time.Duration) string { return sim.FormatDuration(d.Round(time.Millisecond)) }
	nameW := 4
	for _, name := range tr.Names {
		nameW = max(nameW, len(name))
	}
	var walls, monos []string
	for i := range tr.Names {
		r := tr.ClockAt(sim.ProcID(i), at)
		wall := ms(r.Wall)
		if off := (r.Wall - time.Duration(at)).Round(time.Millisecond); off != 0 {
			wall += " " + clockOffset(off)
		}
		walls, monos = append(walls, wall), append(monos, ms(r.Mono))
	}
	wallW := 4
	for _, w := range walls {
		wallW = max(wallW, len(w))
	}
	lines := []string{m.com.Styles.Dim.Render(fmt.Sprintf("%-*s %-*s  %s", nameW, "", wallW, "wall", "mono"))}
	for i, name := range tr.Names {
		lines = append(lines, fmt.Sprintf("%-*s %-*s  %s", nameW, name, wallW, walls[i], monos[i]))
	}
	return strings.Join(lines, "\n")
}

// clockOffset is a wall clock's distance from true time in its shortest
// form, signed: +15s, -250ms, +40m.
func clockOffset(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if d > 0 {
		s = "+" + s
	}
	return s
}

// relayout decides where everything goes. The detail line takes what its text
// needs (up to a quarter of the body); the side column stands beside the timeline
// when the screen is wide and tall enough, and its panels give way in the order
// state, clocks, narration; otherwise one panel (narration in presentation)
// stands in a strip under the timeline.
func (m *Scenario) relayout() {
	w, body := m.w, m.h-2 // header and footer
	m.help.SetSize(w, body)
	if tooSmall(m.w, m.h) {
		return
	}
	var l screenLayout
	l.detailH = min(max(m.detail.Needed(w), 1), max(2, body/4))
	l.side = !m.present && w >= 100 && body-l.detailH >= 14
	if l.side {
		l.sideW = min(max(w/4, 32, m.panels[panelClocks].TextWidth()+4), 48) // wide enough for the clocks' lines
		h := body - l.detailH
		l.tlH = h
		narr := min(max(m.panels[panelNarration].Needed(l.sideW, true), 5), h)
		clocks := m.panels[panelClocks].Needed(l.sideW, true)
		l.panelH[panelNarration] = narr
		if rest := h - narr; rest >= clocks {
			l.panelH[panelClocks] = clocks
			if rest-clocks >= 5 {
				l.panelH[panelState] = rest - clocks
			} else {
				l.panelH[panelNarration] += rest - clocks
			}
		} else {
			l.panelH[panelNarration] = h
		}
	} else {
		p := m.stripPanel()
		strip := min(max(m.panels[p].Needed(w, false), 2), max(3, body/3))
		l.tlH = body - l.detailH - strip
		if l.tlH < 3 { // a short screen: the strip and the detail shrink, never to nothing
			strip = max(strip-(3-l.tlH), 1)
			l.tlH = body - l.detailH - strip
		}
		if l.tlH < 2 {
			l.detailH = max(l.detailH-(2-l.tlH), 1)
			l.tlH = body - l.detailH - strip
		}
		l.panelH[p] = strip
	}
	m.lay = l
	m.tl.SetSize(w-l.sideW, l.tlH)
	m.detail.SetSize(w, l.detailH)
	pw := w // a strip is as wide as the screen
	if l.side {
		pw = l.sideW
	}
	for i := range m.panels {
		m.panels[i].SetSize(pw, l.panelH[i], l.side)
	}
}

// stripPanel is the panel the strip shows: narration in presentation, else the
// one tab chose.
func (m Scenario) stripPanel() int {
	if m.present {
		return panelNarration
	}
	return m.focus
}

// View draws the screen.
func (m Scenario) View() string {
	if tooSmall(m.w, m.h) {
		return tooSmallView(m.w, m.h)
	}
	header, footer := m.header(), m.footer()
	if m.help.IsOpen() {
		return lipgloss.JoinVertical(lipgloss.Left, header, m.help.View(), m.help.OpenFooter(m.w))
	}
	var body string
	if m.lay.side {
		var col []string
		for i := range m.panels {
			if m.lay.panelH[i] > 0 {
				col = append(col, m.panels[i].View())
			}
		}
		body = lipgloss.JoinHorizontal(lipgloss.Top, m.tl.View(), lipgloss.JoinVertical(lipgloss.Left, col...))
	} else {
		p := m.stripPanel()
		body = lipgloss.JoinVertical(lipgloss.Left, m.tl.View(), m.panels[p].View())
	}
	return lipgloss.JoinVertical(lipgloss.Left, header, body, m.detail.View(), footer)
}

func (m Scenario) header() string {
	s := m.com.Styles
	tl := m.tl.Layout()
	at := sim.Time(0)
	if tl.Len() > 0 {
		at = tl.RowTime(m.tl.Cursor())
	}
	play := ""
	if m.play.playing {
		play = " ▶ " + speeds[m.play.speed].String()
	}
	hidden := m.tl.Revealing() && m.tl.Cursor() < tl.Len()-1
	var on []string
	for _, x := range []struct {
		on   bool
		name string
	}{{m.walk, "WALK"}, {m.present, "PRESENT"}, {m.tl.Quiet(), "QUIET"}, {m.tl.Revealing() && !m.walk, "REVEAL"}} {
		if x.on {
			on = append(on, x.name)
		}
	}
	row := fmt.Sprintf("seed %d  row %d/%d", m.res.Seed, m.tl.Cursor()+1, tl.Len())
	// Narrow, the parts give way in this order; seed, row and ? help never do.
	const (
		sBadge = iota
		sID
		sVerdict
		sModes
		sRight
	)
	return headerLine(m.w, []headerSlot{
		sBadge:   badgeForms(s, tl, m.tl.Cursor(), &m.res.Report, hidden, m.res.Scenario.ResourceGuard()),
		sID:      {s.Header.Render(fmt.Sprintf(" t=%s%s  %s  ", at, play, m.res.Scenario.ID)), s.Header.Render(fmt.Sprintf(" t=%s%s  ", at, play))},
		sVerdict: verdictForms(s, &m.res.Report, hidden),
		sModes:   append(modeForms(s, on...), ""),
		sRight:   {s.Header.Render("  " + row + "   ? help"), s.Header.Render("  " + row + "  ? help")},
	}, sRight, sVerdict, sBadge, sID, sModes, sVerdict, sBadge, sModes, sBadge, sModes)
}

func (m Scenario) footer() string { return m.help.Footer(m.keys.ScenarioHelp(m.walk), m.w) }
