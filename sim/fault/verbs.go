package fault

// The scenario language's fault actions (`at 2s crash r1`): the verbs Text
// writes and the scenario parser reads. The parser reads the verbs of the
// failures any process can suffer; Failover is a fault a kind declares (a Redis
// replica's promotion), which the parser finds in its registry of kinds.
const (
	VerbCrash      = "crash"
	VerbPowerLoss  = "power-loss"
	VerbShutdown   = "shutdown"
	VerbRestart    = "restart"
	VerbPause      = "pause"
	VerbResume     = "resume"
	VerbClockJump  = "clock-jump"
	VerbClockDrift = "clock-drift"
	VerbPartition  = "partition"
	VerbHeal       = "heal"
	VerbLink       = "link"
	VerbFailover   = "failover"
)

// Verbs lists every fault verb, in the order the scenario language's
// documentation gives them.
var Verbs = []string{VerbCrash, VerbPowerLoss, VerbShutdown, VerbRestart, VerbPause, VerbResume,
	VerbClockJump, VerbClockDrift, VerbPartition, VerbHeal, VerbLink, VerbFailover}
