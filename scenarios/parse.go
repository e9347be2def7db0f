package scenarios

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
)

// parser holds the state of one Parse call.
type parser struct {
	reg       *Registry
	file      string
	s         *Scenario
	ids       map[string]sim.ProcID
	inTxn     map[string]bool // resources in a lock's transaction (resource NAME in=DB): no process of their own
	seen      map[string]int  // one-off commands -> the line that gave them
	limitLine line            // the limit line, if any
	untilCol  int             // the column of run's until=
}

type command struct {
	name  string
	usage string
	run   func(p *parser, ln line, a *Args, pos []token) error
}

// commands is the language, in the order docs/scenario-language.md documents it.
var commands []command

func init() {
	commands = []command{
		{"protocol", "protocol NAME", (*parser).cmdProtocol},
		{"seed", "seed N", (*parser).cmdSeed},
		{"limit", "limit [events=N] [time=DUR] [queue=N] [memory=SIZE]", (*parser).cmdLimit},
		{"bound", "bound DUR", (*parser).cmdBound},
		{"network", "network [delay=DUR] [jitter=DUR] [dist=fixed|uniform|exp] [loss=P] [dup=P] [reorder=P] [reorder-delay=DUR]", (*parser).cmdNetwork},
		{"link", "link A B|A -> B [delay=DUR] ...", (*parser).cmdLink},
		{"node", "node NAME KIND [args]", (*parser).cmdDecl},
		{"client", "client NAME KIND [args]", (*parser).cmdDecl},
		{"resource", "resource NAME [fencing=on|off]", (*parser).cmdDecl},
		{"at", "at TIME ACTION", (*parser).cmdAt},
		{"when", "when PROC EVENT [LOCK] [after=DUR] then ACTION", (*parser).cmdWhen},
		{"every", everyUsage, (*parser).cmdEvery},
		{"note", `note at TIME [ask "QUESTION"] "TEXT" | note when PROC EVENT [LOCK] [after=DUR] [ask "QUESTION"] "TEXT"`, (*parser).cmdNote},
		{"compare-with", "compare-with ID|FILE", (*parser).cmdCompareWith},
		{"run", "run [until=TIME]", (*parser).cmdRun},
		{"expect", "expect verdict V | violated NAME | holds NAME | n/a NAME | metric NAME VALUE", (*parser).cmdExpect},
		{"allow", allowUsage, (*parser).cmdAllow},
		{"goal", goalUsage, (*parser).cmdGoal},
		{"hint", `hint "TEXT"`, (*parser).cmdHint},
		{"proved", "proved", (*parser).cmdProved},
	}
}

func commandNames() []string {
	n := make([]string, len(commands))
	for i, c := range commands {
		n[i] = c.name
	}
	return n
}

var nameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// maxName is the longest name (of a process, a lock, a transaction, a value):
// names head columns and fill log lines, so they stay short.
const maxName = 64

// isWord reports whether s may name a lock, resource key, transaction, row, value,
// service or metric: letters, digits and - _ . : # / @, so that every name prints
// as itself, on a terminal and in the timeline's columns.
func isWord(s string) bool {
	if s == "" || utf8.RuneCountInString(s) > maxName {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_.:#/@", r) {
			return false
		}
	}
	return true
}

// wordHint says what a name may be made of.
const wordHint = "a name is 1 to 64 letters, digits and - _ . : # / @"

// word checks that t names a what ("lock", "transaction", "metric").
func (p *parser) word(ln int, t token, what string) error {
	switch {
	case isWord(t.text):
		return nil
	case t.text == "":
		return p.err(ln, t.col, "the "+what+" has no name", wordHint)
	}
	return p.err(ln, t.col, what+" name "+quote(t.text)+" is not a name", wordHint)
}

// Parse reads a scenario script with the built-in kinds. file names it in
// errors; its base name without the extension is the scenario's id.
func Parse(file, src string) (*Scenario, error) { return builtins.Parse(file, src) }

