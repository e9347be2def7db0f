package tui

import (
	"image/color"

	"charm.land/lipgloss/v2"

	"github.com/locksim/locksim/tui/layout"
)

// Styles holds every style of the UI, built once for a dark or light background
// (or none at all under NO_COLOR).
type Styles struct {
	Plain                                  bool // NO_COLOR: components' own default colours are off too
	Header, Footer, Cursor, Dim, Title     lipgloss.Style
	Badge, BadgeBad, BadgeWarn, Mode       lipgloss.Style
	Panel, PanelFocus, PanelTitle, Changed lipgloss.Style
	Selected, Differs, Marker, Question    lipgloss.Style
	Cells                                  map[layout.CellKind]lipgloss.Style
	Folded                                 lipgloss.Style   // quiet's background tick
	Bars                                   []lipgloss.Style // belief bars, one colour per client
	Violation                              lipgloss.Style
	Verdict                                map[string]lipgloss.Style
}

// NewStyles builds the styles. With plain set (NO_COLOR), every style is empty:
// the screen is the plain text of `locksim run`.
func NewStyles(dark, plain bool) Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkc string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkc)) }
	st := lipgloss.NewStyle
	red, green, amber := c("#c00000", "#ff5f5f"), c("#008700", "#87d787"), c("#af8700", "#ffd75f")
	grey, faint := c("#999999", "#626262"), c("#bcbcbc", "#4e4e4e")
	s := Styles{
		Header:     st().Bold(true),
		Badge:      st().Foreground(c("#006400", "#5fd75f")).Bold(true),
		BadgeBad:   st().Foreground(lipgloss.Color("#ffffff")).Background(c("#c00000", "#d70000")).Bold(true),
		BadgeWarn:  st().Foreground(lipgloss.Color("#000000")).Background(c("#d7af00", "#ffd75f")).Bold(true),
		Mode:       st().Foreground(lipgloss.Color("#ffffff")).Background(c("#005fd7", "#005faf")).Bold(true),
		Footer:     st().Foreground(c("#555555", "#8a8a8a")),
		Cursor:     st().Reverse(true),
		Dim:        st().Foreground(c("#777777", "#767676")),
		Title:      st().Bold(true),
		Panel:      st().Border(lipgloss.RoundedBorder()).BorderForeground(c("#aaaaaa", "#585858")),
		PanelFocus: st().Border(lipgloss.RoundedBorder()).BorderForeground(c("#005fd7", "#5fafff")),
		PanelTitle: st().Bold(true),
		Changed:    st().Foreground(c("#af5f00", "#ffd75f")).Bold(true),
		Selected:   st().Bold(true).Underline(true),
		Differs:    st().Foreground(c("#af00af", "#ff87ff")).Bold(true),
		Marker:     st().Foreground(c("#005fd7", "#5fafff")).Bold(true),
		Question:   st().Foreground(c("#8700af", "#ffaf00")).Bold(true),
		Violation:  st().Foreground(red).Bold(true),
		Folded:     st().Foreground(faint),
		Cells: map[layout.CellKind]lipgloss.Style{
			layout.CellCommand: st().Foreground(c("#005fd7", "#5fafff")),
			layout.CellSend:    st().Foreground(c("#555555", "#a8a8a8")), layout.CellSendLeft: st().Foreground(c("#555555", "#a8a8a8")),
			layout.CellWire: st().Foreground(grey), layout.CellArrive: st().Foreground(grey), layout.CellArriveLeft: st().Foreground(grey),
			layout.CellDeliver:     st().Foreground(c("#303030", "#d0d0d0")),
			layout.CellDrop:        st().Foreground(red),
			layout.CellGrant:       st().Foreground(green).Bold(true),
			layout.CellGrantEnd:    st().Foreground(c("#875f00", "#d7af5f")),
			layout.CellAccept:      st().Foreground(green),
			layout.CellReject:      st().Foreground(red).Bold(true),
			layout.CellCrash:       st().Foreground(red).Bold(true),
			layout.CellShutdown:    st().Foreground(c("#c00000", "#ff8787")),
			layout.CellRestart:     st().Foreground(c("#008787", "#5fd7d7")),
			layout.CellPause:       st().Foreground(amber).Bold(true),
			layout.CellResume:      st().Foreground(amber),
			layout.CellClock:       st().Foreground(c("#8700af", "#d787ff")).Bold(true),
			layout.CellCut:         st().Foreground(c("#c00000", "#ff8787")),
			layout.CellViolation:   st().Foreground(red).Bold(true),
			layout.CellBeliefStart: st().Bold(true), layout.CellBeliefEnd: st(),
			layout.CellTimer:  st().Foreground(c("#777777", "#8a8a8a")),
			layout.CellNote:   st().Foreground(c("#005fd7", "#5fafff")).Bold(true),
			layout.CellVote:   st().Foreground(c("#008787", "#5fd7d7")),
			layout.CellDecide: st().Foreground(c("#000000", "#ffffff")).Bold(true),
		},
		Verdict: map[string]lipgloss.Style{
			"SAFE":   st().Foreground(c("#006400", "#5fd75f")).Bold(true),
			"UNSAFE": st().Foreground(red).Bold(true),
			"STUCK":  st().Foreground(amber).Bold(true),
		},
	}
	for _, col := range [][2]string{{"#005fd7", "#5fafff"}, {"#d75f00", "#ffaf5f"}, {"#008700", "#87d787"},
		{"#8700af", "#d787ff"}, {"#008787", "#5fd7d7"}, {"#af0087", "#ff87d7"}} {
		s.Bars = append(s.Bars, st().Foreground(c(col[0], col[1])).Bold(true))
	}
	if plain {
		return plainStyles(s)
	}
	return s
}

