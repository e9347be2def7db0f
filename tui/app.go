package tui

import (
	"io"
	"os"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/locksim/locksim/scenarios"
)

// Options configure the UI.
type Options struct {
	Catalogue []*scenarios.Scenario // the browser's list (nil: open Result directly)
	Result    *scenarios.Result     // a run to open directly
	Walk      bool                  // play stops at each narrated step
	Dark      bool
	Plain     bool // NO_COLOR
	Width     int  // initial size, before the first WindowSizeMsg (tests)
	Height    int

	// AskBackground asks the terminal for its background colour, and the styles
	// follow the answer (Dark until it comes). The answer arrives like a key: a
	// terminal that never answers delays nothing, and loses no key typed meanwhile.
	AskBackground bool
}

// App is the root model: the only one that talks to the program.
type App struct {
	com  *Common
	opt  Options
	cat  *Catalogue
	view *Scenario
}

// NewApp builds the root model.
func NewApp(opt Options) *App {
	com := &Common{Width: opt.Width, Height: opt.Height, Styles: NewStyles(opt.Dark, opt.Plain), Keys: DefaultKeyMap()}
	a := &App{com: com, opt: opt}
	if opt.Catalogue != nil {
		a.cat = NewCatalogue(com, opt.Catalogue)
	}
	if opt.Result != nil {
		a.view = NewScenario(com, opt.Result, opt.Walk)
	}
	return a
}

// Init starts nothing but the background query: the run is already finished.
func (a *App) Init() tea.Cmd {
	if a.opt.AskBackground && !a.opt.Plain {
		return tea.RequestBackgroundColor
	}
	return nil
}

// Update routes a message to the screen in front.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.com.Width, a.com.Height = msg.Width, msg.Height
		return a, nil
	case tea.BackgroundColorMsg:
		a.com.Styles = NewStyles(msg.IsDark(), a.opt.Plain)
		return a, nil
	case tea.KeyPressMsg:
		if key.Matches(msg, a.com.Keys.Quit) && !(a.cat != nil && a.view == nil && a.cat.filtering && msg.String() != "ctrl+c") {
			return a, tea.Quit
		}
		if a.view != nil && a.cat != nil && !a.view.showHelp && key.Matches(msg, a.com.Keys.Back) {
			a.view = nil
			return a, nil
		}
	}
	if a.view != nil {
		return a, a.view.Update(msg)
	}
	if a.cat != nil && a.cat.Update(msg) {
		s := a.cat.Selected()
		a.view = NewScenario(a.com, scenarios.Run(s, scenarios.RunOptions{Snapshots: true}), a.opt.Walk)
	}
	return a, nil
}

// View draws the screen in the alternate screen, with the mouse wheel on.
func (a *App) View() tea.View {
	var content string
	switch {
	case a.view != nil:
		content = a.view.View()
	case a.cat != nil:
		content = a.cat.View()
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "locksim"
	return v
}

// Run runs the UI on the terminal until the user quits. Bubble Tea restores the
// terminal on every exit path, Ctrl-C included.
func Run(opt Options, in io.Reader, out io.Writer) error {
	_, err := tea.NewProgram(NewApp(opt), tea.WithInput(in), tea.WithOutput(out)).Run()
	return err
}

// IsTerminal reports whether f is a terminal (isatty: /dev/null is a character
// device but not a terminal).
func IsTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }
