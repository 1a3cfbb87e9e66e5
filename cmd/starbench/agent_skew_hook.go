//go:build agenttest

package main

import (
	"os"
	"time"
)

// clockSkewEnv moves an agent's clock in a test build (go build -tags
// agenttest, as the tests build their binary): the agent's messages and
// its part's recorded start are on a clock off by that much, which the
// coordinator's measured offset must undo. The product binary has no such
// hook (agent_skew_none.go).
const clockSkewEnv = "STARBENCH_AGENT_CLOCK_SKEW"

func agentClockSkew() (time.Duration, error) {
	s := os.Getenv(clockSkewEnv)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, usagef("%s=%q: %v", clockSkewEnv, s, err)
	}
	return d, nil
}
