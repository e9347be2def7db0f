package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Timeline is the scrolling grid of one run: the cursor, what the view leaves
// out (quiet, hidden processes, reveal) and how wide the columns are. It draws
// only the rows on screen, so a long trace costs what the screen shows.
type Timeline struct {
	com    *Common
	base   *layout.Timeline
	tl     *layout.Timeline // base, filtered by quiet and hidden
	quiet  bool
	hidden []bool // by process
	reveal bool   // rows below the cursor are not drawn
	wide   bool   // presentation: the columns take the width; the sentence is in the detail
	cursor int
	top    int
	sel    sim.ProcID // the selected process; -1 follows the cursor's
	w, h   int
	views  map[string]*layout.Timeline // filtered views already laid out, by filter
}

// NewTimeline shows a laid-out run.
func NewTimeline(com *Common, base *layout.Timeline) Timeline {
	return Timeline{com: com, base: base, tl: base, hidden: make([]bool, len(base.Columns())), sel: -1,
		views: map[string]*layout.Timeline{}}
}

// SetSize sets the grid's size, its column header included.
func (m *Timeline) SetSize(w, h int) {
	m.w, m.h = w, h
	m.scroll()
}

// Layout is the run as the view shows it (filtered).
func (m Timeline) Layout() *layout.Timeline { return m.tl }

// Cursor is the selected row of Layout.
func (m Timeline) Cursor() int { return m.cursor }

// Rows is how many rows the timeline shows at once (under its column header).
func (m Timeline) Rows() int { return max(m.h-1, 1) }

// Row is the cursor's row.
func (m Timeline) Row() layout.Row { return m.tl.Row(m.cursor) }

// Quiet, Revealing and Hidden report the view's options.
func (m Timeline) Quiet() bool     { return m.quiet }
func (m Timeline) Revealing() bool { return m.reveal }
func (m Timeline) Hidden() int {
	n := 0
	for _, h := range m.hidden {
		if h {
			n++
		}
	}
	return n
}

// SetCursor moves the cursor to row r (clamped).
func (m *Timeline) SetCursor(r int) {
	m.cursor = min(max(r, 0), max(m.tl.Len()-1, 0))
	m.scroll()
}

// SetQuiet folds (or unfolds) background traffic, keeping the cursor's place.
func (m *Timeline) SetQuiet(on bool) { m.quiet = on; m.refilter() }

// SetReveal hides (or shows) the rows below the cursor.
func (m *Timeline) SetReveal(on bool) { m.reveal = on; m.scroll() }

// SetWide gives the columns the whole width (presentation).
func (m *Timeline) SetWide(on bool) { m.wide = on }

func (m *Timeline) refilter() {
	key := int64(0)
	if m.tl.Len() > 0 {
		key = m.tl.Key(m.cursor)
	}
	// A view costs a pass over the run: keep the few a lesson toggles between.
	id := fmt.Sprint(m.quiet, m.hidden)
	if m.views[id] == nil {
		if len(m.views) >= 4 {
			clear(m.views)
		}
		m.views[id] = m.base.Filter(layout.Filter{Quiet: m.quiet, Hidden: slices.Clone(m.hidden)})
	}
	m.tl = m.views[id]
	m.cursor = m.tl.RowAt(key)
	m.scroll()
}

// Selected is the selected process: the one chosen with ←/→, or the process of
// the cursor's row (for a violation, the first it names); -1 for none.
func (m Timeline) Selected() sim.ProcID {
	if m.sel >= 0 {
		return m.sel
	}
	if m.tl.Len() == 0 {
		return -1
	}
	if ev := m.tl.RowEvent(m.cursor); ev >= 0 {
		if p := m.tl.Trace().Event(ev).Proc; m.tl.Column(p) >= 0 {
			return p
		}
		return -1
	}
	for i, c := range m.Row().Cells {
		if c.Kind == layout.CellViolation {
			return m.tl.Columns()[i].Proc
		}
	}
	return -1
}

