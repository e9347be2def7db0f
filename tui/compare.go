package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Compare is the screen of two runs side by side on one true-time cursor: a
// lesson's fault and its control, a mistake and its fix. Rows that show the
// same thing share a line; a row only one run has is a difference (≠), and d
// jumps to the next one. Each side's detail and narration are those of its row
// at or before the cursor.
type Compare struct {
	com    *Common
	keys   KeyMap
	res    [2]*scenarios.Result
	base   [2]*layout.Timeline
	c      *layout.Comparison
	quiet  bool
	reveal bool
	hidden map[string]bool // process names, hidden on both sides
	sel    string          // the selected process ("": the cursor's)
	cursor int
	top    int
	detail [2]Detail
	help   HelpScreen
	play   player
	marks  map[string][]int // lines to jump to, by kind, built on first use
	w, h   int
	tlH    int
	stripH int
}

// NewCompare opens two runs side by side.
func NewCompare(com *Common, a, b *scenarios.Result, back bool) Compare {
	m := Compare{com: com, keys: com.Keys, res: [2]*scenarios.Result{a, b}, hidden: map[string]bool{},
		help: NewHelpScreen(com), play: player{speed: 2}}
	m.keys.Back.SetEnabled(back)
	for _, b := range []*key.Binding{&m.keys.Walk, &m.keys.Present, &m.keys.Tab, &m.keys.NextStop, &m.keys.PrevStop} {
		b.SetEnabled(false)
	}
	for i, r := range m.res {
		m.base[i] = layout.New(r.Trace, &r.Report)
		m.detail[i] = NewDetail(com)
	}
	m.rebuild()
	return m
}

// Cursor is the cursor's line.
func (m Compare) Cursor() int { return m.cursor }

// Comparison is the two runs lined up as shown.
func (m Compare) Comparison() *layout.Comparison { return m.c }

// SetSize sets the screen's size.
func (m *Compare) SetSize(w, h int) {
	m.w, m.h = w, h
	m.relayout()
}

// rebuild lines the two runs up again after quiet or hiding changed, keeping the
// cursor at the same place of run A.
func (m *Compare) rebuild() {
	keyA := int64(-1)
	if m.c != nil && m.c.Len() > 0 {
		if a, _ := m.c.At(m.cursor); a >= 0 {
			keyA = m.c.A.Key(a)
		}
	}
	var tls [2]*layout.Timeline
	for i, base := range m.base {
		hidden := make([]bool, len(base.Columns()))
		for p, c := range base.Columns() {
			hidden[p] = m.hidden[c.Name]
		}
		tls[i] = base.Filter(layout.Filter{Quiet: m.quiet, Hidden: hidden})
	}
	m.c = layout.Compare(tls[0], tls[1])
	m.marks = nil
	m.cursor = 0
	if keyA >= 0 {
		m.cursor = m.c.LineOf(false, tls[0].RowAt(keyA))
	}
	m.scroll()
}

// lines lists the lines of one kind: violations, faults, differences.
func (m *Compare) lines(kind string) []int {
	if m.marks == nil {
		m.marks = map[string][]int{"viol": {}, "fault": {}}
		for i := range m.c.Len() {
			a, b := m.c.Own(i)
			for s, r := range []int{a, b} {
				if r < 0 {
					continue
				}
				tl := []*layout.Timeline{m.c.A, m.c.B}[s]
				if tl.RowEvent(r) < 0 {
					m.marks["viol"] = append(m.marks["viol"], i)
				} else if tl.Trace().Event(tl.RowEvent(r)).Kind.IsFault() {
					m.marks["fault"] = append(m.marks["fault"], i)
				}
			}
		}
		for k := range m.marks {
			m.marks[k] = slices.Compact(m.marks[k])
		}
		m.marks["diff"] = m.c.Differences()
	}
	return m.marks[kind]
}

func (m *Compare) setCursor(i int) {
	m.cursor = min(max(i, 0), max(m.c.Len()-1, 0))
	m.scroll()
}

func (m *Compare) jump(kind string, back bool) {
	if i := layout.Next(m.lines(kind), m.cursor, back); i >= 0 {
		m.setCursor(i)
	}
}

