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

// Compare is the screen of two runs on one true-time cursor: a lesson's fault
// and its control, a mistake and its fix. Rows that show the same thing share a
// line; a row only one run has is a difference (≠), and d jumps to the next one.
// Each side's detail and narration are those of its row at or before the cursor.
//
// On a wide screen the runs stand side by side. When that would squeeze a cell
// under minCell (two 7-process runs below about 180 columns), they stand one
// above the other on one time axis, in one set of columns as wide as one run's:
// a line both runs show alike is drawn once, and where they differ, A's row is
// drawn over B's, each tagged with its run. When even one set of columns does
// not fit, the columns scroll sideways to keep the selected process (←/→) on
// screen.
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

	stacked bool     // the runs one above the other (narrow), not side by side
	cols    []string // stacked: the processes, A's then those only B has
	colIdx  [2][]int // stacked: each column's index among each run's columns (-1: not in that run)
	colOff  int      // stacked: the first column on screen, when they do not all fit
	colN    int      // stacked: how many columns are on screen
	colW    int      // stacked: their width
}

// minCell is the narrowest a compare screen lets a cell get: as wide as
// `locksim run` draws it (layout.ColumnWidth), the width the cells' words and
// short words are written for ("◆exclusive", "▶(integer)", "⏲ timeout"), so a
// cell shortens by words, never cuts one. Side by side needs that for both
// runs, or they stand one above the other; stacked, the columns that do not
// fit at that width scroll sideways.
const minCell = layout.ColumnWidth

// NewCompare opens two runs compared.
func NewCompare(com *Common, a, b *scenarios.Result, back bool) Compare {
	return newCompare(com, [2]*scenarios.Result{a, b}, [2]*layout.Timeline{}, nil, back)
}

