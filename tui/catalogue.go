package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
)

// Catalogue is the browser: a filterable list of scenarios, each opened plain,
// as a walk, or against its pair (compare-with).
type Catalogue struct {
	com       *Common
	keys      KeyMap
	help      help.Model
	all       []*scenarios.Scenario
	shown     []*scenarios.Scenario
	cursor    int
	top       int
	filter    string
	filtering bool
	status    string // why the last open failed, shown until the next key
	w, h      int
}

// openMsg asks the root to open a scenario: plain, as a walk, or against its pair.
type openMsg struct {
	s       *scenarios.Scenario
	walk    bool
	compare bool
}

// NewCatalogue lists the given scenarios.
func NewCatalogue(com *Common, cat []*scenarios.Scenario) Catalogue {
	c := Catalogue{com: com, keys: com.Keys, help: help.New(), all: cat}
	if com.Styles.Plain {
		c.help.Styles = help.Styles{}
	}
	c.apply()
	return c
}

// SetSize sets the browser's size.
func (c *Catalogue) SetSize(w, h int) { c.w, c.h = w, h; c.scroll() }

func (c *Catalogue) apply() {
	c.shown = c.shown[:0]
	f := strings.ToLower(c.filter)
	for _, s := range c.all {
		line := strings.ToLower(s.ID + " " + s.Protocol + " " + s.ExpectedVerdict() + " " + s.Summary)
		if f == "" || strings.Contains(line, f) {
			c.shown = append(c.shown, s)
		}
	}
	c.move(0)
}

// Selected is the scenario under the cursor, or nil.
func (c Catalogue) Selected() *scenarios.Scenario {
	if len(c.shown) == 0 {
		return nil
	}
	return c.shown[c.cursor]
}

func (c *Catalogue) move(d int) {
	c.cursor = min(max(c.cursor+d, 0), max(len(c.shown)-1, 0))
	c.scroll()
	// v names the pair of the scenario under the cursor, and is off without one.
	pair := ""
	if s := c.Selected(); s != nil {
		pair = s.CompareWith
	}
	c.keys.OpenCompare.SetEnabled(pair != "")
	c.keys.OpenCompare.SetHelp("v", "compare with "+pair)
}

func (c *Catalogue) scroll() {
	rows := max(c.h-5, 1)
	if c.cursor < c.top {
		c.top = c.cursor
	}
	if c.cursor >= c.top+rows {
		c.top = c.cursor - rows + 1
	}
}

// SetStatus shows why opening failed (a pair that does not load).
func (c *Catalogue) SetStatus(s string) { c.status = strings.ReplaceAll(s, "\n", " ") }

// Update handles one message; choosing a scenario sends an openMsg.
func (c Catalogue) Update(msg tea.Msg) (Catalogue, tea.Cmd) {
	k := c.keys
	if _, ok := msg.(tea.KeyPressMsg); ok {
		c.status = ""
	}
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Mouse().Button == tea.MouseWheelUp {
			c.move(-1)
		} else {
			c.move(1)
		}
	case tea.KeyPressMsg:
		if c.filtering {
			switch msg.String() {
			case "enter":
				c.filtering = false
			case "esc":
				c.filtering, c.filter = false, ""
			case "backspace":
				if r := []rune(c.filter); len(r) > 0 {
					c.filter = string(r[:len(r)-1])
				}
			default:
				if t := msg.Key().Text; t != "" {
					c.filter += t
				}
			}
			c.apply()
			return c, nil
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
		case msg.String() == "esc" && c.filter != "":
			c.filter = "" // esc clears a kept filter
			c.apply()
		case key.Matches(msg, k.Filter):
			c.filtering = true
		case key.Matches(msg, k.Down):
			c.move(1)
		case key.Matches(msg, k.Up):
			c.move(-1)
		case key.Matches(msg, k.Start):
			c.move(-len(c.shown))
		case key.Matches(msg, k.End):
			c.move(len(c.shown))
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
		}
	}
	return c, nil
}

// View draws the browser.
func (c Catalogue) View() string {
	if tooSmall(c.w, c.h) {
		return tooSmallView(c.w, c.h)
	}
	s := c.com.Styles
	title := s.Header.Render(" locksim: the catalogue") + s.Dim.Render(fmt.Sprintf("  %d of %d scenarios", len(c.shown), len(c.all)))
	filter := s.Dim.Render(" / to filter")
	if c.filtering || c.filter != "" {
		filter = " filter: " + c.filter
		if c.filtering {
			filter += "▏"
		}
	}
	rows := c.h - 5
	idW, protoW := 8, 8
	for _, sc := range c.all {
		idW, protoW = max(idW, len(sc.ID)), max(protoW, len(sc.Protocol))
	}
	lines := []string{title, filter,
		s.Title.Render(fmt.Sprintf("   %-*s  %-*s %-7s %s", idW, "ID", protoW, "PROTOCOL", "VERDICT", "SUMMARY"))}
	for i := c.top; i < len(c.shown) && i < c.top+rows; i++ {
		sc := c.shown[i]
		v := sc.ExpectedVerdict()
		rest := fmt.Sprintf("  %-*s %s %s", protoW, sc.Protocol, s.Verdict[v].Render(fmt.Sprintf("%-7s", v)), sc.Summary)
		line := fmt.Sprintf("   %-*s", idW, sc.ID) + rest
		if i == c.cursor {
			line = s.Cursor.Render(fmt.Sprintf(" ▸ %-*s", idW, sc.ID)) + rest
		}
		lines = append(lines, line)
	}
	for len(lines) < c.h-1 {
		lines = append(lines, "")
	}
	h := c.help
	h.SetWidth(c.w)
	status := h.ShortHelpView(c.keys.CatalogueHelp().ShortHelp())
	if c.status != "" {
		status = s.Violation.Render(" " + c.status)
	}
	return box(append(lines, status), c.w, c.h)
}
