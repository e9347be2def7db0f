package tui

import (
	"fmt"
	"io"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
)

// Catalogue is the browser, by lesson: the scenarios grouped by protocol under
// a header each, and in a protocol each mistake beside its fix (the scenarios
// that name each other with compare-with stand together, the worse verdict
// first). Each opens plain, as a walk, or against its pair. The list is a
// bubbles/list; its filter (/, a textinput) keeps the scenarios whose id,
// summary or source has every word typed, under their headers, in lesson order.
type Catalogue struct {
	com    *Common
	keys   KeyMap
	help   help.Model
	list   list.Model
	all    []*scenarios.Scenario
	status string // why the last open failed, shown until the next key
	w, h   int
}

// catItem is one line of the browser: a protocol's header (s nil) or a scenario.
type catItem struct {
	s      *scenarios.Scenario
	proto  string // the header's protocol, or the scenario's
	count  int    // a header: how many scenarios its protocol has
	lesson int    // a scenario's lesson, numbered through the catalogue
	text   string // what the filter searches: id, summary and source, in lower case
}

func (i catItem) FilterValue() string { return i.text }

// openMsg asks the root to open a scenario: plain, as a walk, or against its pair.
type openMsg struct {
	s       *scenarios.Scenario
	walk    bool
	compare bool
}

// NewCatalogue lists the given scenarios, by lesson.
func NewCatalogue(com *Common, cat []*scenarios.Scenario) Catalogue {
	c := Catalogue{com: com, keys: com.Keys, help: help.New(), all: cat}
	if com.Styles.Plain {
		c.help.Styles = help.Styles{}
	}
	items := byLesson(cat)
	l := list.New(items, catDelegate{com: com, idW: idWidth(cat)}, 0, 0)
	l.SetShowTitle(false)
	l.SetShowFilter(false) // the browser draws the filter line itself
	l.SetShowStatusBar(false)
	l.SetShowPagination(false)
	l.SetShowHelp(false)
	l.DisableQuitKeybindings()
	l.Filter = lessonFilter(items)
	k := com.Keys
	off := key.NewBinding(key.WithDisabled())
	l.KeyMap = list.KeyMap{
		CursorUp: k.Up, CursorDown: k.Down, GoToStart: k.Start, GoToEnd: k.End,
		PrevPage: k.PanelUp, NextPage: k.PanelDown, Filter: k.Filter,
		ClearFilter:          key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter")),
		CancelWhileFiltering: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter")),
		AcceptWhileFiltering: key.NewBinding(key.WithKeys("enter", "tab", "up", "down"), key.WithHelp("enter", "keep the filter")),
		ShowFullHelp:         off, CloseFullHelp: off, Quit: off, ForceQuit: off,
	}
	st := l.FilterInput.Styles()
	st.Cursor.Blink = false // a steady cursor: no blink ticks while typing
	l.FilterInput.SetStyles(st)
	l.FilterInput.Prompt = "/"
	c.list = l
	c.settle(-1)
	return c
}

// byLesson is the browser's list: a header before each protocol, then its
// lessons (scenarios.Lessons), each scenario tagged with its lesson's number.
func byLesson(cat []*scenarios.Scenario) []list.Item {
	var items []list.Item
	n := 0 // lessons so far
	for _, g := range scenarios.Lessons(cat) {
		count := 0
		for _, l := range g.Lessons {
			count += len(l)
		}
		items = append(items, catItem{proto: g.Protocol, count: count})
		for _, lesson := range g.Lessons {
			n++
			for _, s := range lesson {
				items = append(items, catItem{s: s, proto: g.Protocol, lesson: n,
					text: strings.ToLower(s.ID + "\n" + s.Summary + "\n" + s.Source)})
			}
		}
	}
	return items
}

// lessonFilter keeps the scenarios whose text has every word of the filter
// (case does not matter), each under its protocol's header, in lesson order:
// a search, not a ranking.
func lessonFilter(items []list.Item) list.FilterFunc {
	return func(term string, targets []string) []list.Rank {
		words := strings.Fields(strings.ToLower(term))
		var ranks []list.Rank
		header := -1
		for i, t := range targets {
			it := items[i].(catItem)
			if it.s == nil {
				header = i
				continue
			}
			match := true
			for _, w := range words {
				match = match && strings.Contains(t, w)
			}
			if !match {
				continue
			}
			if header >= 0 {
				ranks = append(ranks, list.Rank{Index: header})
				header = -1
			}
			ranks = append(ranks, list.Rank{Index: i})
		}
		return ranks
	}
}

// idWidth is the width of the id column: the longest id.
func idWidth(cat []*scenarios.Scenario) int {
	w := 8
	for _, s := range cat {
		w = max(w, len(s.ID))
	}
	return w
}

// SetSize sets the browser's size: a title, the filter's line and the column
// header above the list, the footer under it.
func (c *Catalogue) SetSize(w, h int) {
	c.w, c.h = w, h
	c.list.SetSize(max(w, 1), max(h-4, 1))
	c.settle(-1)
}

// Selected is the scenario under the cursor, or nil.
func (c Catalogue) Selected() *scenarios.Scenario {
	if it, ok := c.list.SelectedItem().(catItem); ok {
		return it.s
	}
	return nil
}

// settle moves the cursor off a header, onward in the direction it came
// (from the row it was on before, -1 for none), and names the selected
// scenario's pair in v's help (v is off without one).
func (c *Catalogue) settle(before int) {
	up := before >= 0 && c.list.Index() < before
	for range 2 {
		for c.Selected() == nil && len(c.list.VisibleItems()) > 0 {
			i := c.list.Index()
			if up {
				c.list.CursorUp()
			} else {
				c.list.CursorDown()
			}
			if c.list.Index() == i { // at an end: turn round
				break
			}
		}
		up = !up
	}
	pair := ""
	if s := c.Selected(); s != nil {
		pair = s.CompareWith
	}
	c.keys.OpenCompare.SetEnabled(pair != "")
	c.keys.OpenCompare.SetHelp("v", "compare with "+pair)
}