// newCompare opens two runs compared, with what runScenario already laid out
// off the UI's event loop: their timelines (nil: lay them out here) and their
// comparison (nil: line them up here).
func newCompare(com *Common, res [2]*scenarios.Result, base [2]*layout.Timeline, c *layout.Comparison, back bool) Compare {
	m := Compare{com: com, keys: com.Keys, res: res, base: base, hidden: map[string]bool{},
		help: NewHelpScreen(com), play: player{speed: 2}}
	m.keys.Back.SetEnabled(back)
	for _, b := range []*key.Binding{&m.keys.Walk, &m.keys.Present, &m.keys.Tab, &m.keys.NextStop, &m.keys.PrevStop} {
		b.SetEnabled(false)
	}
	for i, r := range m.res {
		if m.base[i] == nil {
			m.base[i] = layout.New(r.Trace, &r.Report)
		}
		m.detail[i] = NewDetail(com)
	}
	m.c = c
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
	if m.c == nil || m.c.A != tls[0] || m.c.B != tls[1] { // lined up already when nothing changed
		m.c = layout.Compare(tls[0], tls[1])
	}
	m.cols = m.names()
	for side, tl := range tls {
		m.colIdx[side] = make([]int, len(m.cols))
		for j, name := range m.cols {
			m.colIdx[side][j] = slices.IndexFunc(tl.Columns(), func(c layout.Column) bool { return c.Name == name })
		}
	}
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
//
// A process only B has goes right after the one before it in B's order, not
// at the end: a row of B then keeps its columns in its own order, so an arrow
// that passes the process in B still runs between the columns it joins.
func (m Compare) names() []string {
	var ns []string
	for _, tl := range []*layout.Timeline{m.c.A, m.c.B} {
		at := 0 // where the next name missing from ns goes
		for _, c := range tl.Columns() {
			if i := slices.Index(ns, c.Name); i >= 0 {
				at = i + 1
				continue
			}
			ns = slices.Insert(ns, at, c.Name)
			at++
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

func (m *Compare) scroll() {
	if m.stacked {
		m.top = scrollLines(m.top, m.cursor, m.tlH-1, m.c.Len(), m.reveal, func(i int) int { return len(m.stackRows(i)) })
		return
	}
	m.top = scrollTop(m.top, m.cursor, m.tlH-1, m.c.Len(), m.reveal)
}

// split is the width of the two sides' parts of the screen, left of the │ and
// right of it, so that the header, the lines and the strip line up; stacked,
// the strip's halves.
func (m Compare) split() (left, right int) {
	if m.stacked {
		return (m.w - 1) / 2, m.w - 1 - (m.w-1)/2
	}
	tw := max(m.c.A.TimeWidth(), m.c.B.TimeWidth())
	left = 1 + tw + 1 + m.sideW()
	return left, max(m.w-left-1, 1)
}

// sideW is the width of one side's cells, side by side.
func (m Compare) sideW() int {
	tw := max(m.c.A.TimeWidth(), m.c.B.TimeWidth())
	return max((m.w-tw-3)/2, 2)
}

// sideCellW is the width of a cell of tl's side by side.
func (m Compare) sideCellW(tl *layout.Timeline) int {
	return min(max(m.sideW()/max(len(tl.Columns()), 1), 4), 14)
}

// cellW is the width of the narrowest cell on screen.
func (m Compare) cellW() int {
	if m.stacked {
		return m.colW
	}
	return min(m.sideCellW(m.c.A), m.sideCellW(m.c.B))
}

// stackedW is the width the stacked layout's columns share: the screen less
// the mark, the run's tag and the time.
func (m Compare) stackedW() int { return m.w - max(m.c.A.TimeWidth(), m.c.B.TimeWidth()) - 3 }

// headerH is the height of the header: where the cursor is, then each run's
// line (side by side, both on one when they fit their halves).
func (m Compare) headerH() int {
	if _, _, one := m.runHeaders(); one {
		return 2
	}
	return 3
}

// relayout chooses side by side or stacked, sets each side's detail to its row
// at or before the cursor and gives the strip under the lines the height the
// two details need.
func (m *Compare) relayout() {
	most := max(len(m.c.A.Columns()), len(m.c.B.Columns()), 1)
	m.stacked = m.sideW()/most < minCell
	if m.stacked {
		m.fitColumns()
	}
	body := m.h - m.headerH() - 1 // the header, the footer
	m.help.SetSize(m.w, body)
	left, right := m.split()
	need := 1
	for s, w := range []int{left, right} {
		m.setDetail(s)
		need = max(need, m.detail[s].Needed(w))
	}
	m.stripH = min(need, max(2, body/3))
	m.tlH = max(body-m.stripH, 0)
	m.detail[0].SetSize(left, m.stripH)
	m.detail[1].SetSize(right, m.stripH)
	m.scroll()
}

// fitColumns sizes the stacked layout's columns: as wide as one run's screen
// would make them (at most 14), never under minCell; when they do not all fit
// at that, as many as do, scrolled sideways to keep the selected process on
// screen.
func (m *Compare) fitColumns() {
	const note = 5 // " ←1 2→": the columns off screen
	free, n := m.stackedW(), max(len(m.cols), 1)
	m.colN, m.colW = n, min(max(free/n, minCell), 14)
	if free/n >= minCell {
		m.colOff = 0
		return
	}
	m.colN = min(n, max((free-note)/minCell, 1))
	m.colW = min(max((free-note)/m.colN, minCell), 14)
	m.colOff = min(max(m.colOff, 0), n-m.colN)
	if sel := slices.Index(m.cols, m.selected()); sel >= 0 {
		if sel < m.colOff {
			m.colOff = sel
		}
		if sel >= m.colOff+m.colN {
			m.colOff = sel - m.colN + 1
		}
	}
}

// stackRows is what line i draws when stacked: one row when both runs show the
// same cells there (-1), else the row of each run that has one, A's first.
func (m Compare) stackRows(i int) []int {
	a, b := m.c.Own(i)
	switch {
	case a >= 0 && b >= 0:
		ca, cb := m.c.Cells(false, i), m.c.Cells(true, i)
		for j := range m.cols {
			if m.cellAt(0, j, ca) != m.cellAt(1, j, cb) {
				return []int{0, 1}
			}
		}
		return []int{-1}
	case a >= 0:
		return []int{0}
	default:
		return []int{1}
	}
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
		return lipgloss.JoinVertical(lipgloss.Left, head, m.help.View(), m.help.OpenFooter(m.w))
	}
	strip := lipgloss.JoinHorizontal(lipgloss.Top, m.detail[0].View(), box(slices.Repeat([]string{"│"}, m.stripH), 1, m.stripH),
		m.detail[1].View())
	lines := m.linesView()
	if m.stacked {
		lines = m.stackedView()
	}
	return lipgloss.JoinVertical(lipgloss.Left, head, lines, box(strings.Split(strip, "\n"), m.w, m.stripH), footer)
}

// header is where the cursor is and how many differences there are, then each
// run with its verdict and its badge at the cursor: on one line side by side,
// on a line each stacked. A narrow line gives way part by part (the verdict's
// word, the badge's "so far", then its names), never the run's id.
func (m Compare) header() string {
	s := m.com.Styles
	at := sim.Time(0)
	if m.c.Len() > 0 {
		at = m.c.Time(m.cursor)
	}
	diffs := m.lines("diff")
	where := headerSlot{s.Dim.Render("the runs do not differ")}
	if len(diffs) > 0 {
		where = headerSlot{fmt.Sprintf("%d differences, the first at %s", len(diffs), m.c.Time(diffs[0])), fmt.Sprintf("%d differences", len(diffs))}
		if i := slices.Index(diffs, m.cursor); i >= 0 {
			where = headerSlot{s.Differs.Render(fmt.Sprintf("difference %d of %d", i+1, len(diffs))), s.Differs.Render(fmt.Sprintf("diff %d/%d", i+1, len(diffs)))}
		}
	}
	var on []string
	if m.quiet {
		on = append(on, "QUIET")
	}
	if m.reveal {
		on = append(on, "REVEAL")
	}
	top := headerLine(m.w, []headerSlot{
		{s.Mode.Render(" COMPARE ")},
		modeForms(s, on...),
		{s.Header.Render(fmt.Sprintf(" t=%s  line %d/%d  ", at, m.cursor+1, m.c.Len()))},
		where,
		{s.Header.Render("   ? help"), s.Header.Render("  ? help")},
	}, 4, 3, 1)
	a, b, one := m.runHeaders()
	if one {
		return top + "\n" + a + "│" + b
	}
	return top + "\n" + a + "\n" + b
}

// runHeaders is each run's header line, with its verdict and its badge at the
// cursor, and whether they stand on one line (side by side, when each fits its
// half) or on a line each.
func (m Compare) runHeaders() (a, b string, oneLine bool) {
	s := m.com.Styles
	ra, rb := -1, -1
	if m.c.Len() > 0 {
		ra, rb = m.c.At(m.cursor)
	}
	hidden := m.reveal && m.cursor < m.c.Len()-1
	side := func(i, r, w int) (string, bool) {
		res := m.res[i]
		tl := []*layout.Timeline{m.c.A, m.c.B}[i]
		bdg := headerSlot{""}
		if r >= 0 {
			bdg = badgeForms(s, tl, r, &res.Report, hidden, res.Scenario.ResourceGuard())
			for k := range bdg {
				bdg[k] = " " + bdg[k]
			}
		}
		line, ok := shrinkLine(w, []headerSlot{
			{s.Header.Render(fmt.Sprintf("%s %s ", "AB"[i:i+1], res.Scenario.Title()))},
			verdictForms(s, &res.Report, hidden),
			bdg,
		}, 1, 2, 2, 2)
		return fit(line, w), ok
	}
	if !m.stacked {
		left, right := m.split()
		a, okA := side(0, ra, left)
		b, okB := side(1, rb, right)
		if okA && okB {
			return a, b, true
		}
	}
	a, _ = side(0, ra, m.w)
	b, _ = side(1, rb, m.w)
	return a, b, false
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
	colW := m.sideCellW
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

// stackedView draws the runs one above the other: the column header, then the
// lines on screen, each one row when the runs show the same there, or A's row
// over B's, tagged with the run (a row only one run has is a difference, ≠).
func (m Compare) stackedView() string {
	s := m.com.Styles
	if m.tlH <= 0 {
		return ""
	}
	tw := max(m.c.A.TimeWidth(), m.c.B.TimeWidth())
	sel := m.selected()
	shown := m.cols[m.colOff:min(m.colOff+m.colN, len(m.cols))]
	var head strings.Builder
	head.WriteString(s.Title.Render(fmt.Sprintf("  %-*s ", tw, "true time")))
	for _, name := range shown {
		if name == sel {
			head.WriteString(" " + s.Selected.Render(fit(name, m.colW-1)))
		} else {
			head.WriteString(fit(" "+name, m.colW))
		}
	}
	if off := len(m.cols) - len(shown); off > 0 {
		var more []string
		if m.colOff > 0 {
			more = append(more, fmt.Sprintf("←%d", m.colOff))
		}
		if right := len(m.cols) - m.colOff - len(shown); right > 0 {
			more = append(more, fmt.Sprintf("%d→", right))
		}
		head.WriteString(s.Dim.Render(" " + strings.Join(more, " ")))
	}
	lines := []string{fit(head.String(), m.w)}
	rows := m.tlH - 1
	for i := m.top; i < m.c.Len() && len(lines) <= rows; i++ {
		if m.reveal && i > m.cursor {
			break
		}
		for k, side := range m.stackRows(i) {
			if len(lines) > rows {
				break
			}
			lines = append(lines, m.stackedRow(i, k, side, tw, shown))
		}
	}
	return box(lines, m.w, m.tlH)
}

// stackedRow draws line i's k-th row: side's cells (-1: the line both runs
// share), after the mark, the run's tag and the time (on the line's first row).
func (m Compare) stackedRow(i, k, side, tw int, shown []string) string {
	s := m.com.Styles
	mark, tag := " ", " "
	at := fmt.Sprintf("%*s", tw, m.c.Time(i))
	if k > 0 {
		at = strings.Repeat(" ", tw)
	}
	if side >= 0 {
		tag = "AB"[side : side+1]
		if m.c.Differs(i) {
			tag = s.Differs.Render(tag)
		}
	}
	switch {
	case i == m.cursor && k == 0:
		mark, at = s.Cursor.Render("▸"), s.Cursor.Render(at)
	case m.c.Differs(i):
		mark = s.Differs.Render("≠")
	}
	var b strings.Builder
	b.WriteString(mark + tag + at + " ")
	from := max(side, 0)
	cells := m.c.Cells(from == 1, i)
	tl := []*layout.Timeline{m.c.A, m.c.B}[from]
	for j := range shown {
		idx := m.colIdx[from][m.colOff+j]
		if idx < 0 {
			b.WriteString(fit(s.cell(m.cellAt(from, m.colOff+j, cells), 0, m.colW), m.colW))
			continue
		}
		b.WriteString(s.cell(cells[idx], int(tl.Columns()[idx].Proc), m.colW))
	}
	return fit(b.String(), m.w)
}

// cellAt is run side's cell in column j of the stacked view. In a column of a
// process the run does not have, it is empty, or a wire when an arrow of the
// run runs across it.
func (m Compare) cellAt(side, j int, cells []layout.Cell) layout.Cell {
	if k := m.colIdx[side][j]; k >= 0 {
		return cells[k]
	}
	if m.wireAcross(side, j, cells) {
		return layout.Cell{Kind: layout.CellWire}
	}
	return layout.Cell{}
}

// wireAcross says whether, on a row of run side, an arrow runs across column
// j, a process that run does not have: the run's cells on either side of it
// are one arrow's (its tail or wire on the left, its wire or head on the right).
func (m Compare) wireAcross(side, j int, cells []layout.Cell) bool {
	kind := func(step int) layout.CellKind {
		for k := j + step; k >= 0 && k < len(m.cols); k += step {
			if idx := m.colIdx[side][k]; idx >= 0 {
				return cells[idx].Kind
			}
		}
		return layout.CellEmpty
	}
	l, r := kind(-1), kind(+1)
	right := (l == layout.CellSend || l == layout.CellWire) && (r == layout.CellWire || r == layout.CellArrive)
	left := (l == layout.CellArriveLeft || l == layout.CellWire) && (r == layout.CellWire || r == layout.CellSendLeft)
	return right || left
}

// scrollLines is scrollTop for lines of different heights (height(i) rows):
// the first line to draw so that the cursor's line is on screen, with a few
// lines after it in view; when revealing, the cursor's line is the last. It
// measures only lines near the screen, so a long comparison costs what the
// screen shows.
func scrollLines(top, cursor, rows, n int, reveal bool, height func(int) int) int {
	if rows <= 0 || n == 0 {
		return top
	}
	// back is the first line of the screen whose last line is last.
	back := func(last int) int {
		i, h := last, 0
		for ; i >= 0; i-- {
			if h += height(i); h > rows {
				break
			}
		}
		return min(i+1, last)
	}
	if reveal {
		return back(cursor)
	}
	margin := min(3, rows/8)
	top = min(top, max(cursor-margin, 0))
	top = max(top, back(min(cursor+margin, n-1)))
	return min(top, back(n-1)) // no blank rows under the last line
}