// plainStyles keeps the shape (borders) and drops every colour and attribute.
func plainStyles(s Styles) Styles {
	st := lipgloss.NewStyle
	p := Styles{Plain: true, Header: st(), Badge: st(), BadgeBad: st(), BadgeWarn: st(), Mode: st(), Footer: st(),
		Cursor: st(), Dim: st(), Title: st(), Panel: st().Border(lipgloss.NormalBorder()),
		PanelFocus: st().Border(lipgloss.DoubleBorder()), PanelTitle: st(), Changed: st(), Selected: st(),
		Differs: st(), Marker: st(), Question: st(), Violation: st(), Folded: st(), Cells: map[layout.CellKind]lipgloss.Style{},
		Verdict: map[string]lipgloss.Style{}}
	for range s.Bars {
		p.Bars = append(p.Bars, st())
	}
	return p
}

// cell colours one semantic cell of process proc: the bar in its client's
// colour, the content by its kind. The text is exactly layout.CellText, so the
// screen, the legend and `locksim run` all agree.
func (s Styles) cell(c layout.Cell, proc, width int) string {
	txt := []rune(layout.CellText(c, width))
	if len(txt) == 0 {
		return ""
	}
	bar, rest := string(txt[:1]), string(txt[1:])
	switch {
	case c.Spans&layout.SpanBelief != 0:
		bar = s.Bars[proc%len(s.Bars)].Render(bar)
	case c.Spans&layout.SpanPromise != 0:
		bar = s.Cells[layout.CellGrant].UnsetBold().Render(bar)
	case c.Spans&layout.SpanDown != 0:
		bar = s.Dim.Render(bar)
	}
	switch st, ok := s.Cells[c.Kind]; {
	case ok:
		rest = st.Render(rest)
	case c.Spans&layout.SpanPaused != 0:
		rest = s.Cells[layout.CellPause].Render(rest)
	case c.Spans&layout.SpanFolded != 0:
		rest = s.Folded.Render(rest)
	}
	return bar + rest
}