// Parse reads a scenario script whose processes are of r's kinds.
func (r *Registry) Parse(file, src string) (*Scenario, error) {
	lx, err := lex(file, src)
	if err != nil {
		return nil, err
	}
	id := safeID(strings.TrimSuffix(path.Base(strings.ReplaceAll(file, "\\", "/")), path.Ext(file)))
	s := &Scenario{reg: r, ID: id, File: file, Source: src, Seed: 1, Limits: sim.DefaultLimits(), Bound: check.DefaultBound,
		net: sim.Link{Delay: time.Millisecond}}
	if len(lx.header) > 0 {
		s.Summary = lx.header[0]
		s.Teaching = joinParagraph(lx.header)
	}
	p := &parser{reg: r, file: file, s: s, ids: map[string]sim.ProcID{}, inTxn: map[string]bool{}, seen: map[string]int{}}
	// First pass: the process names, so that any line may refer to any process.
	for _, ln := range lx.lines {
		c := ln.toks[0].text
		if c != DeclNode && c != DeclClient && c != DeclResource {
			continue
		}
		if len(ln.toks) < 2 {
			return nil, p.errAt(ln, len(ln.toks)-1, c+" needs a name", "write "+c+" NAME ...")
		}
		name := ln.toks[1]
		if !nameRE.MatchString(name.text) || len(name.text) > maxName {
			return nil, p.err(ln.num, name.col, "process name "+quote(name.text)+" is not a name",
				"start with a letter; use up to 64 letters, digits, - and _")
		}
		if _, dup := p.ids[name.text]; dup || p.inTxn[name.text] {
			return nil, p.err(ln.num, name.col, "process "+name.text+" is declared twice", "give each process its own name")
		}
		if c == DeclResource && slices.ContainsFunc(ln.toks[2:], func(t token) bool { return strings.HasPrefix(t.text, "in=") }) {
			p.inTxn[name.text] = true // data in a database's tables, not a process (cmdDecl reads the rest)
			continue
		}
		p.ids[name.text] = sim.ProcID(len(p.ids))
		d := procDecl{name: name.text, kind: Kind{Decl: c, Name: c}}
		if c != DeclResource {
			for _, t := range ln.toks[2:] { // the kind is the first word that is not key=value
				if !strings.Contains(t.text, "=") {
					d.kind.Name = t.text
					break
				}
			}
		}
		s.procs = append(s.procs, d)
	}
	// The network defaults apply to every link, wherever the network line stands;
	// declared links come next, so that a link fault (at T link A B ...) starts
	// from the pair's declared settings wherever they stand.
	for _, first := range []string{"network", "link"} {
		for _, ln := range lx.lines {
			if ln.toks[0].text == first {
				if err := p.line(ln); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, ln := range lx.lines {
		if ln.toks[0].text == "network" || ln.toks[0].text == "link" {
			continue
		}
		if err := p.line(ln); err != nil {
			return nil, err
		}
	}
	if len(s.procs) == 0 {
		return nil, p.err(1, 1, "the scenario declares no processes", "add a node, a client or a resource")
	}
	if err := p.checkLimits(); err != nil {
		return nil, err
	}
	if err := p.checkExercise(); err != nil {
		return nil, err
	}
	s.Warnings = p.warnings(lx.lines)
	s.WhatIf, s.whatIfLine = whatIfPart(src)
	if s.Protocol == "" {
		for _, d := range s.procs {
			if d.kind.Protocol != "" {
				s.Protocol = d.kind.Protocol
				break
			}
		}
	}
	return s, nil
}

func (p *parser) line(ln line) error {
	name := ln.toks[0]
	for _, c := range commands {
		if c.name == name.text {
			rest := ln.toks[1:]
			if c.name == "at" || c.name == "when" || c.name == "every" || c.name == "note" || c.name == "hint" {
				rest = nil // their action (or trigger) reads its own arguments
			}
			a, pos := newArgs(p.file, ln.num, c.name, rest)
			if err := c.run(p, ln, a, pos); err != nil {
				return err
			}
			return a.err()
		}
	}
	hint := "commands are: " + strings.Join(commandNames(), ", ")
	if s := closest(name.text, commandNames()); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return p.err(ln.num, name.col, "unknown command "+quote(name.text), hint)
}

func (p *parser) err(ln, col int, msg, hint string) error {
	return &Error{File: p.file, Line: ln, Col: col, Msg: msg, Hint: hint}
}

// errAt reports an error at token i of the line (past the end: after the last one).
func (p *parser) errAt(ln line, i int, msg, hint string) error {
	col := 1
	switch {
	case i < len(ln.toks):
		col = ln.toks[i].col
	case len(ln.toks) > 0:
		last := ln.toks[len(ln.toks)-1]
		col = last.col + len(last.text)
	}
	return p.err(ln.num, col, msg, hint)
}

// once rejects a second copy of a command that may appear once.
func (p *parser) once(ln line) error {
	c := ln.toks[0].text
	if prev, ok := p.seen[c]; ok {
		return p.err(ln.num, 1, c+" is given twice (first on line "+strconv.Itoa(prev)+")", "keep one "+c+" line")
	}
	p.seen[c] = ln.num
	return nil
}

func (p *parser) positional(ln line, pos []token, want int, usage string) error {
	if len(pos) < want {
		return p.errAt(ln, len(ln.toks), "missing argument", "write "+usage)
	}
	if len(pos) > want {
		return p.err(ln.num, pos[want].col, "unexpected "+quote(pos[want].text), "write "+usage)
	}
	return nil
}

func (p *parser) proc(ln int, t token) (sim.ProcID, error) {
	if id, ok := p.ids[t.text]; ok {
		return id, nil
	}
	names := p.s.ProcNames()
	return 0, p.unknownProc(ln, t, names, "declared processes: "+listed(names))
}

// unknownProc is the error for a name no process has; its hint suggests the
// closest of cands (the processes that would fit).
func (p *parser) unknownProc(ln int, t token, cands []string, hint string) error {
	if s := closest(t.text, cands); s != "" && t.text != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return p.err(ln, t.col, "unknown process "+quote(t.text), hint)
}

// namesOf lists the declared processes of a kind, in declaration order.
func (p *parser) namesOf(kindName string) []string {
	var ns []string
	for _, d := range p.s.procs {
		if d.kind.Name == kindName {
			ns = append(ns, d.name)
		}
	}
	return ns
}

// listed joins names for a hint, the first few only: a hint names examples, it
// does not list ten thousand processes.
func listed(names []string) string {
	const most = 12
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:most], ", ") + fmt.Sprintf(", ... (%d in all)", len(names))
}

func (p *parser) duration(ln int, t token, what string) (time.Duration, error) {
	d, err := parseDuration(t.text)
	if err != nil || d < 0 {
		return 0, p.err(ln, t.col, quote(t.text)+" is not "+what, "write a duration like 10s, 250ms or 1.5s")
	}
	if d > sim.MaxDuration {
		return 0, p.err(ln, t.col, quote(t.text)+" is longer than "+maxDurationText, maxDurationHint)
	}
	return d, nil
}

func (p *parser) cmdProtocol(ln line, _ *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 1, "protocol NAME"); err != nil {
		return err
	}
	ps := p.reg.Protocols()
	for _, n := range ps {
		if n == pos[0].text {
			p.s.Protocol = n
			return nil
		}
	}
	return p.err(ln.num, pos[0].col, "unknown protocol "+quote(pos[0].text), "protocols are: "+strings.Join(ps, ", "))
}

func (p *parser) cmdSeed(ln line, _ *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 1, "seed N"); err != nil {
		return err
	}
	n, err := strconv.ParseUint(pos[0].text, 10, 64)
	if err != nil {
		return p.err(ln.num, pos[0].col, quote(pos[0].text)+" is not a seed", "a seed is a whole number from 0 up")
	}
	p.s.Seed = n
	return nil
}

