package tui

import "charm.land/bubbles/v2/key"

// KeyMap is every key binding; the help line is generated from it, so it is never
// out of date.
type KeyMap struct {
	Down, Up, Play, Faster, Slower, Start, End key.Binding
	NextViolation, PrevViolation               key.Binding
	NextFault, PrevFault                       key.Binding
	Tab, Left, Right, Help, Back, Quit         key.Binding
	Open, Filter, Follow                       key.Binding
}

// DefaultKeyMap is tui.md's key list.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return KeyMap{
		Down:          b([]string{"down", "j"}, "↓/j", "step"),
		Up:            b([]string{"up", "k"}, "↑/k", "back"),
		Play:          b([]string{"space"}, "space", "play/pause"),
		Faster:        b([]string{"+", "="}, "+", "faster"),
		Slower:        b([]string{"-"}, "-", "slower"),
		Start:         b([]string{"g", "home"}, "g", "start"),
		End:           b([]string{"G", "end"}, "G", "end"),
		NextViolation: b([]string{"n"}, "n", "next violation"),
		PrevViolation: b([]string{"N"}, "N", "prev violation"),
		NextFault:     b([]string{"f"}, "f", "next fault"),
		PrevFault:     b([]string{"F"}, "F", "prev fault"),
		Tab:           b([]string{"tab"}, "tab", "next panel"),
		Left:          b([]string{"left", "h"}, "←/h", "previous process"),
		Right:         b([]string{"right", "l"}, "→/l", "next process"),
		Help:          b([]string{"?"}, "?", "help"),
		Back:          b([]string{"esc", "backspace"}, "esc", "catalogue"),
		Quit:          b([]string{"q", "ctrl+c"}, "q", "quit"),
		Open:          b([]string{"enter"}, "enter", "open"),
		Filter:        b([]string{"/"}, "/", "filter"),
		Follow:        b([]string{"c"}, "c", "state follows the cursor"),
	}
}

// ShortHelp is the footer line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Down, k.Play, k.NextViolation, k.NextFault, k.Tab, k.Help, k.Quit}
}

// FullHelp is the ? screen.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Down, k.Up, k.Start, k.End},
		{k.Play, k.Faster, k.Slower},
		{k.NextViolation, k.PrevViolation, k.NextFault, k.PrevFault},
		{k.Tab, k.Left, k.Right, k.Follow, k.Back, k.Help, k.Quit},
	}
}
