package tui

import (
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/locksim/locksim/scenarios"
)

// Options configure the UI.
type Options struct {
	Catalogue []*scenarios.Scenario // the browser's list (nil: open Result directly)
	Result    *scenarios.Result     // a run to open directly
	Versus    *scenarios.Result     // with Result: open the two runs side by side
	Walk      bool                  // open Result as a walk
	Present   bool                  // open Result in presentation mode
	Dark      bool
	Plain     bool // NO_COLOR
	Width     int  // initial size, before the first WindowSizeMsg (tests)
	Height    int

	// AskBackground asks the terminal for its background colour, and the styles
	// follow the answer (Dark until it comes). The answer arrives like a key: a
	// terminal that never answers delays nothing, and loses no key typed meanwhile.
	AskBackground bool
}

// App is the root model: the only one that talks to the program. It routes each
// message to the screen in front (the catalogue, a run, or two runs compared)
// and opens the screens the catalogue asks for.
type App struct {
	com  *Common
	opt  Options
	cat  *Catalogue
	run  *Scenario
	cmp  *Compare
	chk  *CheckView // a check started from the catalogue, while it runs or shows its result
	wi   *whatIf    // the what-ifs on the run in front (i, u, W), or nil
	load *Loading   // a scenario chosen in the catalogue, while it runs
	gen  int        // the last run asked for: a result of an earlier one is dropped
	w, h int
}

// NewApp builds the root model.
func NewApp(opt Options) *App {
	com := &Common{Styles: NewStyles(opt.Dark, opt.Plain), Keys: DefaultKeyMap()}
	a := &App{com: com, opt: opt, w: opt.Width, h: opt.Height}
	if opt.Catalogue != nil {
		c := NewCatalogue(com, opt.Catalogue)
		a.cat = &c
	}
	if opt.Result != nil {
		a.open(opt.Result, opt.Versus, ScenarioOptions{Walk: opt.Walk, Present: opt.Present})
	}
	a.resize()
	return a
}

// open puts a run (or two) in front.
func (a *App) open(res, vs *scenarios.Result, opt ScenarioOptions) {
	opt.Back = a.cat != nil
	if vs != nil {
		c := NewCompare(a.com, res, vs, opt.Back)
		a.cmp, a.run = &c, nil
	} else {
		s := NewScenario(a.com, res, opt)
		a.run, a.cmp = &s, nil
	}
	a.resize()
}

func (a *App) resize() {
	if a.cat != nil {
		a.cat.SetSize(a.w, a.h)
	}
	if a.run != nil {
		a.run.SetSize(a.w, a.h)
	}
	if a.cmp != nil {
		a.cmp.SetSize(a.w, a.h)
	}
	if a.chk != nil {
		a.chk.SetSize(a.w, a.h)
	}
	if a.wi != nil && a.wi.menu != nil {
		a.wi.menu.SetSize(a.w, a.h)
	}
	if a.load != nil {
		a.load.SetSize(a.w, a.h)
	}
}

// Init starts nothing but the background query: a run given in Options is
// already finished, and one chosen in the browser runs in a command.
func (a *App) Init() tea.Cmd {
	if a.opt.AskBackground && !a.opt.Plain {
		return tea.RequestBackgroundColor
	}
	return nil
}

// Update routes a message to the screen in front.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.w, a.h = msg.Width, msg.Height
		a.resize()
		return a, nil
	case tea.BackgroundColorMsg:
		a.com.Styles = NewStyles(msg.IsDark(), a.opt.Plain)
		return a, nil
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return a, tea.Quit
		}
		if cmd, done := a.whatIfKey(msg); done {
			return a, cmd
		}
	case whatIfMsg:
		return a, a.whatIfChosen(msg)
	case whatIfRunMsg:
		a.whatIfRan(msg)
		return a, nil
	case backMsg:
		a.run, a.cmp, a.chk, a.wi, a.load = nil, nil, nil, nil, nil
		return a, nil
	case checkMsg:
		v, step, err := startCheck(a.com, msg.s)
		if err != nil {
			a.cat.SetStatus("check " + msg.s.ID + ": " + err.Error())
			return a, nil
		}
		a.chk = v
		a.resize()
		return a, step
	case checkStepMsg:
		if a.chk == nil || msg.view != a.chk {
			return a, nil // a step of a check the user left
		}
		cmd = a.chk.Update(msg)
		if msg.found != nil && !a.chk.stop {
			a.chk = nil
			a.open(msg.found, nil, ScenarioOptions{})
			return a, nil
		}
		return a, cmd
	case openMsg:
		// The run happens in a command: a big scenario takes seconds, and the
		// screen stays live meanwhile (the spinner turns, q quits, esc goes back).
		a.gen++
		what := msg.s.ID
		if msg.compare {
			what += " and its pair, " + msg.s.CompareWith
		}
		l := NewLoading(a.com, what, a.gen, time.Now())
		a.load = &l
		a.resize()
		return a, tea.Batch(l.Init(), runScenario(msg, a.gen))
	case loadedMsg:
		if a.load == nil || !a.load.Awaits(msg.gen) {
			return a, nil // the user went back, or asked for another since
		}
		a.load = nil
		if msg.err != nil {
			a.cat.SetStatus(msg.err.Error())
			return a, nil
		}
		msg.opt.Back = a.cat != nil
		if msg.res[1] != nil {
			c := newCompare(a.com, msg.res, msg.base, msg.cmp, msg.opt.Back)
			a.cmp, a.run = &c, nil
		} else {
			msg.opt.Layout = msg.base[0]
			s := NewScenario(a.com, msg.res[0], msg.opt)
			a.run, a.cmp = &s, nil
		}
		a.resize()
		return a, nil
	}
	switch {
	case a.load != nil:
		*a.load, cmd = a.load.Update(msg)
	case a.chk != nil:
		cmd = a.chk.Update(msg)
	case a.cmp != nil:
		*a.cmp, cmd = a.cmp.Update(msg)
	case a.run != nil:
		*a.run, cmd = a.run.Update(msg)
	case a.cat != nil:
		*a.cat, cmd = a.cat.Update(msg)
	}
	return a, cmd
}

// View draws the screen in the alternate screen, with the mouse wheel on.
func (a *App) View() tea.View {
	var content string
	switch {
	case a.load != nil:
		content = a.load.View()
	case a.chk != nil:
		content = a.chk.View()
	case a.cmp != nil:
		content = a.cmp.View()
	case a.run != nil:
		content = a.run.View()
	case a.cat != nil:
		content = a.cat.View()
	}
	if a.wi != nil && a.wi.menu != nil {
		content = a.wi.menu.View()
	} else if a.wi != nil && (a.cmp != nil || a.wi.status != "") {
		content = a.whatIfFooter(content)
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