func (p *parser) cmdLimit(ln line, a *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, commandUsage("limit")); err != nil {
		return err
	}
	l := &p.s.Limits
	l.MaxEvents = int(a.Int("events", int64(l.MaxEvents), 1, 100_000_000))
	l.MaxTime = a.Dur("time", l.MaxTime)
	l.MaxQueue = int(a.Int("queue", int64(l.MaxQueue), 1, 100_000_000))
	l.MaxMemory = a.size("memory", l.MaxMemory, minMemory, maxMemory)
	if t, ok := a.kv["time"]; ok && (l.MaxTime <= 0 || l.MaxTime > sim.MaxRunTime) {
		a.fail(t.col, "time="+short(t.text)+" is out of range", "a run lasts more than 0 and at most "+hours(sim.MaxRunTime))
	}
	p.limitLine = ln
	return nil
}

// The memory budgets `limit memory=` accepts.
const (
	minMemory = 1_000_000
	maxMemory = 1_000_000_000_000
)

// checkLimits runs once every line is read: whatever the order of the lines,
// nothing is scheduled after the time limit, and the declared limits fit in the
// memory budget (sim/memory.go), so that the run can reach them.
func (p *parser) checkLimits() error {
	s := p.s
	for _, st := range s.steps {
		if st.every > 0 && st.until == 0 && s.Until == 0 {
			return p.err(st.action.Line, 1, "every needs an end: this line would repeat until the run's time limit ("+
				sim.FormatDuration(s.Limits.MaxTime)+")", "give it until=TIME (every 200ms until=5s c1 write store), or end the run with run until=TIME")
		}
		if st.every > 0 && st.until > s.Limits.MaxTime {
			return p.err(st.action.Line, st.col, "until="+sim.FormatDuration(st.until)+" is after the run's time limit of "+
				sim.FormatDuration(s.Limits.MaxTime), p.timeLimitHint(st.until))
		}
		if st.when == nil && st.at > s.Limits.MaxTime {
			return p.err(st.action.Line, st.col, "at "+sim.FormatDuration(st.at)+" is after the run's time limit of "+
				sim.FormatDuration(s.Limits.MaxTime), p.timeLimitHint(st.at))
		}
	}
	if s.Until > s.Limits.MaxTime {
		ln := p.seen["run"]
		return p.err(ln, p.untilCol, "run until="+sim.FormatDuration(s.Until)+" is after the run's time limit of "+
			sim.FormatDuration(s.Limits.MaxTime), p.timeLimitHint(s.Until))
	}
	need := s.Limits.MinMemory(len(s.procs))
	if need <= s.Limits.MaxMemory {
		return nil
	}
	ln, col, what := 1, 1, fmt.Sprintf("%d processes", len(s.procs))
	if l := p.limitLine; l.num > 0 {
		ln, col, what = l.num, argCol(l, "memory", "events"), "limit "+joinTokens(l.toks[1:])
	}
	hint := fmt.Sprintf("raise the budget with limit memory=%s", sim.FormatBytes(need))
	if fit := s.Limits.EventsThatFit(len(s.procs)); fit > 0 {
		hint = fmt.Sprintf("lower limit events= to at most %d, or %s", fit, hint)
	}
	return p.err(ln, col, fmt.Sprintf("%s cannot fit: the run needs at least %s, and its memory budget is %s",
		short(what), sim.FormatBytes(need), sim.FormatBytes(s.Limits.MaxMemory)), hint)
}

// argCol is the column of the first of keys the line gives (1 for none).
func argCol(ln line, keys ...string) int {
	for _, k := range keys {
		for _, t := range ln.toks {
			if strings.HasPrefix(t.text, k+"=") {
				return t.col
			}
		}
	}
	return 1
}

// timeLimitHint says how to schedule something at t.
func (p *parser) timeLimitHint(t time.Duration) string {
	if t > sim.MaxRunTime {
		return "a run lasts at most " + hours(sim.MaxRunTime) + ": schedule it earlier"
	}
	return "raise the limit with limit time=" + sim.FormatDuration(t) + " (at most " + hours(sim.MaxRunTime) + "), or schedule it earlier"
}

func (p *parser) cmdBound(ln line, _ *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 1, "bound DUR"); err != nil {
		return err
	}
	d, err := p.duration(ln.num, pos[0], "a duration")
	if err == nil && d == 0 {
		err = p.err(ln.num, pos[0].col, "the bound must be more than 0", "write a duration like 30s")
	}
	p.s.Bound = d
	return err
}

// linkArgs reads the link settings shared by `network` and `link`.
func (p *parser) linkArgs(a *Args, base sim.Link) sim.Link {
	l := base
	l.Delay = a.Dur("delay", l.Delay)
	l.Jitter = a.Dur("jitter", l.Jitter)
	dist := l.Dist
	if l.Jitter > 0 && base.Jitter == 0 {
		dist = sim.DelayUniform
	}
	d, _ := sim.ParseDelayDist(a.OneOf("dist", dist.String(), "fixed", "uniform", "exp"))
	l.Dist = d
	l.Loss = a.prob("loss", l.Loss)
	l.Dup = a.prob("dup", l.Dup)
	l.Reorder = a.prob("reorder", l.Reorder)
	l.ReorderDelay = a.Dur("reorder-delay", l.ReorderDelay)
	return l
}

func (p *parser) cmdNetwork(ln line, a *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, commands[4].usage); err != nil {
		return err
	}
	p.s.net = p.linkArgs(a, p.s.net)
	return nil
}

func (p *parser) cmdLink(ln line, a *Args, pos []token) error {
	from, to, oneWay, err := p.linkEnds(ln, pos, "link A B [delay=DUR] ... (both ways) or link A -> B ... (one way)")
	if err != nil {
		return err
	}
	l := p.linkArgs(a, p.s.net)
	p.s.links = append(p.s.links, linkDecl{from, to, l})
	if !oneWay {
		p.s.links = append(p.s.links, linkDecl{to, from, l})
	}
	return nil
}