// Update handles one message.
func (m Compare) Update(msg tea.Msg) (Compare, tea.Cmd) {
	k := m.keys
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tickMsg:
		var due bool
		if cmd, due = m.play.advance(msg, m.cursor, m.c.Len(), m.setCursor); !due {
			return m, nil
		}
	case tea.MouseWheelMsg:
		to, _ := moveCursor(msg, k, m.cursor, m.c.Len())
		m.setCursor(to)
	case tea.KeyPressMsg:
		if cmd, done := screenKey(msg, k, &m.help); done {
			return m, cmd
		}
		if to, ok := moveCursor(msg, k, m.cursor, m.c.Len()); ok {
			m.setCursor(to)
			break
		}
		var played bool
		if cmd, played = m.play.key(msg, k); played {
			break
		}
		switch {
		case key.Matches(msg, k.Help):
			m.help.Open(m.keys.CompareHelp())
		case key.Matches(msg, k.NextDifference), key.Matches(msg, k.PrevDifference):
			m.jump("diff", key.Matches(msg, k.PrevDifference))
		case key.Matches(msg, k.NextViolation), key.Matches(msg, k.PrevViolation):
			m.jump("viol", key.Matches(msg, k.PrevViolation))
		case key.Matches(msg, k.NextFault), key.Matches(msg, k.PrevFault):
			m.jump("fault", key.Matches(msg, k.PrevFault))
		case key.Matches(msg, k.Quiet):
			m.quiet = !m.quiet
			m.rebuild()
		case key.Matches(msg, k.Reveal):
			m.reveal = !m.reveal
			m.scroll()
		case key.Matches(msg, k.Left), key.Matches(msg, k.Right):
			m.selectNext(key.Matches(msg, k.Left))
		case key.Matches(msg, k.Follow):
			m.sel = ""
		case key.Matches(msg, k.Hide):
			if p := m.selected(); p != "" && len(m.c.A.Columns()) > 1 {
				m.hidden[p], m.sel = true, ""
				m.rebuild()
			}
		case key.Matches(msg, k.ShowAll):
			clear(m.hidden)
			m.rebuild()
		}
	}
	m.relayout()
	return m, cmd
}

// names lists the processes shown, A's first, then those only B has.
func (m Compare) names() []string {
	var ns []string
	for _, tl := range []*layout.Timeline{m.c.A, m.c.B} {
		for _, c := range tl.Columns() {
			if !slices.Contains(ns, c.Name) {
				ns = append(ns, c.Name)
			}
		}
	}
	return ns
}

// selected is the selected process: chosen with ←/→, or that of the cursor's row.
func (m Compare) selected() string {
	if m.sel != "" || m.c.Len() == 0 {
		return m.sel
	}
	a, b := m.c.Own(m.cursor)
	for s, r := range []int{a, b} {
		tl := []*layout.Timeline{m.c.A, m.c.B}[s]
		if r >= 0 && tl.RowEvent(r) >= 0 {
			if p := tl.Trace().Event(tl.RowEvent(r)).Proc; p >= 0 {
				return tl.Trace().Name(p)
			}
		}
	}
	return ""
}

func (m *Compare) selectNext(back bool) {
	ns := m.names()
	i := max(slices.Index(ns, m.selected()), 0)
	if back {
		i = (i + len(ns) - 1) % len(ns)
	} else {
		i = (i + 1) % len(ns)
	}
	m.sel = ns[i]
}

func (m *Compare) scroll() { m.top = scrollTop(m.top, m.cursor, m.tlH-1, m.c.Len(), m.reveal) }

// split is the width of the two sides' parts of the screen, left of the │ and
// right of it, so that the header, the lines and the strip line up.
func (m Compare) split() (left, right int) {
	tw := max(m.c.A.TimeWidth(), m.c.B.TimeWidth())
	left = 1 + tw + 1 + m.sideW()
	return left, max(m.w-left-1, 1)
}

// sideW is the width of one side's cells.
func (m Compare) sideW() int {
	tw := max(m.c.A.TimeWidth(), m.c.B.TimeWidth())
	return max((m.w-tw-3)/2, 2)
}

// relayout sets each side's detail to its row at or before the cursor and gives
// the strip under the lines the height the two details need.
func (m *Compare) relayout() {
	m.help.SetSize(m.w, m.h-3)
	left, right := m.split()
	need := 1
	for s, w := range []int{left, right} {
		m.setDetail(s)
		need = max(need, m.detail[s].Needed(w))
	}
	body := m.h - 3 // two header lines, the footer
	m.stripH = min(need, max(2, body/3))
	m.tlH = max(body-m.stripH, 0)
	m.detail[0].SetSize(left, m.stripH)
	m.detail[1].SetSize(right, m.stripH)
	m.scroll()
}

// setDetail shows side s's row at or before the cursor, with its narration.
func (m *Compare) setDetail(s int) {
	tl := []*layout.Timeline{m.c.A, m.c.B}[s]
	label := []string{"A ", "B "}[s]
	if m.c.Len() == 0 {
		m.detail[s].SetEmpty(label, "no rows")
		return
	}
	a, b := m.c.At(m.cursor)
	r := []int{a, b}[s]
	if r < 0 {
		m.detail[s].SetEmpty(label, "nothing yet at this time")
		return
	}
	row := tl.Row(r)
	if text, at := tl.Narration(r); at >= 0 {
		row.Lines = append(row.Lines, "» "+text)
	}
	m.detail[s].SetRow(row, label)
}

