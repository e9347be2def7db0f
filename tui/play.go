package tui

import (
	"time"

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