// linkEnds reads a link's two ends, "A B" (both ways) or "A -> B" (one way): two
// different processes.
func (p *parser) linkEnds(ln line, pos []token, usage string) (from, to sim.ProcID, oneWay bool, err error) {
	oneWay = len(pos) == 3 && pos[1].text == "->"
	if oneWay {
		pos = []token{pos[0], pos[2]}
	}
	if err = p.positional(ln, pos, 2, usage); err != nil {
		return
	}
	if from, err = p.proc(ln.num, pos[0]); err != nil {
		return
	}
	if to, err = p.proc(ln.num, pos[1]); err == nil && from == to {
		err = p.err(ln.num, pos[1].col, "a link joins two processes", "name two different processes")
	}
	return
}

func (p *parser) cmdDecl(ln line, a *Args, pos []token) error {
	decl := ln.toks[0].text
	if decl == DeclResource && p.inTxn[ln.toks[1].text] {
		return p.resourceInTxn(ln, a, pos)
	}
	id := p.ids[ln.toks[1].text]
	kindName := decl
	if decl != DeclResource {
		if len(pos) < 2 {
			return p.errAt(ln, 2, decl+" needs a kind", decl+" kinds are: "+strings.Join(p.reg.names(decl), ", "))
		}
		kindName = pos[1].text
	}
	k, ok := p.reg.lookup(decl, kindName)
	if !ok {
		hint := decl + " kinds are: " + strings.Join(p.reg.names(decl), ", ")
		if s := closest(kindName, p.reg.names(decl)); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		col := 1
		if len(pos) > 1 {
			col = pos[1].col
		}
		return p.err(ln.num, col, "unknown "+decl+" kind "+quote(kindName), hint)
	}
	want := 2
	if decl == DeclResource {
		want = 1
	}
	if err := p.positional(ln, pos, want, commandUsage(decl)); err != nil {
		return err
	}
	d := &p.s.procs[id]
	d.kind = *k
	d.clock.Offset = a.signedDur("offset", 0)
	d.clock.DriftPPM = a.Int("drift", 0, -sim.MaxDriftPPM, sim.MaxDriftPPM)
	a.p, a.ln, a.self = p, ln, d.name
	d.build = k.Build(a)
	for _, t := range a.keys {
		d.given = append(d.given, t.text)
		d.values = append(d.values, t.text+"="+a.kv[t.text].text)
	}
	d.refs = a.named
	return a.early
}

// refName reads name n of argument t (key=NAME or key=NAME,NAME...): a declared
// process of kind wantKind.
func (p *parser) refName(ln int, t token, n, key, wantKind string) (sim.ProcID, error) {
	id, ok := p.ids[n]
	if ok && p.s.procs[id].kind.Name == wantKind {
		return id, nil
	}
	declare := "declare one with: " + p.reg.declOf(wantKind) + " NAME " + wantKind
	if ok {
		return id, p.err(ln, t.col, key+"="+short(t.text)+": "+n+" is not "+article(wantKind)+" "+wantKind+" process", declare)
	}
	// Hints name the processes that would fit, not any process at all.
	fits, hint := p.namesOf(wantKind), declare
	if len(fits) > 0 {
		hint = "declared " + wantKind + " processes: " + listed(fits)
	}
	switch {
	case t.text == "":
		return id, p.err(ln, t.col, key+"= names no "+wantKind+" process", hint)
	case n == "":
		return id, p.err(ln, t.col, key+"="+short(t.text)+" leaves out a name", hint)
	}
	return id, p.unknownProc(ln, token{text: n, col: t.col}, fits, hint)
}

// article is "an" before a vowel sound ("an acceptor"), else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func commandUsage(name string) string {
	for _, c := range commands {
		if c.name == name {
			return c.usage
		}
	}
	return name
}

func (p *parser) cmdAt(ln line, _ *Args, _ []token) error {
	if len(ln.toks) < 3 {
		return p.errAt(ln, len(ln.toks), "at needs a time and an action", "write at TIME ACTION, like at 2s crash r1")
	}
	at, err := p.duration(ln.num, ln.toks[1], "a time")
	if err != nil {
		return err
	}
	act, err := p.action(ln, 2)
	if err != nil {
		return err
	}
	p.s.steps = append(p.s.steps, step{at: at, col: ln.toks[1].col, action: act})
	return nil
}

const everyUsage = "every PERIOD [from=TIME] [until=TIME] CLIENT COMMAND [while CLIENT holds LOCK]"

// maxTicks bounds the times one every line may repeat within its window, so
// that a period of a millisecond over an hour is an error, not a run of a
// million commands that ends at its event limit.
const maxTicks = 100_000

