package scenarios

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// parser holds the state of one Parse call.
type parser struct {
	file string
	s    *Scenario
	ids  map[string]sim.ProcID
	seen map[string]int // one-off commands -> the line that gave them
}

type command struct {
	name  string
	usage string
	run   func(p *parser, ln line, a *args, pos []token) error
}

// commands is the language, in the order docs/scenario-language.md documents it.
var commands []command

func init() {
	commands = []command{
		{"protocol", "protocol NAME", (*parser).cmdProtocol},
		{"seed", "seed N", (*parser).cmdSeed},
		{"limit", "limit [events=N] [time=DUR] [queue=N]", (*parser).cmdLimit},
		{"bound", "bound DUR", (*parser).cmdBound},
		{"network", "network [delay=DUR] [jitter=DUR] [dist=fixed|uniform|exp] [loss=P] [dup=P] [reorder=P] [reorder-delay=DUR]", (*parser).cmdNetwork},
		{"link", "link A B|A -> B [delay=DUR] ...", (*parser).cmdLink},
		{"node", "node NAME KIND [args]", (*parser).cmdDecl},
		{"client", "client NAME KIND [args]", (*parser).cmdDecl},
		{"resource", "resource NAME [fencing=on|off]", (*parser).cmdDecl},
		{"at", "at TIME ACTION", (*parser).cmdAt},
		{"when", "when PROC EVENT [LOCK] [after=DUR] then ACTION", (*parser).cmdWhen},
		{"run", "run [until=TIME]", (*parser).cmdRun},
		{"expect", "expect verdict V | violated NAME | holds NAME | n/a NAME | metric NAME VALUE", (*parser).cmdExpect},
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

// Parse reads a scenario script. file names it in errors; its base name without the
// extension is the scenario's id.
func Parse(file, src string) (*Scenario, error) {
	lx, err := lex(file, src)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(path.Base(strings.ReplaceAll(file, "\\", "/")), path.Ext(file))
	s := &Scenario{ID: id, File: file, Source: src, Seed: 1, Limits: sim.DefaultLimits(), Bound: check.DefaultBound,
		net: sim.Link{Delay: time.Millisecond}}
	if len(lx.header) > 0 {
		s.Summary = lx.header[0]
		s.Teaching = joinParagraph(lx.header)
	}
	p := &parser{file: file, s: s, ids: map[string]sim.ProcID{}, seen: map[string]int{}}
	// First pass: the process names, so that any line may refer to any process.
	for _, ln := range lx.lines {
		c := ln.toks[0].text
		if c != "node" && c != "client" && c != "resource" {
			continue
		}
		if len(ln.toks) < 2 {
			return nil, p.errAt(ln, len(ln.toks)-1, c+" needs a name", "write "+c+" NAME ...")
		}
		name := ln.toks[1]
		if !nameRE.MatchString(name.text) {
			return nil, p.err(ln.num, name.col, "process name "+strconv.Quote(name.text)+" is not a name",
				"start with a letter; use letters, digits, - and _")
		}
		if _, dup := p.ids[name.text]; dup {
			return nil, p.err(ln.num, name.col, "process "+name.text+" is declared twice", "give each process its own name")
		}
		p.ids[name.text] = sim.ProcID(len(p.ids))
		d := procDecl{name: name.text, kind: kind{decl: c, name: c}}
		if c != "resource" {
			for _, t := range ln.toks[2:] { // the kind is the first word that is not key=value
				if !strings.Contains(t.text, "=") {
					d.kind.name = t.text
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
	if s.Protocol == "" {
		for _, d := range s.procs {
			if d.kind.protocol != "" {
				s.Protocol = d.kind.protocol
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
			if c.name == "at" || c.name == "when" {
				rest = nil // their action reads its own arguments
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
	return p.err(ln.num, name.col, "unknown command "+strconv.Quote(name.text), hint)
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
		return p.err(ln.num, pos[want].col, "unexpected "+strconv.Quote(pos[want].text), "write "+usage)
	}
	return nil
}

func (p *parser) proc(ln int, t token) (sim.ProcID, error) {
	if id, ok := p.ids[t.text]; ok {
		return id, nil
	}
	names := p.s.ProcNames()
	hint := "declared processes: " + strings.Join(names, ", ")
	if s := closest(t.text, names); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return 0, p.err(ln, t.col, "unknown process "+strconv.Quote(t.text), hint)
}

func (p *parser) duration(ln int, t token, what string) (time.Duration, error) {
	d, err := parseDuration(t.text)
	if err != nil || d < 0 {
		return 0, p.err(ln, t.col, strconv.Quote(t.text)+" is not "+what, "write a duration like 10s, 250ms or 1.5s")
	}
	return d, nil
}

func (p *parser) cmdProtocol(ln line, _ *args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 1, "protocol NAME"); err != nil {
		return err
	}
	ps := protocols()
	for _, n := range ps {
		if n == pos[0].text {
			p.s.Protocol = n
			return nil
		}
	}
	return p.err(ln.num, pos[0].col, "unknown protocol "+strconv.Quote(pos[0].text), "protocols are: "+strings.Join(ps, ", "))
}

func (p *parser) cmdSeed(ln line, _ *args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 1, "seed N"); err != nil {
		return err
	}
	n, err := strconv.ParseUint(pos[0].text, 10, 64)
	if err != nil {
		return p.err(ln.num, pos[0].col, strconv.Quote(pos[0].text)+" is not a seed", "a seed is a whole number from 0 up")
	}
	p.s.Seed = n
	return nil
}

func (p *parser) cmdLimit(ln line, a *args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, "limit [events=N] [time=DUR] [queue=N]"); err != nil {
		return err
	}
	l := &p.s.Limits
	l.MaxEvents = int(a.int("events", int64(l.MaxEvents), 1, 100_000_000))
	l.MaxTime = a.dur("time", l.MaxTime)
	l.MaxQueue = int(a.int("queue", int64(l.MaxQueue), 1, 100_000_000))
	if t, ok := a.kv["time"]; ok && (l.MaxTime <= 0 || l.MaxTime > sim.MaxRunTime) {
		a.fail(t.col, "time="+t.text+" is out of range", "a run lasts more than 0 and at most "+sim.MaxRunTime.String())
	}
	return nil
}

func (p *parser) cmdBound(ln line, _ *args, pos []token) error {
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
func (p *parser) linkArgs(a *args, base sim.Link) sim.Link {
	l := base
	l.Delay = a.dur("delay", l.Delay)
	l.Jitter = a.dur("jitter", l.Jitter)
	dist := l.Dist
	if l.Jitter > 0 && base.Jitter == 0 {
		dist = sim.DelayUniform
	}
	d, _ := sim.ParseDelayDist(a.oneOf("dist", dist.String(), "fixed", "uniform", "exp"))
	l.Dist = d
	l.Loss = a.prob("loss", l.Loss)
	l.Dup = a.prob("dup", l.Dup)
	l.Reorder = a.prob("reorder", l.Reorder)
	l.ReorderDelay = a.dur("reorder-delay", l.ReorderDelay)
	return l
}

func (p *parser) cmdNetwork(ln line, a *args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, commands[4].usage); err != nil {
		return err
	}
	p.s.net = p.linkArgs(a, p.s.net)
	return nil
}

func (p *parser) cmdLink(ln line, a *args, pos []token) error {
	const usage = "link A B [delay=DUR] ... (both ways) or link A -> B ... (one way)"
	oneWay := len(pos) == 3 && pos[1].text == "->"
	if oneWay {
		pos = []token{pos[0], pos[2]}
	}
	if err := p.positional(ln, pos, 2, usage); err != nil {
		return err
	}
	from, err := p.proc(ln.num, pos[0])
	if err != nil {
		return err
	}
	to, err := p.proc(ln.num, pos[1])
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

func (p *parser) cmdDecl(ln line, a *args, pos []token) error {
	decl := ln.toks[0].text
	id := p.ids[ln.toks[1].text]
	kindName := decl
	if decl != "resource" {
		if len(pos) < 2 {
			return p.errAt(ln, 2, decl+" needs a kind", decl+" kinds are: "+strings.Join(kindNames(decl), ", "))
		}
		kindName = pos[1].text
	}
	k, ok := findKind(decl, kindName)
	if !ok {
		return p.err(ln.num, pos[1].col, "unknown "+decl+" kind "+strconv.Quote(kindName),
			decl+" kinds are: "+strings.Join(kindNames(decl), ", "))
	}
	want := 2
	if decl == "resource" {
		want = 1
	}
	if err := p.positional(ln, pos, want, commandUsage(decl)); err != nil {
		return err
	}
	d := &p.s.procs[id]
	d.kind = k
	d.clock.Offset = a.signedDur("offset", 0)
	d.clock.DriftPPM = a.int("drift", 0, -sim.MaxDriftPPM, sim.MaxDriftPPM)
	var refErr error
	ref := func(key, wantKind string, many bool) []sim.ProcID {
		t, ok := a.required(key, "a declared "+wantKind+" process")
		if !ok {
			return []sim.ProcID{sim.NoProc}
		}
		names := []string{t.text}
		if many {
			names = strings.Split(t.text, ",")
		}
		var ids []sim.ProcID
		for _, n := range names {
			id, err := p.proc(ln.num, token{n, t.col})
			if err == nil && p.s.procs[id].kind.name != wantKind {
				err = p.err(ln.num, t.col, key+"="+t.text+": "+n+" is not "+article(wantKind)+" "+wantKind+" process",
					"declare one with: "+declOf(wantKind)+" NAME "+wantKind)
			}
			if err == nil && slices.Contains(ids, id) {
				err = p.err(ln.num, t.col, key+"="+t.text+" names "+n+" twice", "name each process once")
			}
			if err != nil && refErr == nil {
				refErr = err
			}
			ids = append(ids, id)
		}
		return ids
	}
	d.build = k.build(a, ref)
	for _, key := range []string{"ensemble", "cluster"} { // a replicated service lists its members, this one included
		if t, ok := a.kv[key]; ok && refErr == nil && !slices.Contains(strings.Split(t.text, ","), ln.toks[1].text) {
			refErr = p.err(ln.num, t.col, key+"="+t.text+" does not name "+ln.toks[1].text+" itself",
				"list every member, this one included, the same on every line: "+key+"="+ln.toks[1].text+",...")
		}
	}
	if t, ok := a.kv["peers"]; ok && refErr == nil && slices.Contains(strings.Split(t.text, ","), ln.toks[1].text) {
		refErr = p.err(ln.num, t.col, "peers="+t.text+" names "+ln.toks[1].text+" itself", "list the other participants only")
	}
	if t, ok := a.kv["acceptors"]; ok && refErr == nil {
		// Paxos counts a majority of the one set of acceptors: every proposer uses all.
		var all []string
		for _, d := range p.s.procs {
			if d.kind.name == "paxos-acceptor" {
				all = append(all, d.name)
			}
		}
		named := strings.Split(t.text, ",")
		if len(named) != len(all) {
			refErr = p.err(ln.num, t.col, "acceptors="+t.text+" is not every acceptor", "Paxos needs one set of acceptors, the same for every proposer: acceptors="+strings.Join(all, ","))
		}
	}
	if t, ok := a.kv["replica-of"]; ok && t.text == ln.toks[1].text && refErr == nil {
		refErr = p.err(ln.num, t.col, ln.toks[1].text+" cannot replicate itself", "name its master: replica-of=MASTER")
	}
	return refErr
}

// declOf is the declaring command of a kind (node, client or resource).
func declOf(kindName string) string {
	for _, k := range kinds {
		if k.name == kindName {
			return k.decl
		}
	}
	return "node"
}

// article is "an" before a vowel sound ("an etcd process"), else "a".
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

func (p *parser) cmdAt(ln line, _ *args, _ []token) error {
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
	p.s.steps = append(p.s.steps, step{at: at, action: act})
	return nil
}

var triggerEvents = []struct {
	word string
	kind sim.ObsKind
	decl string // who can report it
	doc  string
}{
	{"acquired", sim.ObsBeliefStart, "client", "PROC comes to believe it holds the lock"},
	{"released", sim.ObsBeliefEnd, "client", "PROC stops believing it holds the lock"},
	{"tries", sim.ObsAttempt, "client", "PROC starts trying to acquire the lock"},
	{"granted", sim.ObsGrant, "node", "the service PROC grants the lock"},
}

func (p *parser) cmdWhen(ln line, _ *args, _ []token) error {
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
	who, err := p.proc(ln.num, ln.toks[1])
	if err != nil {
		return err
	}
	ev := ln.toks[2]
	m := &sim.Match{Proc: who, Client: sim.NoProc}
	var words []string
	for _, te := range triggerEvents {
		words = append(words, te.word)
		if te.word != ev.text {
			continue
		}
		m.Kind = te.kind
		if d := p.s.procs[who].kind.decl; d != te.decl {
			return p.err(ln.num, ev.col, ln.toks[1].text+" is a "+d+": it is never "+te.word,
				"only a "+te.decl+" is "+te.word+" ("+te.doc+")")
		}
	}
	if m.Kind == 0 {
		return p.err(ln.num, ev.col, "unknown event "+strconv.Quote(ev.text), "events are: "+strings.Join(words, ", "))
	}
	var after time.Duration
	afterSeen := false
	for _, t := range ln.toks[3:then] {
		if v, ok := strings.CutPrefix(t.text, "after="); ok {
			if afterSeen {
				return p.err(ln.num, t.col, "argument after given twice", "keep one after=...")
			}
			afterSeen = true
			if after, err = p.duration(ln.num, token{v, t.col}, "a duration"); err != nil {
				return err
			}
			continue
		}
		if k, _, ok := strings.Cut(t.text, "="); ok {
			if k == "" {
				return p.err(ln.num, t.col, "unexpected "+strconv.Quote(t.text), "write "+usage)
			}
			hint := "when takes after=DUR before then"
			if s := closest(k, []string{"after"}); s != "" {
				hint = "did you mean after=? " + hint
			}
			return p.err(ln.num, t.col, "unknown argument "+k+" for when", hint)
		}
		if m.Lock != "" {
			return p.err(ln.num, t.col, "unexpected "+strconv.Quote(t.text), "write "+usage)
		}
		m.Lock = t.text
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

func (p *parser) cmdRun(ln line, a *args, pos []token) error {
	if err := p.once(ln); err != nil {
		return err
	}
	if err := p.positional(ln, pos, 0, "run [until=TIME]"); err != nil {
		return err
	}
	p.s.Until = a.dur("until", 0)
	if t, ok := a.kv["until"]; ok && p.s.Until == 0 && a.first == nil {
		a.fail(t.col, "until=0 ends the run before it starts", "write a time after 0, or run alone to run until nothing is left to happen")
	}
	return nil
}

func (p *parser) cmdExpect(ln line, _ *args, pos []token) error {
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
			return p.err(ln.num, name.col, "unknown verdict "+strconv.Quote(name.text), "verdicts are SAFE, UNSAFE and STUCK")
		}
	case "violated", "holds", "n/a":
		e.Kind = map[string]ExpectKind{"violated": ExpectViolated, "holds": ExpectHolds, "n/a": ExpectNA}[what.text]
		if !check.Known(name.text) {
			hint := "invariants are: " + strings.Join(check.Names(), ", ")
			if s := closest(name.text, check.Names()); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
			return p.err(ln.num, name.col, "unknown invariant "+strconv.Quote(name.text), hint)
		}
	case "metric":
		e.Kind = ExpectMetric
		want = 3
		if len(pos) < 3 {
			return p.errAt(ln, len(ln.toks), "expect metric needs a value", "write expect metric NAME VALUE, like expect metric validity_ms 9893")
		}
		v, err := strconv.ParseFloat(pos[2].text, 64)
		if err != nil {
			return p.err(ln.num, pos[2].col, strconv.Quote(pos[2].text)+" is not a number", "write a number like 9893 or 0.5")
		}
		e.Value = v
	default:
		return p.err(ln.num, what.col, "unknown expectation "+strconv.Quote(what.text), "write "+usage)
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
	act := sim.Action{Label: joinTokens(ln.toks), Narration: ln.narration, Line: ln.num, Proc: sim.NoProc}
	verb := toks[0]
	a, pos := newArgs(p.file, ln.num, verb.text, toks[1:])
	fault := func(k sim.ActionKind, usage string) error {
		if err := p.positional(ln, pos, 1, usage); err != nil {
			return err
		}
		id, err := p.proc(ln.num, pos[0])
		act.Kind, act.Proc = k, id
		return err
	}
	var err error
	switch verb.text {
	case "crash":
		err = fault(sim.ActCrash, "crash PROC")
	case "power-loss":
		err = fault(sim.ActPowerLoss, "power-loss PROC")
	case "shutdown":
		err = fault(sim.ActShutdown, "shutdown PROC")
	case "restart":
		err = fault(sim.ActRestart, "restart PROC [after=DUR]")
		act.Dur = a.dur("after", 0)
	case "pause":
		err = fault(sim.ActPause, "pause PROC [for=DUR]")
		act.Dur = a.dur("for", 0)
	case "resume":
		err = fault(sim.ActResume, "resume PROC")
	case "clock-jump", "clock-drift":
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
			if err != nil || act.Dur == 0 || act.Dur > maxOffset || act.Dur < -maxOffset {
				return act, p.err(ln.num, pos[1].col, strconv.Quote(pos[1].text)+" is not a clock jump",
					"write a signed duration like +15s or -2s")
			}
		} else {
			act.Kind = sim.ActDrift
			act.PPM, err = strconv.ParseInt(pos[1].text, 10, 64)
			if err != nil || act.PPM < -sim.MaxDriftPPM || act.PPM > sim.MaxDriftPPM {
				return act, p.err(ln.num, pos[1].col, strconv.Quote(pos[1].text)+" is not a drift",
					fmt.Sprintf("write parts per million from %d to %d, like 200", -sim.MaxDriftPPM, sim.MaxDriftPPM))
			}
		}
	case "partition":
		err = p.partition(ln, pos, &act)
	case "heal":
		err = p.positional(ln, pos, 0, "heal")
		act.Kind = sim.ActHeal
	case "link":
		// A link's behaviour from now on: the network's settings with these
		// changes (none: back to the network's settings).
		const usage = "link A B [loss=P] [dup=P] [delay=DUR] [extra-delay=DUR] ... (both ways) or link A -> B ... (one way)"
		act.Kind, act.OneWay = sim.ActLink, len(pos) == 3 && pos[1].text == "->"
		if act.OneWay {
			pos = []token{pos[0], pos[2]}
		}
		if err = p.positional(ln, pos, 2, usage); err != nil {
			break
		}
		var from, to sim.ProcID
		if from, err = p.proc(ln.num, pos[0]); err != nil {
			break
		}
		if to, err = p.proc(ln.num, pos[1]); err != nil {
			break
		}
		if from == to {
			err = p.err(ln.num, pos[1].col, "a link joins two processes", "name two different processes")
			break
		}
		// From the pair's declared settings (or the network's), changed as given;
		// extra-delay= adds to the delay.
		act.A, act.B, act.Link = []sim.ProcID{from}, []sim.ProcID{to}, p.linkArgs(a, p.s.declaredLink(from, to))
		act.Link.Delay += a.dur("extra-delay", 0)
	case "failover":
		// A failover promotes a replica: it is told REPLICAOF NO ONE.
		if err = fault(sim.ActCommand, "failover REPLICA"); err == nil && p.s.procs[act.Proc].kind.name != "redis" {
			err = p.err(ln.num, pos[0].col, pos[0].text+" is not a redis node", "failover promotes a replica: declare it with node NAME redis replica-of=MASTER")
		}
		act.Msg = sim.Message{Op: redis.CmdFailover}
	default:
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
			id, err := p.proc(ln.num, token{n, t.col})
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

// clientAction parses PROC VERB ...: a command to a client.
func (p *parser) clientAction(ln line, who token, toks []token, act *sim.Action) error {
	id, ok := p.ids[who.text]
	if !ok {
		hint := "actions are: crash, power-loss, shutdown, restart, pause, resume, clock-jump, clock-drift, partition, heal, link, failover, or CLIENT acquire|release|read|write"
		return p.err(ln.num, who.col, "unknown action or process "+strconv.Quote(who.text), hint)
	}
	if p.s.procs[id].kind.decl != "client" {
		return p.err(ln.num, who.col, who.text+" is not a client", "only clients take commands: acquire, release, read, write; begin (coordinators); propose (proposers)")
	}
	if len(toks) < 2 {
		return p.errAt(ln, len(ln.toks), "missing the client's command", "write "+who.text+" acquire LOCK, release, read RES or write RES")
	}
	verb := toks[1]
	a, pos := newArgs(p.file, ln.num, verb.text, toks[2:])
	act.Kind, act.Proc = sim.ActCommand, id
	if role := p.s.procs[id].kind.role; role != "client" && verb.text != "begin" && verb.text != "propose" {
		take := map[string]string{"coordinator": "begin TXN", "proposer": "propose [VALUE]"}[role]
		return p.err(ln.num, verb.col, who.text+" is a "+p.s.procs[id].kind.name+": it takes no "+verb.text, "write "+who.text+" "+take)
	}
	switch verb.text {
	case "acquire":
		if err := p.positional(ln, pos, 1, who.text+" acquire LOCK [ttl=DUR]"); err != nil {
			return err
		}
		if pos[0].text == "" {
			return p.err(ln.num, pos[0].col, "the lock has no name", "write "+who.text+" acquire L")
		}
		act.Msg = sim.Message{Op: verb.text, Key: pos[0].text}
		if t, ok := a.kv["ttl"]; ok && !slices.Contains([]string{"redis-lock", "redlock"}, p.s.procs[id].kind.name) {
			return p.err(ln.num, t.col, "acquire takes ttl= only for redis-lock and redlock clients, and "+who.text+
				" is "+article(p.s.procs[id].kind.name)+" "+p.s.procs[id].kind.name+" client", "set the lease where the client is declared: "+
				"ttl=5s for etcd-lock and db-lock (mode=lease) clients, session-timeout=4s for zk-lock clients")
		}
		if t, ok := a.kv["ttl"]; ok {
			d := a.dur("ttl", 0)
			if d < time.Millisecond && a.first == nil {
				a.fail(t.col, "ttl="+t.text+" is less than 1ms", "Redis TTLs are whole milliseconds")
			}
			act.Msg.Opts = "PX" // the TTL in milliseconds, as SET writes it
			act.Msg = act.Msg.WithN(int64(d / time.Millisecond))
		} else {
			a.allowed = append(a.allowed, "ttl")
		}
	case "extend":
		if p.s.procs[id].kind.name != "redlock" {
			return p.err(ln.num, verb.col, who.text+" is not a redlock client", "only redlock clients extend their lock")
		}
		act.Msg = sim.Message{Op: verb.text}
		if err := p.positional(ln, pos, 0, who.text+" extend"); err != nil {
			return err
		}
	case "begin", "propose":
		want := map[string]string{"begin": "coordinator", "propose": "proposer"}[verb.text]
		if p.s.procs[id].kind.role != want {
			return p.err(ln.num, verb.col, who.text+" is not a "+want, "only 2pc and 3pc coordinators begin a transaction; only paxos proposers propose")
		}
		usage := who.text + " begin TXN"
		if verb.text == "propose" {
			usage = who.text + " propose [VALUE]"
			if len(pos) == 0 {
				pos = append(pos, token{text: ""})
			}
		}
		if err := p.positional(ln, pos, 1, usage); err != nil {
			return err
		}
		act.Msg = sim.Message{Op: verb.text, Key: pos[0].text}
	case "update":
		if p.s.procs[id].kind.name != "db-lock" {
			return p.err(ln.num, verb.col, who.text+" is not a db-lock client", "only db-lock clients with mode=cas update a row")
		}
		if err := p.positional(ln, pos, 1, who.text+" update ROW"); err != nil {
			return err
		}
		act.Msg = sim.Message{Op: verb.text, Key: pos[0].text}
	case "release":
		if len(pos) > 1 {
			return p.err(ln.num, pos[1].col, "unexpected "+strconv.Quote(pos[1].text), "write "+who.text+" release [LOCK]")
		}
		act.Msg = sim.Message{Op: verb.text}
		if len(pos) == 1 {
			act.Msg.Key = pos[0].text
		}
	case "read", "write":
		usage := who.text + " read RESOURCE"
		if verb.text == "write" {
			usage = who.text + " write RESOURCE [update=NAME]"
		}
		if err := p.positional(ln, pos, 1, usage); err != nil {
			return err
		}
		var update string
		if verb.text == "write" {
			// The logical update this write is part of: writes to several
			// resources under one name are judged together (all-or-nothing).
			if t, ok := a.take("update"); ok {
				if !nameRE.MatchString(t.text) {
					return p.err(ln.num, t.col, "update="+t.text+" is not a name", "name the update like u1: start with a letter; use letters, digits, - and _")
				}
				update = t.text
			}
		}
		rid, err := p.proc(ln.num, pos[0])
		if err != nil {
			return err
		}
		if p.s.procs[rid].kind.decl != "resource" {
			return p.err(ln.num, pos[0].col, pos[0].text+" is not a resource", "declare it with resource "+pos[0].text)
		}
		act.Msg = sim.Message{Op: verb.text, Key: pos[0].text, Opts: sim.ResourceOpts("", update)}
	default:
		return p.err(ln.num, verb.col, "unknown client command "+strconv.Quote(verb.text),
			"clients take: acquire, release, read, write (and redlock clients: extend; db-lock clients: update; coordinators: begin; proposers: propose)")
	}
	return a.err()
}