// Update moves the cursor and changes the view.
func (m Timeline) Update(msg tea.Msg) (Timeline, tea.Cmd) {
	k := m.com.Keys
	if to, ok := moveCursor(msg, k, m.cursor, m.tl.Len()); ok {
		m.SetCursor(to)
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.NextViolation), key.Matches(msg, k.PrevViolation):
			m.jump(m.tl.ViolationRows(), key.Matches(msg, k.PrevViolation))
		case key.Matches(msg, k.NextFault), key.Matches(msg, k.PrevFault):
			m.jump(m.tl.FaultRows(), key.Matches(msg, k.PrevFault))
		case key.Matches(msg, k.NextStop), key.Matches(msg, k.PrevStop):
			m.jump(m.tl.Stops(), key.Matches(msg, k.PrevStop))
		case key.Matches(msg, k.Follow):
			m.sel = -1
		case key.Matches(msg, k.Left), key.Matches(msg, k.Right):
			m.selectNext(key.Matches(msg, k.Left))
		case key.Matches(msg, k.Hide):
			if p := m.Selected(); p >= 0 && len(m.tl.Columns()) > 1 {
				m.hidden[p] = true
				m.sel = -1
				m.refilter()
			}
		case key.Matches(msg, k.ShowAll):
			clear(m.hidden)
			m.refilter()
		case key.Matches(msg, k.Quiet):
			m.SetQuiet(!m.quiet)
		case key.Matches(msg, k.Reveal):
			m.SetReveal(!m.reveal)
		}
	}
	return m, nil
}

// JumpNext moves to the first of rows after the cursor (or before it); it
// reports whether there was one.
func (m *Timeline) jump(rows []int, back bool) bool {
	r := layout.Next(rows, m.cursor, back)
	if r >= 0 {
		m.SetCursor(r)
	}
	return r >= 0
}

// selectNext selects the next shown process (or the previous one).
func (m *Timeline) selectNext(back bool) {
	cols := m.tl.Columns()
	i := max(m.tl.Column(m.Selected()), 0)
	if back {
		i = (i + len(cols) - 1) % len(cols)
	} else {
		i = (i + 1) % len(cols)
	}
	m.sel = cols[i].Proc
}

func (m *Timeline) scroll() { m.top = scrollTop(m.top, m.cursor, m.h-1, m.tl.Len(), m.reveal) }

// columnWidth is the width of one process column, and whether the sentence
// column fits after them. Presentation gives the columns the width; otherwise
// they are at most 14 wide and the sentence takes what is left, when that is
// worth reading.
func (m Timeline) columnWidth() (int, bool) {
	n := max(len(m.tl.Columns()), 1)
	free := m.w - m.tl.TimeWidth() - 2
	if m.wide {
		return min(max(free/n, 6), 24), false
	}
	w := min(max(free/n, 6), 14)
	return w, free-n*w >= 24
}

// View draws the column header and the rows on screen.
func (m Timeline) View() string {
	if m.h <= 0 {
		return ""
	}
	s := m.com.Styles
	colW, sentence := m.columnWidth()
	var head strings.Builder
	head.WriteString(fmt.Sprintf(" %-*s ", m.tl.TimeWidth(), "true time"))
	sel := m.Selected()
	for _, c := range m.tl.Columns() {
		name := fit(" "+c.Name, colW)
		if c.Proc == sel {
			name = " " + s.Selected.Render(fit(c.Name, colW-1))
		}
		head.WriteString(name)
	}
	if n := m.Hidden(); n > 0 {
		head.WriteString(s.Dim.Render(fmt.Sprintf("  +%d hidden (X)", n)))
	}
	lines := []string{s.Title.Render(fit(head.String(), m.w))}
	for r := m.top; r < m.top+m.h-1 && r < m.tl.Len(); r++ {
		if m.reveal && r > m.cursor {
			break
		}
		lines = append(lines, m.row(r, colW, sentence))
	}
	return box(lines, m.w, m.h)
}

// row draws row r: its mark (cursor, violation, narrated step), time, cells and,
// when there is room, its sentence.
func (m Timeline) row(r, colW int, sentence bool) string {
	s := m.com.Styles
	row := m.tl.Row(r)
	mark := " "
	at := fmt.Sprintf("%*s", m.tl.TimeWidth(), row.At)
	switch {
	case r == m.cursor:
		at, mark = s.Cursor.Render(at), s.Cursor.Render("▸")
	case row.Kind == layout.RowViolation:
		mark = s.Violation.Render("◆")
	case m.narrated(r):
		mark = s.Marker.Render(layout.CellNote.Glyph())
	}
	var b strings.Builder
	b.WriteString(mark + at + " ")
	cols := m.tl.Columns()
	for i, c := range row.Cells {
		b.WriteString(s.cell(c, int(cols[i].Proc), colW))
	}
	if sentence {
		text := row.Text
		if row.Kind == layout.RowViolation {
			text = s.Violation.Render(text)
		}
		b.WriteString("  " + text)
	}
	return fit(b.String(), m.w)
}

// narrated reports whether row r is where a narration starts.
func (m Timeline) narrated(r int) bool {
	_, at := m.tl.Narration(r)
	return at == r
}