// cmdEvery reads a repeating workload: a client's command every PERIOD of true
// time, from from= (default: one period in) to until= (default: the run's
// end), and with while, only at the times its client believes it holds the
// lock. The application's loop: a time that falls while the client is paused
// or down is skipped (sim.Action.Every).
func (p *parser) cmdEvery(ln line, _ *Args, _ []token) error {
	const hint = "write " + everyUsage + ", like: every 200ms c1 write store while c1 holds L"
	if len(ln.toks) < 3 {
		return p.errAt(ln, len(ln.toks), "every needs a period and a client's command", hint)
	}
	period, err := p.duration(ln.num, ln.toks[1], "a period")
	if err != nil {
		return err
	}
	if period < time.Millisecond {
		return p.err(ln.num, ln.toks[1].col, "every "+ln.toks[1].text+" repeats more often than once a millisecond", "write a period of 1ms or more, like every 200ms")
	}
	st := step{every: period, at: period, col: ln.toks[1].col}
	i := 2
	seen := map[string]bool{}
	for ; i < len(ln.toks); i++ {
		k, v, ok := strings.Cut(ln.toks[i].text, "=")
		if !ok {
			break
		}
		t := token{text: v, col: ln.toks[i].col}
		switch {
		case seen[k]:
			return p.err(ln.num, t.col, "argument "+short(k)+" given twice", "keep one "+short(k)+"=...")
		case k == "from":
			if st.at, err = p.duration(ln.num, t, "a time"); err != nil {
				return err
			}
			st.col = t.col
		case k == "until":
			if st.until, err = p.duration(ln.num, t, "a time"); err != nil {
				return err
			}
		default:
			h := "every takes from=TIME and until=TIME before the client's command"
			if s := closest(k, []string{"from", "until"}); s != "" {
				h = "did you mean " + s + "=? " + h
			}
			return p.err(ln.num, t.col, "unknown argument "+short(k)+" for every", h)
		}
		seen[k] = true
	}
	if st.until > 0 && st.until <= st.at {
		return p.err(ln.num, st.col, "every from "+sim.FormatDuration(st.at)+" until="+sim.FormatDuration(st.until)+" never repeats",
			"until= must come after the first time ("+sim.FormatDuration(st.at)+")")
	}
	end := len(ln.toks)
	if w := slices.IndexFunc(ln.toks[i:], func(t token) bool { return t.text == "while" }); w >= 0 {
		end = i + w
		cond := ln.toks[end+1:]
		if len(cond) != 3 || cond[1].text != "holds" {
			return p.errAt(ln, end+1, "while needs a client that holds a lock", "write while CLIENT holds LOCK, like while c1 holds L")
		}
		who, err := p.proc(ln.num, cond[0])
		if err != nil {
			return err
		}
		if p.s.procs[who].kind.Decl != DeclClient {
			return p.err(ln.num, cond[0].col, cond[0].text+" is not a client: it never holds a lock", "name the client whose lock the line waits for")
		}
		if err := p.word(ln.num, cond[2], "lock"); err != nil {
			return err
		}
		st.while = &sim.Holding{Client: who, Lock: cond[2].text}
	}
	if i >= end {
		return p.errAt(ln, i, "every needs a client's command", hint)
	}
	// The command is read as at's would be, from a line that ends before while.
	cmd := line{num: ln.num, toks: ln.toks[:end], narration: ln.narration, question: ln.question}
	act, err := p.action(cmd, i)
	if err != nil {
		return err
	}
	if act.Kind != sim.ActCommand || act.Proc < 0 || p.s.procs[act.Proc].kind.Decl != DeclClient || p.reg.IsFaultVerb(ln.toks[i+1].text) {
		return p.err(ln.num, ln.toks[i].col, "every repeats a client's command, and "+quote(joinTokens(ln.toks[i:end]))+" is not one",
			"write a client's command after the period, like every 200ms c1 write store; for a fault, write an at line for each time")
	}
	if st.until > 0 && (st.until-st.at)/period > maxTicks {
		return p.err(ln.num, ln.toks[1].col, fmt.Sprintf("every %s from %s until=%s repeats more than %d times", ln.toks[1].text,
			sim.FormatDuration(st.at), sim.FormatDuration(st.until), maxTicks), "write a longer period, or a shorter window")
	}
	act.Label, act.Every, act.While = joinTokens(ln.toks), period, st.while
	if st.until > 0 {
		act.Until = sim.Time(st.until)
	}
	st.action = act
	p.s.steps = append(p.s.steps, st)
	return nil
}

var triggerEvents = []struct {
	word    string
	kind    sim.ObsKind
	counter string // ObsCounter: the counter's name
	decl    string // who can report it ("": a node or a client)
	doc     string
}{
	{"acquired", sim.ObsBeliefStart, "", "client", "PROC comes to believe it holds the lock"},
	{"released", sim.ObsBeliefEnd, "", "client", "PROC stops believing it holds the lock"},
	{"tries", sim.ObsAttempt, "", "client", "PROC starts trying to acquire the lock"},
	{"granted", sim.ObsGrant, "", "node", "the service PROC grants the lock"},
	{"voted", sim.ObsVote, "", "node", "the participant PROC votes on the transaction"},
	{"decided", sim.ObsDecide, "", "", "PROC decides the transaction, commit or abort"},
	{"accepted", sim.ObsAccepted, "", "node", "the acceptor PROC accepts a value"},
	{"elected", sim.ObsCounter, "elections", "node", "the server PROC wins an election and leads"},
}

// trigger reads PROC EVENT [LOCK] [after=DUR] from toks (the words between when
// and then, or between note when and the text).
func (p *parser) trigger(ln line, toks []token, usage string) (*sim.Match, time.Duration, error) {
	if len(toks) < 2 {
		return nil, 0, p.errAt(ln, len(ln.toks)-1, "a trigger needs a process and an event", "write "+usage)
	}
	who, err := p.proc(ln.num, toks[0])
	if err != nil {
		return nil, 0, err
	}
	ev := toks[1]
	m := &sim.Match{Proc: who, Client: sim.NoProc}
	var words []string
	for _, te := range triggerEvents {
		words = append(words, te.word)
		if te.word != ev.text {
			continue
		}
		m.Kind, m.Name = te.kind, te.counter
		if d := p.s.procs[who].kind.Decl; te.decl != "" && d != te.decl {
			return nil, 0, p.err(ln.num, ev.col, toks[0].text+" is a "+d+": it is never "+te.word,
				"only a "+te.decl+" is "+te.word+" ("+te.doc+")")
		}
	}
	if m.Kind == 0 {
		return nil, 0, p.err(ln.num, ev.col, "unknown event "+quote(ev.text), "events are: "+strings.Join(words, ", "))
	}
	var after time.Duration
	afterSeen := false
	for _, t := range toks[2:] {
		if v, ok := strings.CutPrefix(t.text, "after="); ok {
			if afterSeen {
				return nil, 0, p.err(ln.num, t.col, "argument after given twice", "keep one after=...")
			}
			afterSeen = true
			if after, err = p.duration(ln.num, token{text: v, col: t.col}, "a duration"); err != nil {
				return nil, 0, err
			}
			continue
		}
		if k, _, ok := strings.Cut(t.text, "="); ok {
			if k == "" {
				return nil, 0, p.err(ln.num, t.col, "unexpected "+quote(t.text), "write "+usage)
			}
			hint := "when takes after=DUR before then"
			if ln.toks[0].text == "note" {
				hint = "note when takes after=DUR before its text"
			}
			if s := closest(k, []string{"after"}); s != "" {
				hint = "did you mean after=? " + hint
			}
			return nil, 0, p.err(ln.num, t.col, "unknown argument "+short(k)+" for "+ln.toks[0].text, hint)
		}
		if m.Lock != "" {
			return nil, 0, p.err(ln.num, t.col, "unexpected "+quote(t.text), "write "+usage)
		}
		if err := p.word(ln.num, t, "lock"); err != nil {
			return nil, 0, err
		}
		m.Lock = t.text
	}
	return m, after, nil
}

