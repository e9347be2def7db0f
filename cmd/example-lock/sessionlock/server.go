package sessionlock

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// ServerConfig configures a lock server.
type ServerConfig struct {
	// Session is how long a grant lasts without a heartbeat (2 s when 0).
	Session time.Duration
	// RenewToken mints a new fencing token with every renewal, as a lock
	// record's version number does when each heartbeat bumps it: the holder
	// must then fence with the token of its latest renewal (sim.Belief.Renew).
	RenewToken bool
}

// DefaultSession is a session's length when the configuration leaves it 0.
const DefaultSession = 2 * time.Second

// DefaultServerConfig is a server's defaults, which its scenario kind starts from.
func DefaultServerConfig() ServerConfig { return ServerConfig{Session: DefaultSession} }

// Server grants each lock to one client at a time, for a session.
type Server struct {
	env    sim.Env
	cfg    ServerConfig
	token  int64         // the last fencing token minted (kept on disk)
	grace  time.Duration // after a restart: grant nothing before this monotonic reading
	locks  []string      // the locks seen, in order: lock i's session timer is TimerID(i+1)
	holder map[string]holder
}

// holder is who holds a lock, as which grant, with which token.
type holder struct {
	client sim.ProcID
	grant  string
	token  int64
}

// NewServer returns the constructor of a server with cfg, for sim.World.AddProcess.
func NewServer(cfg ServerConfig) func(sim.Env) sim.Process {
	if cfg.Session <= 0 {
		cfg.Session = DefaultSession
	}
	return func(env sim.Env) sim.Process { return &Server{env: env, cfg: cfg, holder: map[string]holder{}} }
}

// tutorial:begin server
// Step handles one input: a start or restart, a client's request, a session's end.
func (s *Server) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		if len(in.Disk) > 0 { // a restart, not the first start: tokens go on, and a grace period
			s.token = in.Disk[len(in.Disk)-1].Num(ArgToken)
			s.grace = now.Mono + s.cfg.Session
			out.Observe(sim.Note(s.env.ID, "%s restarts: last token %d; it grants nothing for %s, so that no holder it forgot is still working",
				s.env.Name, s.token, sim.FormatDuration(s.cfg.Session)))
		}
	case sim.InTimer:
		s.expire(out, s.locks[in.Timer-1])
	case sim.InMessage:
		s.handle(now, in.From, in.Msg, out)
	}
}

func (s *Server) handle(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	h, held := s.holder[m.Key]
	reply := sim.Message{Op: OpBusy, Key: m.Key, ID: m.ID}
	switch m.Op {
	case OpAcquire:
		if held || now.Mono < s.grace {
			break
		}
		// Mint the token and make it durable before anyone sees it: a token
		// minted twice would let an old holder's writes through.
		s.token++
		out.Write(sim.Message{Op: opToken}.With(ArgToken, s.token))
		out.Fsync()
		h = holder{client: from, grant: fmt.Sprintf("%s#%d", s.env.Names[from], s.token), token: s.token}
		s.holder[m.Key] = h
		s.grant(out, m.Key, h)
		reply = sim.Message{Op: OpGranted, Key: m.Key, Value: h.grant, ID: m.ID}.With(ArgToken, h.token).With(ArgSession, s.cfg.Session.Milliseconds())
	case OpKeepalive:
		reply = sim.Message{Op: OpExpired, Key: m.Key, Value: m.Value, ID: m.ID}
		if held && h.grant == m.Value {
			if s.cfg.RenewToken { // the record's next version: durable before anyone sees it, as on acquire
				s.token++
				out.Write(sim.Message{Op: opToken}.With(ArgToken, s.token))
				out.Fsync()
				h.token = s.token
				s.holder[m.Key] = h
			}
			s.grant(out, m.Key, h) // the same grant again: a renewal
			reply = sim.Message{Op: OpAlive, Key: m.Key, Value: m.Value, ID: m.ID}.With(ArgSession, s.cfg.Session.Milliseconds())
			if s.cfg.RenewToken {
				reply = reply.With(ArgToken, h.token)
			}
		}
		reply = reply.InBackground()
	case OpRelease:
		reply = sim.Message{Op: OpReleased, Key: m.Key, Value: m.Value, ID: m.ID}
		if held && h.grant == m.Value {
			s.end(out, m.Key, h, from, sim.ReasonReleased) // by the owner: this closes the promise
		}
	default:
		return
	}
	out.Send(from, reply)
}

// grant reports a grant (or its renewal) for a session from now and arms the
// session's timer on the server's monotonic clock.
func (s *Server) grant(out *sim.Outputs, lock string, h holder) {
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Client: h.client, By: sim.NoProc, Lock: lock, Service: s.env.Name,
		Grant: h.grant, Window: s.cfg.Session, Token: h.token, HasToken: true})
	out.SetTimer(s.timer(lock), s.cfg.Session)
}

// tutorial:end server

// expire ends a session that was not renewed in time.
func (s *Server) expire(out *sim.Outputs, lock string) {
	if h, ok := s.holder[lock]; ok {
		s.end(out, lock, h, s.env.ID, sim.ReasonExpired) // by the server's own clock
	}
}

// end withdraws h's grant of lock; by is who caused it.
func (s *Server) end(out *sim.Outputs, lock string, h holder, by sim.ProcID, reason string) {
	delete(s.holder, lock)
	out.CancelTimer(s.timer(lock))
	out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Client: h.client, By: by, Lock: lock, Service: s.env.Name,
		Grant: h.grant, Reason: reason})
}

// timer is lock's session timer.
func (s *Server) timer(lock string) sim.TimerID {
	i := slices.Index(s.locks, lock)
	if i < 0 {
		s.locks = append(s.locks, lock)
		i = len(s.locks) - 1
	}
	return sim.TimerID(i + 1)
}

// TimerName names a lock's session timer in the log.
func (s *Server) TimerName(id sim.TimerID) string {
	if int(id) <= len(s.locks) {
		return "session of " + s.locks[id-1]
	}
	return ""
}

// Describe is the server's state: who holds what, and the last token.
func (s *Server) Describe() string {
	var held []string
	for _, l := range s.locks {
		if h, ok := s.holder[l]; ok {
			held = append(held, fmt.Sprintf("%s held by %s", l, h.grant))
		}
	}
	if len(held) == 0 {
		held = append(held, "nothing held")
	}
	return fmt.Sprintf("%s; last token %d", strings.Join(held, ", "), s.token)
}