// SetStatus shows why opening failed (a pair that does not load).
func (c *Catalogue) SetStatus(s string) { c.status = strings.ReplaceAll(s, "\n", " ") }

// Update handles one message; choosing a scenario sends an openMsg.
func (c Catalogue) Update(msg tea.Msg) (Catalogue, tea.Cmd) {
	k := c.keys
	before := c.list.Index()
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Mouse().Button == tea.MouseWheelUp {
			c.list.CursorUp()
		} else {
			c.list.CursorDown()
		}
		c.settle(before)
		return c, nil
	case tea.KeyPressMsg:
		c.status = ""
		if c.list.SettingFilter() {
			break // every key goes to the filter
		}
		open := func(walk, compare bool) tea.Cmd {
			s := c.Selected()
			if s == nil {
				return nil
			}
			return func() tea.Msg { return openMsg{s, walk, compare} }
		}
		switch {
		case key.Matches(msg, k.Quit):
			return c, tea.Quit
		case key.Matches(msg, k.Open):
			return c, open(false, false)
		case key.Matches(msg, k.OpenWalk):
			return c, open(true, false)
		case key.Matches(msg, k.OpenCompare):
			return c, open(false, true)
		case key.Matches(msg, k.Check):
			if s := c.Selected(); s != nil {
				return c, func() tea.Msg { return checkMsg{s} }
			}
			return c, nil
		}
	}
	var cmd tea.Cmd
	c.list, cmd = c.list.Update(msg)
	c.settle(before)
	return c, cmd
}

// View draws the browser.
func (c Catalogue) View() string {
	if tooSmall(c.w, c.h) {
		return tooSmallView(c.w, c.h)
	}
	s := c.com.Styles
	shown := 0
	for _, it := range c.list.VisibleItems() {
		if it.(catItem).s != nil {
			shown++
		}
	}
	title := s.Header.Render(" locksim: the catalogue") + s.Dim.Render(fmt.Sprintf("  %d of %d scenarios, by protocol and lesson", shown, len(c.all)))
	filter := s.Dim.Render(" / to filter (id, summary, source)")
	switch {
	case c.list.SettingFilter():
		filter = " " + c.list.FilterInput.View()
	case c.list.IsFiltered():
		filter = " filter: " + c.list.FilterValue() + s.Dim.Render("  (esc clears it)")
	}
	if shown == 0 && c.list.FilterValue() != "" {
		filter += s.Dim.Render("  nothing matches")
	}
	idW := idWidth(c.all)
	head := s.Title.Render(fmt.Sprintf("     %-*s %-7s %s", idW, "ID", "VERDICT", "SUMMARY"))
	status := c.footer()
	if c.status != "" {
		status = s.Violation.Render(" " + c.status)
	}
	lines := append([]string{title, filter, head}, strings.Split(c.list.View(), "\n")...)
	return box(append(lines[:min(len(lines), c.h-1)], status), c.w, c.h)
}

// footer is the browser's help line, from its key map.
func (c Catalogue) footer() string {
	h := c.help
	h.SetWidth(c.w)
	if c.list.SettingFilter() {
		return h.ShortHelpView([]key.Binding{c.list.KeyMap.AcceptWhileFiltering, c.list.KeyMap.CancelWhileFiltering})
	}
	return h.ShortHelpView(c.keys.CatalogueHelp().ShortHelp())
}

// catDelegate draws the browser's lines: a protocol's header, or a scenario
// with its place in its lesson, its verdict and its summary.
type catDelegate struct {
	com *Common
	idW int
}

func (d catDelegate) Height() int                         { return 1 }
func (d catDelegate) Spacing() int                        { return 0 }
func (d catDelegate) Update(tea.Msg, *list.Model) tea.Cmd { return nil }

func (d catDelegate) Render(w io.Writer, m list.Model, index int, item list.Item) {
	s := d.com.Styles
	it := item.(catItem)
	shown := m.VisibleItems()
	if it.s == nil {
		n := 0
		for _, o := range shown {
			if o := o.(catItem); o.s != nil && o.proto == it.proto {
				n++
			}
		}
		count := fmt.Sprintf("%d scenarios", it.count)
		if n < it.count {
			count = fmt.Sprintf("%d of %d scenarios", n, it.count)
		}
		fmt.Fprint(w, fit(" "+s.Header.Render(strings.ToUpper(it.proto))+s.Dim.Render("  "+count), m.Width()))
		return
	}
	// The lesson's bracket joins the scenarios of one lesson that are shown.
	same := func(i int) bool {
		return i >= 0 && i < len(shown) && shown[i].(catItem).s != nil && shown[i].(catItem).lesson == it.lesson
	}
	lesson := " "
	switch prev, next := same(index-1), same(index+1); {
	case prev && next:
		lesson = "├"
	case prev:
		lesson = "└"
	case next:
		lesson = "┌"
	}
	v := it.s.ExpectedVerdict()
	id := fmt.Sprintf("%-*s", d.idW, it.s.ID)
	mark := "  "
	if index == m.Index() {
		mark, id = s.Cursor.Render(" ▸"), s.Cursor.Render(id)
	}
	line := mark + " " + s.Dim.Render(lesson) + " " + id + " " + s.Verdict[v].Render(fmt.Sprintf("%-7s", v)) + " " + it.s.Summary
	fmt.Fprint(w, fit(line, m.Width()))
}
