package tui

import (
	"strings"

	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Panel is a titled text panel that scrolls (bubbles/viewport): the narration,
// the state of a process, the clocks. In the side column it is boxed; in a strip
// under the timeline it is bare.
type Panel struct {
	com   *Common
	title string
	text  string // the content, unwrapped (paragraphs on their own lines)
	vp    viewport.Model
	boxed bool
	focus bool
	w, h  int
	// wrapped is the text and size the viewport's lines were last set for: a
	// walk sets the same text at the same size on every step, and wrapping is
	// most of a step's cost. (The height counts: setting the lines clamps the
	// scroll to the viewport's height.)
	wrapped struct {
		text string
		w, h int
		ok   bool
	}
}

// NewPanel makes an empty panel; pgup/pgdn scroll it when it has the focus.
func NewPanel(com *Common) Panel {
	vp := viewport.New()
	vp.KeyMap = viewport.KeyMap{PageDown: com.Keys.PanelDown, PageUp: com.Keys.PanelUp}
	vp.MouseWheelEnabled = false // the wheel moves the timeline
	return Panel{com: com, vp: vp}
}

// SetContent sets the title and the text; a new text scrolls back to its top.
func (p *Panel) SetContent(title, text string) {
	p.title = title
	if text != p.text {
		p.text = text
		p.vp.SetYOffset(0)
	}
	p.rewrap()
}

// SetSize sets the panel's outer size, boxed or bare.
func (p *Panel) SetSize(w, h int, boxed bool) {
	p.w, p.h, p.boxed = w, h, boxed
	p.vp.SetWidth(max(p.inner(), 0))
	p.vp.SetHeight(max(p.bodyHeight(), 0))
	p.rewrap()
}

// SetFocus marks the panel as the one pgup/pgdn scroll.
func (p *Panel) SetFocus(on bool) { p.focus = on }

func (p *Panel) inner() int {
	if p.boxed {
		return p.w - 4 // border and padding
	}
	return p.w
}

func (p *Panel) bodyHeight() int {
	if p.boxed {
		return p.h - 3 // border and title
	}
	return p.h - 1 // title
}

func (p *Panel) rewrap() {
	w, h := max(p.inner(), 1), p.vp.Height()
	if p.wrapped.ok && p.wrapped.text == p.text && p.wrapped.w == w && p.wrapped.h == h {
		return // the same lines in the same viewport: setting them again changes nothing
	}
	p.vp.SetContentLines(wrapLines(p.text, w, ""))
	p.wrapped.text, p.wrapped.w, p.wrapped.h, p.wrapped.ok = p.text, w, h, true
}

// Needed is the height that shows the whole text at width w, boxed or not.
func (p Panel) Needed(w int, boxed bool) int {
	frame, inner := 1, w
	if boxed {
		frame, inner = 3, w-4
	}
	return frame + len(wrapLines(p.text, max(inner, 1), ""))
}

// TextWidth is the width of the text's widest line, unwrapped.
func (p Panel) TextWidth() int {
	w := 0
	for _, l := range strings.Split(p.text, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// Update scrolls the panel when it has the focus.
func (p Panel) Update(msg tea.Msg) (Panel, tea.Cmd) {
	if !p.focus {
		return p, nil
	}
	var cmd tea.Cmd
	p.vp, cmd = p.vp.Update(msg)
	return p, cmd
}

// View draws the panel at its size.
func (p Panel) View() string {
	if p.h <= 0 || p.w <= 0 {
		return ""
	}
	s := p.com.Styles
	title := p.title
	if !p.vp.AtTop() || !p.vp.AtBottom() && p.vp.TotalLineCount() > p.vp.VisibleLineCount() {
		title += s.Dim.Render(" (pgup/pgdn)")
	}
	lines := []string{s.PanelTitle.Render(fit(title, p.inner()))}
	if p.bodyHeight() > 0 {
		lines = append(lines, p.vp.View())
	}
	content := lipgloss.JoinVertical(lipgloss.Left, lines...)
	if !p.boxed {
		return content
	}
	st := s.Panel
	if p.focus {
		st = s.PanelFocus
	}
	return st.Padding(0, 1).Render(content)
}