// View draws the screen.
func (m Compare) View() string {
	if tooSmall(m.w, m.h) {
		return tooSmallView(m.w, m.h)
	}
	head := m.header()
	footer := m.help.Footer(m.keys.CompareHelp(), m.w)
	if m.help.IsOpen() {
		return lipgloss.JoinVertical(lipgloss.Left, head, m.help.View(), footer)
	}
	strip := lipgloss.JoinHorizontal(lipgloss.Top, m.detail[0].View(), box(slices.Repeat([]string{"│"}, m.stripH), 1, m.stripH),
		m.detail[1].View())
	return lipgloss.JoinVertical(lipgloss.Left, head, m.linesView(), box(strings.Split(strip, "\n"), m.w, m.stripH), footer)
}

// header is two lines: where the cursor is and how many differences there are,
// then each run with its verdict and its badge at the cursor.
func (m Compare) header() string {
	s := m.com.Styles
	at := sim.Time(0)
	if m.c.Len() > 0 {
		at = m.c.Time(m.cursor)
	}
	diffs := m.lines("diff")
	where := s.Dim.Render("the runs do not differ")
	if len(diffs) > 0 {
		where = fmt.Sprintf("%d differences, the first at %s", len(diffs), m.c.Time(diffs[0]))
		if i := slices.Index(diffs, m.cursor); i >= 0 {
			where = s.Differs.Render(fmt.Sprintf("difference %d of %d", i+1, len(diffs)))
		}
	}
	var on []string
	if m.quiet {
		on = append(on, "QUIET")
	}
	if m.reveal {
		on = append(on, "REVEAL")
	}
	top := s.Mode.Render(" COMPARE ") + modes(s, on...) + s.Header.Render(fmt.Sprintf(" t=%s  line %d/%d  ", at, m.cursor+1, m.c.Len())) +
		where + s.Header.Render("   ? help")
	left, right := m.split()
	var sides []string
	a, b := -1, -1
	if m.c.Len() > 0 {
		a, b = m.c.At(m.cursor)
	}
	hidden := m.reveal && m.cursor < m.c.Len()-1
	for i, r := range []int{a, b} {
		res := m.res[i]
		tl := []*layout.Timeline{m.c.A, m.c.B}[i]
		line := s.Header.Render(fmt.Sprintf("%s %s ", "AB"[i:i+1], res.Scenario.Title())) + verdict(s, &res.Report, hidden) + " "
		if r >= 0 {
			line += badge(s, tl, r, &res.Report)
		}
		sides = append(sides, fit(line, []int{left, right}[i]))
	}
	return fit(top, m.w) + "\n" + sides[0] + "│" + sides[1]
}

// linesView draws the column header and the lines on screen: the time, then
// each side's cells (on a line only the other side has, just its bars), a ≠
// before the lines that differ.
func (m Compare) linesView() string {
	s := m.com.Styles
	if m.tlH <= 0 {
		return ""
	}
	tw := max(m.c.A.TimeWidth(), m.c.B.TimeWidth())
	sideW := m.sideW()
	colW := func(tl *layout.Timeline) int { return min(max(sideW/max(len(tl.Columns()), 1), 4), 14) }
	sel := m.selected()
	headSide := func(tl *layout.Timeline) string {
		var b strings.Builder
		for _, c := range tl.Columns() {
			name := fit(" "+c.Name, colW(tl))
			if c.Name == sel {
				name = " " + s.Selected.Render(fit(c.Name, colW(tl)-1))
			}
			b.WriteString(name)
		}
		return fit(b.String(), sideW)
	}
	lines := []string{s.Title.Render(fmt.Sprintf(" %-*s ", tw, "true time")) + headSide(m.c.A) + "│" + headSide(m.c.B)}
	for i := m.top; i < m.top+m.tlH-1 && i < m.c.Len(); i++ {
		if m.reveal && i > m.cursor {
			break
		}
		mark := " "
		at := fmt.Sprintf("%*s", tw, m.c.Time(i))
		switch {
		case i == m.cursor:
			mark, at = s.Cursor.Render("▸"), s.Cursor.Render(at)
		case m.c.Differs(i):
			mark = s.Differs.Render("≠")
		}
		var b strings.Builder
		b.WriteString(mark + at + " ")
		for side, tl := range []*layout.Timeline{m.c.A, m.c.B} {
			var cells strings.Builder
			for j, c := range m.c.Cells(side == 1, i) {
				cells.WriteString(s.cell(c, int(tl.Columns()[j].Proc), colW(tl)))
			}
			b.WriteString(fit(cells.String(), sideW))
			if side == 0 {
				b.WriteString("│")
			}
		}
		lines = append(lines, fit(b.String(), m.w))
	}
	return box(lines, m.w, m.tlH)
}
