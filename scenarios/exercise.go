package scenarios

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
)

// An exercise is a scenario with a budget of faults a student may add, a goal,
// and hints (docs/exercises.md). Its lines:
//
//	allow pause 1 on=c1,c2 for=1s,5s,15s     at most one pause of c1 or c2, of one of these lengths
//	allow crash 1 on=r1 [back=1ms,1s]         a crash, back after one of these (none: it stays down)
//	allow restart-empty 1 on=a1,a2 [back=...] a power loss
//	allow partition 1 on=p1 for=1s,5s         p1 cut off from everyone
//	allow clock-jump 1 on=C by=+5s,+15s       a wall-clock step
//	allow drift 1 on=c1 by=+2000,-2000        parts per million
//	allow option c1 release                   (goal safe) c1's release= may be changed
//	goal violate INVARIANT | goal unsafe | goal stuck   (an attack: faults)
//	goal safe | goal holds INVARIANT                    (a fix: options)
//	proved                                    no answer exists within the budget (locksim check backs it)
//	hint "..."                                shown one at a time
type Exercise struct {
	Allows []Allow  // the budget: what an answer may add or change
	Goal   Goal     // what the answer must bring about
	Hints  []string // shown one at a time
	// Proved says the author claims no answer exists within the budget; a
	// test runs locksim check over exactly the budget to keep it true.
	Proved     bool
	ProvedLine int // the proved line
}

// Allow is one allow line: Count faults of Kind on the processes On, of the
// sizes listed (none listed: check's default sizes), or an option to change.
type Allow struct {
	Line   int             // its line in the exercise
	Kind   fault.Kind      // "option" for an option
	Count  int             // how many (options: 1)
	On     []string        // the processes it may hit (an option: its process)
	Durs   []time.Duration // pause, partition: for=; crash, restart-empty: back= (the restart)
	Mags   []int64         // clock-jump: by= in ms; drift: by= in ppm
	Option string          // the option's key (release, fencing, ...)
}

// Goal is what the student's answer must bring about.
type Goal struct {
	Kind      string // "violate", "unsafe", "stuck" (attacks); "safe", "holds" (fixes)
	Invariant string // for violate and holds
	Line      int    // its line in the exercise
}

// IsExercise reports whether the scenario is an exercise (it has a goal).
func (s *Scenario) IsExercise() bool { return s.Exercise != nil && s.Exercise.Goal.Kind != "" }

// Sentence says the goal as the grader's sentence ends: "violates
// mutex-belief", "is UNSAFE", "is STUCK", "is SAFE".
func (g Goal) Sentence() string {
	switch g.Kind {
	case "violate":
		return "violates " + g.Invariant
	case "unsafe":
		return "is UNSAFE"
	case "stuck":
		return "is STUCK"
	case "holds":
		return "keeps " + g.Invariant
	}
	return "is SAFE"
}

// Words is the goal as "make ID ..." ends: "violate mutex-belief", "keep
// grant-exclusive", "UNSAFE", "STUCK", "SAFE".
func (g Goal) Words() string {
	switch g.Kind {
	case "violate":
		return "violate " + g.Invariant
	case "holds":
		return "keep " + g.Invariant
	}
	return strings.TrimPrefix(g.Sentence(), "is ")
}

// Fix reports whether the goal asks for a fix (options), not an attack (faults).
func (g Goal) Fix() bool { return g.Kind == "safe" || g.Kind == "holds" }

var allowKinds = []string{string(fault.Pause), string(fault.Crash), string(fault.RestartEmpty), string(fault.Partition),
	string(fault.ClockJump), string(fault.Drift), "option"}

const allowUsage = "allow KIND N on=PROC,... [for=DUR,...|back=DUR,...|by=SIZE,...] or allow option PROC KEY"

func (p *parser) exercise() *Exercise {
	if p.s.Exercise == nil {
		p.s.Exercise = &Exercise{}
	}
	return p.s.Exercise
}

