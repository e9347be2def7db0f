package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every key binding. Each screen keeps its own copy and switches off
// what does not apply there (SetEnabled), and its footer and ? screen are
// generated from it (help.KeyMap), so neither is ever out of date.
type KeyMap struct {
	// Moving through a run: the timeline's keys.
	Down, Up, Start, End           key.Binding
	NextViolation, PrevViolation   key.Binding
	NextFault, PrevFault           key.Binding
	NextStop, PrevStop             key.Binding
	Left, Right, Follow            key.Binding
	Hide, ShowAll, Quiet, Reveal   key.Binding
	NextDifference, PrevDifference key.Binding

	// The screens'.
	Play, Faster, Slower, Walk, Present key.Binding
	Inject                              key.Binding // what if: a fault at the cursor, the re-run beside the original
	Hint                                key.Binding // an exercise's next hint
	Tab, PanelUp, PanelDown             key.Binding
	Help, Back, Quit                    key.Binding

	// The catalogue's.
	Open, OpenWalk, OpenCompare, Filter, Check key.Binding
}

// DefaultKeyMap is the keys docs/tui.md lists.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return KeyMap{
		Down:           b([]string{"down", "j"}, "↓/j", "step"),
		Up:             b([]string{"up", "k"}, "↑/k", "back"),
		Start:          b([]string{"g", "home"}, "g", "start"),
		End:            b([]string{"G", "end"}, "G", "end"),
		NextViolation:  b([]string{"n"}, "n", "next violation"),
		PrevViolation:  b([]string{"N"}, "N", "prev violation"),
		NextFault:      b([]string{"f"}, "f", "next fault"),
		PrevFault:      b([]string{"F"}, "F", "prev fault"),
		NextStop:       b([]string{"s"}, "s", "next stop of the story"),
		PrevStop:       b([]string{"S"}, "S", "prev stop"),
		Left:           b([]string{"left", "h"}, "←/h", "select the previous process"),
		Right:          b([]string{"right", "l"}, "→/l", "select the next process"),
		Follow:         b([]string{"c"}, "c", "select the cursor's process"),
		Hide:           b([]string{"x"}, "x", "hide the selected process"),
		ShowAll:        b([]string{"X"}, "X", "show every process"),
		Quiet:          b([]string{"b"}, "b", "quiet: fold background traffic"),
		Reveal:         b([]string{"r"}, "r", "reveal: hide rows below the cursor"),
		NextDifference: b([]string{"d"}, "d", "next difference"),
		PrevDifference: b([]string{"D"}, "D", "prev difference"),
		Play:           b([]string{"space"}, "space", "play/pause"),
		Faster:         b([]string{"+", "="}, "+", "faster"),
		Slower:         b([]string{"-"}, "-", "slower"),
		Walk:           b([]string{"w"}, "w", "walk the story"),
		Present:        b([]string{"p"}, "p", "presentation"),
		Inject:         b([]string{"i"}, "i", "inject a fault here"),
		Hint:           b([]string{"e"}, "e", "exercise: the next hint"),
		Tab:            b([]string{"tab"}, "tab", "next panel"),
		PanelUp:        b([]string{"pgup"}, "pgup", "scroll the panel up"),
		PanelDown:      b([]string{"pgdown"}, "pgdn", "scroll the panel down"),
		Help:           b([]string{"?"}, "?", "help and legend"),
		Back:           b([]string{"esc", "backspace"}, "esc", "catalogue"),
		Quit:           b([]string{"q", "ctrl+c"}, "q", "quit"),
		Open:           b([]string{"enter"}, "enter", "open"),
		OpenWalk:       b([]string{"w"}, "w", "walk"),
		OpenCompare:    b([]string{"v"}, "v", "compare with its pair"),
		Filter:         b([]string{"/"}, "/", "filter"),
		Check:          b([]string{"C"}, "C", "check every one-fault schedule"),
	}
}

// helpKeys is a screen's help: the footer line and the ? screen's columns.
type helpKeys struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h helpKeys) ShortHelp() []key.Binding  { return h.short }
func (h helpKeys) FullHelp() [][]key.Binding { return h.full }

var _ help.KeyMap = helpKeys{}

// CatalogueHelp is the catalogue's help.
func (k KeyMap) CatalogueHelp() help.KeyMap {
	return helpKeys{
		short: []key.Binding{k.Down, k.Open, k.OpenWalk, k.OpenCompare, k.Check, k.Filter, k.Quit},
		full:  [][]key.Binding{{k.Down, k.Up, k.Start, k.End}, {k.Open, k.OpenWalk, k.OpenCompare, k.Check, k.Filter, k.Quit}},
	}
}

// ScenarioHelp is the help of the screen of one run.
func (k KeyMap) ScenarioHelp(walking bool) help.KeyMap {
	short := []key.Binding{k.Down, k.Play, k.NextViolation, k.NextStop, k.Present, k.Quiet, k.Help, k.Quit}
	if walking {
		short = []key.Binding{k.Play, k.Down, k.Up, k.Walk, k.Present, k.Quiet, k.Help, k.Quit}
	}
	return helpKeys{
		short: short,
		full: [][]key.Binding{
			{k.Down, k.Up, k.Start, k.End, k.Play, k.Faster, k.Slower},
			{k.NextStop, k.PrevStop, k.NextViolation, k.PrevViolation, k.NextFault, k.PrevFault},
			{k.Walk, k.Present, k.Reveal, k.Quiet, k.Inject, k.Hint, k.Left, k.Right, k.Follow, k.Hide, k.ShowAll},
			{k.Tab, k.PanelUp, k.PanelDown, k.Help, k.Back, k.Quit},
		},
	}
}

// CompareHelp is the help of the compare screen.
func (k KeyMap) CompareHelp() help.KeyMap {
	return helpKeys{
		short: []key.Binding{k.Down, k.NextDifference, k.NextViolation, k.Quiet, k.Reveal, k.Help, k.Quit},
		full: [][]key.Binding{
			{k.Down, k.Up, k.Start, k.End, k.Play, k.Faster, k.Slower},
			{k.NextDifference, k.PrevDifference, k.NextViolation, k.PrevViolation, k.NextFault, k.PrevFault},
			{k.Reveal, k.Quiet, k.Inject, k.Left, k.Right, k.Hide, k.ShowAll},
			{k.PanelUp, k.PanelDown, k.Help, k.Back, k.Quit},
		},
	}
}

// screenKey is what both run screens (one run, and two compared) do alike with
// a key before their own: while the help is open it takes every key; quit
// quits; back goes to the catalogue. done: the screen returns cmd at once.
func screenKey(msg tea.KeyPressMsg, k KeyMap, h *HelpScreen) (cmd tea.Cmd, done bool) {
	switch {
	case h.IsOpen():
		*h, cmd = h.Update(msg)
		return cmd, true
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Back):
		return func() tea.Msg { return backMsg{} }, true
	}
	return nil, false
}
