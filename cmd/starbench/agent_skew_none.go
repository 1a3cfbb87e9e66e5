//go:build !agenttest

package main

import "time"

// agentClockSkew is no skew: only a test build (-tags agenttest) can move
// an agent's clock (agent_skew_hook.go).
func agentClockSkew() (time.Duration, error) { return 0, nil }
