package scenarios

import (
	"testing"
)

const zsetBase = `# A sorted-set test scenario.
protocol zset
node r1 redis
client c1 zset-lock server=r1 mode=mutex
`

// Strict parsing of the zset-lock client (docs/scenario-language.md, "Errors"):
// every mistake names its position, what was expected, and a hint.
func TestParseZsetClientErrors(t *testing.T) {
	for _, tc := range []parseCase{
		{zsetBase + "client c2 zset-lock server=r1\n", "t.scn:5:1: client needs mode=", "mutex, bucket, state"},
		{zsetBase + "client c2 zset-lock server=r1 mode=queue\n", "t.scn:5:31: mode=queue is not a choice", "mutex, bucket, state"},
		{zsetBase + "client c2 zset-lock server=c1 mode=mutex\n", "t.scn:5:21: server=c1: c1 is not a redis process", "node NAME redis"},
		{zsetBase + "client c2 zset-lock server=r1 mode=bucket\n", "t.scn:5:1: a bucket client needs period=", "period=1h"},
		{zsetBase + "client c2 zset-lock server=r1 mode=bucket period=0\n", "t.scn:5:43: period must be more than 0", ""},
		{zsetBase + "client c2 zset-lock server=r1 mode=mutex period=1h\n", "t.scn:5:42: period= is only for mode=bucket", "no period="},
		{zsetBase + "client c2 zset-lock server=r1 mode=bucket period=1h reap-after=5s\n", "t.scn:5:53: reap-after= is only for mode=state", ""},
		{zsetBase + "client c2 zset-lock server=r1 mode=bucket period=1h retry=1s\n", "t.scn:5:53: a time-bucket worker never retries", "drop retry="},
		{zsetBase + "client c2 zset-lock server=r1 mode=state hold=soon\n", "t.scn:5:42: hold=soon is not a duration", "10s"},
		{zsetBase + "client c2 zset-lock server=r1 mode=state timeout=0\n", "t.scn:5:42: timeout must be more than 0", ""},
		{zsetBase + "client c2 zset-lock server=r1 mode=state key=\n", "t.scn:5:42: key= names no sorted set", ""},
		{zsetBase + "client c2 zset-lock server=r1 mode=state reap-afer=5s\n", "t.scn:5:42: unknown argument reap-afer for client", "did you mean reap-after=?"},
		{zsetBase + "at 1s c1 acquire L ttl=2s\n", "t.scn:5:20: acquire takes ttl= only for redis-lock and redlock clients", ""},
		{zsetBase + "client w1 zset-lock server=r1 mode=bucket period=1h hold=10m offset=40m\nat 1h w1 acquire J\n", "", ""},
	} {
		tc.check(t)
	}
}