func (p *parser) cmdWhen(ln line, _ *Args, _ []token) error {
	const usage = "when PROC EVENT [LOCK] [after=DUR] then ACTION, like: when c1 acquired L then pause c1 for=15s"
	then := -1
	for i, t := range ln.toks {
		if t.text == "then" {
			then = i
			break
		}
	}
	if then < 0 {
		return p.errAt(ln, len(ln.toks), "when needs then and an action", "write "+usage)
	}
	if then < 3 {
		return p.errAt(ln, then, "when needs a process and an event before then", "write "+usage)
	}
	m, after, err := p.trigger(ln, ln.toks[1:then], usage)
	if err != nil {
		return err
	}
	if then+1 >= len(ln.toks) {
		return p.errAt(ln, then+1, "then needs an action", "write "+usage)
	}
	act, err := p.action(ln, then+1)
	if err != nil {
		return err
	}
	p.s.steps = append(p.s.steps, step{when: m, after: after, action: act, trigger: joinTokens(ln.toks[:then])})
	return nil
}

// cmdNote attaches narration to a moment: a time, or a trigger. It changes
// nothing in the run; the walk stops there and shows the text. With ask
// "QUESTION" before the text, the walk asks the question first, and shows the
// rows that answer it and the text on the next key.
func (p *parser) cmdNote(ln line, _ *Args, _ []token) error {
	const usage = `note at TIME [ask "QUESTION"] "TEXT" or note when PROC EVENT [LOCK] [after=DUR] [ask "QUESTION"] "TEXT", like: note at 1.2s "C's key is gone"`
	if len(ln.toks) < 2 || ln.toks[1].text != "at" && ln.toks[1].text != "when" {
		return p.errAt(ln, 1, "note needs at TIME or when TRIGGER, then its text", "write "+usage)
	}
	last := ln.toks[len(ln.toks)-1]
	if len(ln.toks) < 4 || !last.quoted || strings.TrimSpace(last.text) == "" {
		return p.errAt(ln, len(ln.toks), "note needs its text last, in quotes", "write "+usage)
	}
	toks := ln.toks[:len(ln.toks)-1] // the moment, and the question
	question := ""
	if n := len(toks); n >= 3 && toks[n-2].text == "ask" && !toks[n-2].quoted {
		q := toks[n-1]
		if !q.quoted || strings.TrimSpace(q.text) == "" {
			return p.err(ln.num, q.col, "ask needs its question in quotes", "write "+usage)
		}
		question, toks = q.text, toks[:n-2]
	}
	act := sim.Action{Kind: sim.ActNote, Proc: sim.NoProc, Label: joinTokens(toks), Narration: last.text, Question: question, Line: ln.num}
	if ln.toks[1].text == "at" {
		if len(toks) != 3 {
			return p.err(ln.num, toks[min(3, len(toks)-1)].col, "unexpected "+strconv.Quote(toks[min(3, len(toks)-1)].text), "write "+usage+" (quote the text)")
		}
		at, err := p.duration(ln.num, toks[2], "a time")
		if err != nil {
			return err
		}
		p.s.steps = append(p.s.steps, step{at: at, action: act})
		return nil
	}
	m, after, err := p.trigger(ln, toks[2:], usage)
	if err != nil {
		return err
	}
	act.Proc = m.Proc // the note sits in the column of the process that reported the event
	p.s.steps = append(p.s.steps, step{when: m, after: after, action: act, trigger: joinTokens(toks[1:])})
	return nil
}

func (p *parser) cmdCompareWith(ln line, _ *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 1, "compare-with ID|FILE"); err != nil {
		return err
	}
	p.s.CompareWith = pos[0].text
	if p.s.CompareWith == p.s.ID || strings.TrimSuffix(path.Base(p.s.CompareWith), Ext) == p.s.ID {
		return p.err(ln.num, pos[0].col, "a scenario cannot be its own control", "name the other scenario of the pair")
	}
	return nil
}

func (p *parser) cmdRun(ln line, a *Args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, "run [until=TIME]"); err != nil {
		return err
	}
	p.s.Until = a.Dur("until", 0)
	if t, ok := a.kv["until"]; ok {
		p.untilCol = t.col
		if p.s.Until == 0 && a.first == nil {
			a.fail(t.col, "until=0 ends the run before it starts", "write a time after 0, or run alone to run until nothing is left to happen")
		}
	}
	return nil
}

