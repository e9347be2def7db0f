package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// moveCursor is where the cursor keys (↓ ↑ g G) and the mouse wheel (three rows
// a notch) take a cursor at row cursor of rows rows, before the screen clamps
// it; ok is false for any other message. The timeline and the compare screen
// move alike.
func moveCursor(msg tea.Msg, k KeyMap, cursor, rows int) (to int, ok bool) {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Mouse().Button == tea.MouseWheelUp {
			return cursor - 3, true
		}
		return cursor + 3, true
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, k.Down):
			return cursor + 1, true
		case key.Matches(msg, k.Up):
			return cursor - 1, true
		case key.Matches(msg, k.Start):
			return 0, true
		case key.Matches(msg, k.End):
			return rows - 1, true
		}
	}
	return cursor, false
}
