package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// HelpScreen is the ? screen of a run or a comparison: every key of the screen's
// key map, then the legend; it scrolls (bubbles/viewport). It also draws the
// screen's footer, so both come from the key map only.
type HelpScreen struct {
	com  *Common
	help help.Model
	vp   viewport.Model
	keys help.KeyMap
	open bool
	w, h int
}

// NewHelpScreen makes a closed help screen.
func NewHelpScreen(com *Common) HelpScreen {
	h := HelpScreen{com: com, help: help.New(), vp: viewport.New()}
	if com.Styles.Plain {
		h.help.Styles = help.Styles{}
	}
	k := com.Keys
	h.vp.KeyMap = viewport.KeyMap{Down: k.Down, Up: k.Up, PageDown: k.PanelDown, PageUp: k.PanelUp}
	return h
}

// Open shows the help of a key map, from its top.
func (h *HelpScreen) Open(keys help.KeyMap) {
	h.open, h.keys = true, keys
	h.vp.SetYOffset(0)
	h.fill()
}

// IsOpen reports whether the help is on screen.
func (h HelpScreen) IsOpen() bool { return h.open }

// SetSize sets the size of the help's body.
func (h *HelpScreen) SetSize(w, height int) {
	h.w, h.h = w, height
	h.vp.SetWidth(max(w, 0))
	h.vp.SetHeight(max(height, 0))
	h.fill()
}

func (h *HelpScreen) fill() {
	if !h.open {
		return
	}
	lines := strings.Split(h.columns(h.keys.FullHelp()), "\n")
	h.vp.SetContentLines(append(append(lines, ""), legendLines(h.com.Styles, h.w)...))
}

// columns lays the key map's columns out side by side while they fit the
// width, and the ones that do not under them: every key is listed, at any
// width (bubbles/help alone cuts the columns that do not fit, and at 80
// columns that was half the keys).
func (h *HelpScreen) columns(groups [][]key.Binding) string {
	m := h.help
	m.SetWidth(0) // measured here: never cut
	var rows []string
	var row [][]key.Binding
	for _, g := range groups {
		if len(row) > 0 && lipgloss.Width(m.FullHelpView(append(slices.Clone(row), g))) > h.w {
			rows = append(rows, m.FullHelpView(row))
			row = nil
		}
		row = append(row, g)
	}
	if len(row) > 0 {
		rows = append(rows, m.FullHelpView(row))
	}
	return strings.Join(rows, "\n\n")
}

// Update closes the help (? or esc), quits (q), or scrolls it.
func (h HelpScreen) Update(msg tea.Msg) (HelpScreen, tea.Cmd) {
	k := h.com.Keys
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(msg, k.Help), msg.String() == "esc":
			h.open = false
			return h, nil
		case key.Matches(msg, k.Quit):
			return h, tea.Quit
		}
	}
	var cmd tea.Cmd
	h.vp, cmd = h.vp.Update(msg)
	return h, cmd
}

// View draws the help's body.
func (h HelpScreen) View() string { return h.vp.View() }

// OpenFooter is the footer while the help is open: how to scroll it (at 80x24
// the legend is below the screen's bottom) and how far down it is.
func (h HelpScreen) OpenFooter(w int) string {
	text := "↓/↑ scroll • pgdn/pgup page • ? or esc back • q quit"
	if h.vp.TotalLineCount() > h.vp.Height() {
		text += fmt.Sprintf("  (%d%%, more %s)", int(h.vp.ScrollPercent()*100), map[bool]string{true: "above", false: "below"}[h.vp.AtBottom()])
	}
	return fit(h.com.Styles.Dim.Render(text), w)
}

// Footer is a screen's one-line help.
func (h HelpScreen) Footer(keys help.KeyMap, w int) string {
	m := h.help
	m.SetWidth(w)
	return fit(m.ShortHelpView(keys.ShortHelp()), w)
}