func (p *parser) cmdExpect(ln line, _ *Args, pos []token) error {
	const usage = "expect verdict SAFE|UNSAFE|STUCK, expect violated|holds|n/a INVARIANT, or expect metric NAME VALUE"
	if len(pos) < 2 {
		return p.errAt(ln, len(ln.toks), "expect needs what to expect", "write "+usage)
	}
	e := Expect{Line: ln.num, Text: joinTokens(ln.toks[1:])}
	what, name := pos[0], pos[1]
	want := 2
	switch what.text {
	case "verdict":
		e.Kind = ExpectVerdict
		if _, ok := check.ParseVerdict(name.text); !ok {
			return p.err(ln.num, name.col, "unknown verdict "+quote(name.text), "verdicts are SAFE, UNSAFE and STUCK")
		}
	case "violated", "holds", "n/a":
		e.Kind = map[string]ExpectKind{"violated": ExpectViolated, "holds": ExpectHolds, "n/a": ExpectNA}[what.text]
		if !check.Known(name.text) {
			hint := "invariants are: " + strings.Join(check.Names(), ", ")
			if s := closest(name.text, check.Names()); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
			return p.err(ln.num, name.col, "unknown invariant "+quote(name.text), hint)
		}
	case "metric":
		e.Kind = ExpectMetric
		want = 3
		if len(pos) < 3 {
			return p.errAt(ln, len(ln.toks), "expect metric needs a value", "write expect metric NAME VALUE, like expect metric validity_ms 9893")
		}
		v, err := strconv.ParseFloat(pos[2].text, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return p.err(ln.num, pos[2].col, quote(pos[2].text)+" is not a number", "write a number like 9893 or 0.5")
		}
		if err := p.word(ln.num, name, "metric"); err != nil {
			return err
		}
		e.Value = v
	default:
		return p.err(ln.num, what.col, "unknown expectation "+quote(what.text), "write "+usage)
	}
	if err := p.positional(ln, pos, want, usage); err != nil {
		return err
	}
	e.Name = name.text
	p.s.Expects = append(p.s.Expects, e)
	return nil
}

func joinTokens(ts []token) string {
	w := make([]string, len(ts))
	for i, t := range ts {
		w[i] = t.text
	}
	return strings.Join(w, " ")
}

// action parses the action starting at token i of the line.
func (p *parser) action(ln line, i int) (sim.Action, error) {
	toks := ln.toks[i:]
	act := sim.Action{Label: joinTokens(ln.toks), Narration: ln.narration, Question: ln.question, Line: ln.num, Proc: sim.NoProc}
	verb := toks[0]
	a, pos := newArgs(p.file, ln.num, verb.text, toks[1:])
	procFault := func(k sim.ActionKind, usage string) error {
		if err := p.positional(ln, pos, 1, usage); err != nil {
			return err
		}
		id, err := p.proc(ln.num, pos[0])
		act.Kind, act.Proc = k, id
		return err
	}
	var err error
	switch verb.text {
	case fault.VerbCrash:
		err = procFault(sim.ActCrash, "crash PROC")
	case fault.VerbPowerLoss:
		err = procFault(sim.ActPowerLoss, "power-loss PROC")
	case fault.VerbShutdown:
		err = procFault(sim.ActShutdown, "shutdown PROC")
	case fault.VerbRestart:
		err = procFault(sim.ActRestart, "restart PROC [after=DUR] [clock=true|node]")
		act.Dur = a.Dur("after", 0)
		// clock=node: the delay is counted by the process's own wall clock (a
		// supervisor on its machine), which a clock-jump or clock-drift moves.
		if act.NodeClock = a.OneOf("clock", "true", "true", "node") == "node"; act.NodeClock && act.Dur == 0 && err == nil {
			err = p.err(ln.num, verb.col, "restart clock=node needs a delay to count",
				"write restart PROC after=DUR clock=node, like restart C after=11s clock=node")
		}
	case fault.VerbPause:
		err = procFault(sim.ActPause, "pause PROC [for=DUR]")
		act.Dur = a.Dur("for", 0)
	case fault.VerbResume:
		err = procFault(sim.ActResume, "resume PROC")
	case fault.VerbClockJump, fault.VerbClockDrift:
		usage := verb.text + " PROC +15s"
		if verb.text == "clock-drift" {
			usage = verb.text + " PROC PPM"
		}
		if err = p.positional(ln, pos, 2, usage); err != nil {
			return act, err
		}
		if act.Proc, err = p.proc(ln.num, pos[0]); err != nil {
			return act, err
		}
		if verb.text == "clock-jump" {
			act.Kind = sim.ActJump
			act.Dur, err = time.ParseDuration(pos[1].text)
			if err != nil || act.Dur == 0 || act.Dur > sim.MaxDuration || act.Dur < -sim.MaxDuration {
				return act, p.err(ln.num, pos[1].col, quote(pos[1].text)+" is not a clock jump",
					"write a signed duration like +15s or -2s, at most "+maxDurationText+" either way")
			}
		} else {
			act.Kind = sim.ActDrift
			act.PPM, err = strconv.ParseInt(pos[1].text, 10, 64)
			if err != nil || act.PPM < -sim.MaxDriftPPM || act.PPM > sim.MaxDriftPPM {
				return act, p.err(ln.num, pos[1].col, quote(pos[1].text)+" is not a drift",
					fmt.Sprintf("write parts per million from %d to %d, like 200", -sim.MaxDriftPPM, sim.MaxDriftPPM))
			}
		}
	case fault.VerbPartition:
		err = p.partition(ln, pos, &act)
	case fault.VerbHeal:
		err = p.positional(ln, pos, 0, "heal")
		act.Kind = sim.ActHeal
	case fault.VerbLink:
		// A link's behaviour from now on: the network's settings with these
		// changes (none: back to the network's settings).
		const usage = "link A B [loss=P] [dup=P] [delay=DUR] [extra-delay=DUR] ... (both ways) or link A -> B ... (one way)"
		var from, to sim.ProcID
		act.Kind = sim.ActLink
		if from, to, act.OneWay, err = p.linkEnds(ln, pos, usage); err != nil {
			break
		}
		// From the pair's declared settings (or the network's), changed as given;
		// extra-delay= adds to the delay.
		act.A, act.B, act.Link = []sim.ProcID{from}, []sim.ProcID{to}, p.linkArgs(a, p.s.declaredLink(from, to))
		act.Link.Delay += a.Dur("extra-delay", 0)
	default:
		if _, v := p.reg.verb(verb.text, true); v != nil {
			err = p.kindFault(ln, verb, pos, a, &act)
			return act, err
		}
		err = p.clientAction(ln, verb, toks, &act)
		return act, err
	}
	if err != nil {
		return act, err
	}
	return act, a.err()
}