func (p *parser) cmdAllow(ln line, a *Args, pos []token) error {
	if len(pos) == 0 {
		return p.errAt(ln, 1, "missing the kind of fault", "write "+allowUsage+"; kinds: "+strings.Join(allowKinds, ", "))
	}
	kind := pos[0]
	if !slices.Contains(allowKinds, kind.text) {
		hint := "kinds: " + strings.Join(allowKinds, ", ")
		if s := closest(kind.text, allowKinds); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		return p.err(ln.num, kind.col, "cannot allow "+quote(kind.text), hint)
	}
	al := Allow{Line: ln.num, Kind: fault.Kind(kind.text)}
	if kind.text == "option" {
		if err := p.positional(ln, pos, 3, "allow option PROC KEY"); err != nil {
			return err
		}
		al.Count, al.On, al.Option = 1, []string{pos[1].text}, pos[2].text
		p.exercise().Allows = append(p.exercise().Allows, al)
		return nil
	}
	if err := p.positional(ln, pos, 2, allowUsage); err != nil {
		return err
	}
	n, err := strconv.Atoi(pos[1].text)
	if err != nil || n < 1 || n > 4 {
		return p.err(ln.num, pos[1].col, quote(pos[1].text)+" is not a number of faults", "write 1 to 4: how many the student may add")
	}
	al.Count = n
	on, ok := a.Value("on", "PROC,PROC")
	if !ok {
		return p.errAt(ln, len(ln.toks), "missing on=", "write on=PROC,... : the processes the student may hit")
	}
	al.On = strings.Split(on, ",")
	list := func(key string, parse func(string) (int64, bool), hint string) []int64 {
		v, ok := a.Value(key, "SIZE,SIZE")
		if !ok {
			return nil
		}
		var out []int64
		for _, x := range strings.Split(v, ",") {
			n, ok := parse(x)
			if !ok {
				a.Fail(key, quote(x)+" is not a size here", hint)
				return nil
			}
			out = append(out, n)
		}
		return out
	}
	dur := func(x string) (int64, bool) {
		d, err := time.ParseDuration(x)
		return int64(d), err == nil && d > 0
	}
	switch al.Kind {
	case fault.Pause, fault.Partition:
		for _, d := range list("for", dur, "write durations like 1s,5s") {
			al.Durs = append(al.Durs, time.Duration(d))
		}
	case fault.Crash, fault.RestartEmpty:
		for _, d := range list("back", dur, "write how long it stays down, like 1ms,1s") {
			al.Durs = append(al.Durs, time.Duration(d))
		}
	case fault.ClockJump:
		al.Mags = list("by", func(x string) (int64, bool) {
			d, err := time.ParseDuration(x)
			return d.Milliseconds(), err == nil && d != 0 && d%time.Millisecond == 0
		}, "write signed steps like +5s,-15s")
	case fault.Drift:
		al.Mags = list("by", func(x string) (int64, bool) {
			n, err := strconv.ParseInt(x, 10, 64)
			return n, err == nil && n != 0
		}, "write parts per million like +2000,-2000")
	}
	if a.Failed() {
		return nil
	}
	if key := map[fault.Kind]string{fault.Pause: "for", fault.Partition: "for", fault.ClockJump: "by", fault.Drift: "by"}[al.Kind]; key != "" && len(al.Durs)+len(al.Mags) == 0 {
		return p.errAt(ln, len(ln.toks), "missing "+key+"=: the sizes a student may choose",
			"list them, like "+key+"="+map[string]string{"for": "1s,5s,15s", "by": "+5s,+15s"}[key]+" (grade and check take exactly these)")
	}
	p.exercise().Allows = append(p.exercise().Allows, al)
	return nil
}

var goalKinds = []string{"violate", "unsafe", "stuck", "safe", "holds"}

const goalUsage = "goal violate INVARIANT | goal unsafe | goal stuck | goal safe | goal holds INVARIANT"

func (p *parser) cmdGoal(ln line, _ *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if len(pos) == 0 {
		return p.errAt(ln, 1, "missing the goal", "write "+goalUsage)
	}
	g := Goal{Kind: pos[0].text, Line: ln.num}
	if !slices.Contains(goalKinds, g.Kind) {
		hint := "goals: " + strings.Join(goalKinds, ", ")
		if s := closest(g.Kind, goalKinds); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		return p.err(ln.num, pos[0].col, "unknown goal "+quote(g.Kind), hint)
	}
	if g.Kind == "violate" || g.Kind == "holds" {
		if err := p.positional(ln, pos, 2, "goal "+g.Kind+" INVARIANT"); err != nil {
			return err
		}
		g.Invariant = pos[1].text
	} else if err := p.positional(ln, pos, 1, "goal "+g.Kind); err != nil {
		return err
	}
	if g.Invariant != "" {
		if name := pos[1]; !check.Known(name.text) {
			hint := "invariants are: " + strings.Join(check.Names(), ", ")
			if s := closest(name.text, check.Names()); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
			return p.err(ln.num, name.col, "unknown invariant "+quote(name.text), hint)
		}
	}
	p.exercise().Goal = g
	return nil
}

// cmdHint reads its own argument, like note: the text may hold "=".
func (p *parser) cmdHint(ln line, _ *Args, _ []token) error {
	if len(ln.toks) != 2 {
		return p.errAt(ln, min(len(ln.toks), 2), "a hint is one quoted text", `write hint "TEXT"`)
	}
	p.exercise().Hints = append(p.exercise().Hints, ln.toks[1].text)
	return nil
}

func (p *parser) cmdProved(ln line, _ *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, "proved"); err != nil {
		return err
	}
	p.exercise().Proved, p.exercise().ProvedLine = true, ln.num
	return nil
}

// checkExercise checks what only the whole text shows: the processes an
// allow line names are declared, an exercise has a goal, allow lines fit it.
func (p *parser) checkExercise() error {
	ex := p.s.Exercise
	if ex == nil {
		return nil
	}
	if ex.Goal.Kind == "" {
		return p.err(1, 1, "an exercise (allow, hint or proved lines) needs a goal line", "add "+goalUsage)
	}
	for _, al := range ex.Allows {
		for _, name := range al.On {
			if _, ok := p.ids[name]; !ok {
				return p.err(al.Line, 1, "allow names "+quote(name)+", which the scenario does not declare", "declared: "+strings.Join(p.s.ProcNames(), ", "))
			}
		}
		if (al.Kind == "option") != ex.Goal.Fix() {
			return p.err(al.Line, 1, "allow "+string(al.Kind)+" does not fit goal "+ex.Goal.Kind,
				"goal safe and goal holds allow options (a fix); the others allow faults (an attack)")
		}
	}
	return nil
}
