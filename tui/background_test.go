package tui

import (
	"image/color"
	"reflect"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The UI asks the terminal for its background colour and goes on at once (issue
// 15: a terminal that did not answer held the start for 4-5 s and swallowed the
// keys typed meanwhile). The answer, when it comes, restyles the screen.
func TestTheBackgroundIsAskedNotAwaited(t *testing.T) {
	a := NewApp(Options{Result: result(t, "redis-happy"), Dark: true, AskBackground: true, Width: 80, Height: 24})
	if a.Init() == nil {
		t.Fatal("the UI does not ask for the background colour")
	}
	a.Update(keyMsg("j"))
	a.Update(keyMsg("j"))
	if got := a.run.Cursor(); got != 2 {
		t.Fatalf("keys typed before any answer: cursor at %d, want 2", got)
	}
	a.Update(tea.BackgroundColorMsg{Color: color.White})
	if !reflect.DeepEqual(a.com.Styles, NewStyles(false, false)) {
		t.Error("a light background did not bring the light styles")
	}
	if NewApp(Options{Plain: true, AskBackground: true}).Init() != nil {
		t.Error("with NO_COLOR the UI asks for a colour it will not use")
	}
}
