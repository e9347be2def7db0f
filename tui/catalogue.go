package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/locksim/locksim/scenarios"
)

// Catalogue is the browser: a filterable list of scenarios.
type Catalogue struct {
	com       *Common
	all       []*scenarios.Scenario
	shown     []*scenarios.Scenario
	cursor    int
	top       int
	filter    string
	filtering bool
}

// NewCatalogue lists the given scenarios.
func NewCatalogue(com *Common, cat []*scenarios.Scenario) *Catalogue {
	c := &Catalogue{com: com, all: cat}
	c.apply()
	return c
}

func (c *Catalogue) apply() {
	c.shown = c.shown[:0]
	f := strings.ToLower(c.filter)
	for _, s := range c.all {
		line := strings.ToLower(s.ID + " " + s.Protocol + " " + s.ExpectedVerdict() + " " + s.Summary)
		if f == "" || strings.Contains(line, f) {
			c.shown = append(c.shown, s)
		}
	}
	c.cursor = min(c.cursor, max(len(c.shown)-1, 0))
}

// Selected is the scenario under the cursor, or nil.
func (c *Catalogue) Selected() *scenarios.Scenario {
	if len(c.shown) == 0 {
		return nil
	}
	return c.shown[c.cursor]
}

// Update handles one message; it reports whether the user chose a scenario.
func (c *Catalogue) Update(msg tea.Msg) (open bool) {
	k := c.com.Keys
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Mouse().Button == tea.MouseWheelUp {
			c.cursor = max(c.cursor-1, 0)
		} else {
			c.cursor = min(c.cursor+1, max(len(c.shown)-1, 0))
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
			return false
		}
		switch {
		case msg.String() == "esc" && c.filter != "":
			c.filter = "" // esc clears a kept filter
			c.apply()
		case key.Matches(msg, k.Filter):
			c.filtering = true
		case key.Matches(msg, k.Down):
			c.cursor = min(c.cursor+1, max(len(c.shown)-1, 0))
		case key.Matches(msg, k.Up):
			c.cursor = max(c.cursor-1, 0)
		case key.Matches(msg, k.Start):
			c.cursor = 0
		case key.Matches(msg, k.End):
			c.cursor = max(len(c.shown)-1, 0)
		case key.Matches(msg, k.Open):
			return c.Selected() != nil
		}
	}
	return false
}

// View draws the browser.
func (c *Catalogue) View() string {
	com := c.com
	if com.tooSmall() {
		return tooSmallView(com)
	}
	s := com.Styles
	title := s.Header.Render(" locksim: the catalogue") + s.Dim.Render(fmt.Sprintf("  %d of %d scenarios", len(c.shown), len(c.all)))
	filter := s.Dim.Render(" / to filter")
	if c.filtering || c.filter != "" {
		filter = " filter: " + c.filter
		if c.filtering {
			filter += "▏"
		}
	}
	rows := com.Height - 5
	if c.cursor < c.top {
		c.top = c.cursor
	}
	if c.cursor >= c.top+rows {
		c.top = c.cursor - rows + 1
	}
	idW, protoW := 8, 8
	for _, sc := range c.all {
		idW, protoW = max(idW, len(sc.ID)), max(protoW, len(sc.Protocol))
	}
	lines := []string{fit(title, com.Width), fit(filter, com.Width),
		fit(s.Title.Render(fmt.Sprintf("   %-*s  %-*s %-7s %s", idW, "ID", protoW, "PROTOCOL", "VERDICT", "SUMMARY")), com.Width)}
	for i := c.top; i < len(c.shown) && i < c.top+rows; i++ {
		sc := c.shown[i]
		v := sc.ExpectedVerdict()
		rest := fmt.Sprintf("  %-*s %s %s", protoW, sc.Protocol, s.Verdict[v].Render(fmt.Sprintf("%-7s", v)), sc.Summary)
		line := fmt.Sprintf("   %-*s", idW, sc.ID) + rest
		if i == c.cursor {
			line = s.Cursor.Render(fmt.Sprintf(" ▸ %-*s", idW, sc.ID)) + rest
		}
		lines = append(lines, fit(line, com.Width))
	}
	for len(lines) < com.Height-1 {
		lines = append(lines, fit("", com.Width))
	}
	footer := s.Footer.Render(" ↑/↓ move  enter open  / filter  q quit")
	return lipgloss.JoinVertical(lipgloss.Left, append(lines, fit(footer, com.Width))...)
}
