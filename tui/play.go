package tui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Speeds of play, slowest first.
var speeds = []time.Duration{2 * time.Second, time.Second, 500 * time.Millisecond, 250 * time.Millisecond,
	100 * time.Millisecond, 40 * time.Millisecond, 10 * time.Millisecond}

// player plays a run: the cursor moves one row (or line) per tick.
type player struct {
	playing bool
	gen     int // ticks of an earlier play are stale
	speed   int // index into speeds
}

type tickMsg struct{ gen int }

// toggle starts or stops play.
func (p *player) toggle() tea.Cmd {
	p.playing = !p.playing
	p.gen++
	if p.playing {
		return p.tick()
	}
	return nil
}

func (p player) tick() tea.Cmd {
	gen := p.gen
	return tea.Tick(speeds[p.speed], func(time.Time) tea.Msg { return tickMsg{gen} })
}

// due reports whether a tick belongs to the play under way.
func (p player) due(t tickMsg) bool { return p.playing && t.gen == p.gen }

func (p *player) faster() { p.speed = min(p.speed+1, len(speeds)-1) }
func (p *player) slower() { p.speed = max(p.speed-1, 0) }

// advance plays one tick on a screen whose cursor is at row cursor of rows: it
// moves the cursor one row on (with set) and asks for the next tick, or, at the
// last row, stops playing. due is false for a stale tick, which changes nothing
// and needs no redraw.
func (p *player) advance(t tickMsg, cursor, rows int, set func(int)) (cmd tea.Cmd, due bool) {
	if !p.due(t) {
		return nil, false
	}
	if cursor >= rows-1 {
		p.playing = false
		return nil, true
	}
	set(cursor + 1)
	return p.tick(), true
}

// key handles the player's own keys: play/pause, faster and slower. It reports
// whether msg was one of them.
func (p *player) key(msg tea.KeyPressMsg, k KeyMap) (cmd tea.Cmd, ok bool) {
	switch {
	case key.Matches(msg, k.Play):
		return p.toggle(), true
	case key.Matches(msg, k.Faster):
		p.faster()
	case key.Matches(msg, k.Slower):
		p.slower()
	default:
		return nil, false
	}
	return nil, true
}