func (p *parser) partition(ln line, pos []token, act *sim.Action) error {
	const usage = "partition A,B | C,D (both ways) or partition A,B -> C,D (one way)"
	if len(pos) != 3 || (pos[1].text != "|" && pos[1].text != "->") {
		return p.errAt(ln, len(ln.toks), "partition needs two sides", "write "+usage)
	}
	act.Kind, act.OneWay = sim.ActPartition, pos[1].text == "->"
	side := func(t token) ([]sim.ProcID, error) {
		var ids []sim.ProcID
		for _, n := range strings.Split(t.text, ",") {
			id, err := p.proc(ln.num, token{text: n, col: t.col})
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	var err error
	if act.A, err = side(pos[0]); err != nil {
		return err
	}
	if act.B, err = side(pos[2]); err != nil {
		return err
	}
	for _, x := range act.A {
		if slices.Contains(act.B, x) {
			return p.err(ln.num, pos[2].col, p.s.procs[x].name+" is on both sides", "a process cannot be cut off from itself")
		}
	}
	return nil
}

// kindFault parses VERB PROC [args], a fault a kind declares (failover).
func (p *parser) kindFault(ln line, verb token, pos []token, a *Args, act *sim.Action) error {
	_, v := p.reg.verb(verb.text, true)
	if err := p.positional(ln, pos, 1, verb.text+" "+v.Usage); err != nil {
		return err
	}
	id, err := p.proc(ln.num, pos[0])
	if err != nil {
		return err
	}
	act.Kind, act.Proc = sim.ActCommand, id
	mine, ok := p.s.procs[id].kind.verb(verb.text, true)
	if !ok {
		return p.err(ln.num, pos[0].col, pos[0].text+" is not "+v.Who, v.Only)
	}
	a.p, a.ln, a.self, a.usage = p, ln, pos[0].text, verb.text+" "+v.Usage
	act.Msg = mine.Parse(a)
	return a.err()
}

// clientAction parses PROC VERB ...: a command to a client.
func (p *parser) clientAction(ln line, who token, toks []token, act *sim.Action) error {
	id, ok := p.ids[who.text]
	if !ok {
		hint := "actions are: " + strings.Join(p.actionVerbs(), ", ") + ", or CLIENT " + strings.Join(p.reg.lockVerbs(), "|") +
			"; declared processes: " + listed(p.s.ProcNames())
		if s := closest(who.text, append(p.actionVerbs(), p.s.ProcNames()...)); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		return p.err(ln.num, who.col, "unknown action or process "+quote(who.text), hint)
	}
	k := &p.s.procs[id].kind
	if k.Decl != DeclClient {
		return p.err(ln.num, who.col, who.text+" is not a client", "only clients take commands: "+p.reg.commandsHint())
	}
	if len(toks) < 2 {
		return p.errAt(ln, len(ln.toks), "missing the client's command", "write "+who.text+" "+verbUsages(k.Verbs))
	}
	verb := toks[1]
	a, pos := newArgs(p.file, ln.num, verb.text, toks[2:])
	act.Kind, act.Proc = sim.ActCommand, id
	v, ok := k.verb(verb.text, false)
	if !ok {
		return p.notMyVerb(ln, who, verb, k)
	}
	a.p, a.ln, a.self, a.pos = p, ln, who.text, pos
	a.usage = strings.TrimSpace(who.text + " " + v.Name + " " + v.Usage)
	act.Msg = v.Parse(a)
	if a.early == nil && a.first == nil && (act.Msg.Op == "read" || act.Msg.Op == "write") && p.inTxn[act.Msg.Key] {
		if err := p.operatesInTxn(ln, who, id, &act.Msg); err != nil {
			return err
		}
	}
	if t, ok := a.unused(); ok && a.early == nil && a.first == nil {
		// An argument another kind's verb of the same name takes: say whose.
		if ks := p.reg.verbsTaking(v.Name, t.text); len(ks) > 0 {
			return p.err(ln.num, t.col, v.Name+" takes "+t.text+"= only for "+andList(ks)+" clients, and "+who.text+
				" is "+article(k.Name)+" "+k.Name+" client", v.Hint)
		}
	}
	return a.err()
}

// notMyVerb is the error for a command the client's kind does not take.
func (p *parser) notMyVerb(ln line, who, verb token, k *Kind) error {
	owner, v := p.reg.verb(verb.text, false)
	if k.Role != RoleClient && (owner == nil || owner.Role == RoleClient) {
		// A coordinator or a proposer takes its own verbs only.
		return p.err(ln.num, verb.col, who.text+" is a "+k.Name+": it takes no "+short(verb.text), "write "+who.text+" "+verbUsages(k.Verbs))
	}
	if v == nil {
		hint := "clients take: " + p.reg.commandsList()
		if s := closest(verb.text, p.reg.allVerbs()); s != "" {
			hint = "did you mean " + s + "? " + hint
		}
		return p.err(ln.num, verb.col, "unknown client command "+quote(verb.text), hint)
	}
	return p.err(ln.num, verb.col, who.text+" is not "+v.Who, v.Only)
}

// actionVerbs lists the actions a line may schedule: the faults any process
// suffers, then those the kinds declare.
func (p *parser) actionVerbs() []string {
	var vs []string
	for _, v := range fault.Verbs {
		if v != fault.VerbFailover || p.reg.IsFaultVerb(v) {
			vs = append(vs, v)
		}
	}
	for _, v := range p.reg.faultVerbs() {
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// verbUsages is how a kind's commands are written: "begin TXN", or "acquire
// LOCK, release [LOCK], read RESOURCE or write RESOURCE [update=NAME]".
func verbUsages(vs []Verb) string {
	us := make([]string, len(vs))
	for i, v := range vs {
		us[i] = strings.TrimSpace(v.Name + " " + v.Usage)
	}
	return andOr(us, " or ")
}

// andList joins names: "a", "a and b", "a, b and c".
func andList(ns []string) string { return andOr(ns, " and ") }

func andOr(ns []string, last string) string {
	if len(ns) < 2 {
		return strings.Join(ns, "")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + last + ns[len(ns)-1]
}
