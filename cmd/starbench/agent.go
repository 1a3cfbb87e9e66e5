package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/builtins/agent"
)

func (a *app) agentCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "agent",
		Short: "Run one part of a step for a coordinator (started by starbench itself, over SSH or bound to CPUs)",
		Long: `starbench agent runs one part of a benchmark step for the starbench that started it (the
coordinator): a plan's part with client=HOST (or cpus=, numa_node=) starts it over the host's SSH
connection, after uploading the coordinator's own binary into the host's per-user cache
(${XDG_CACHE_HOME:-~/.cache}/starbench/agent/) when the host lacks it.

It speaks a versioned protocol of JSON lines on stdin and stdout: the part to run (with the
database passwords, which never appear on a command line), the planned start, and back its
text, live progress, every interval's histograms and at the end its step folder. It stops its
load and exits when its stdin closes, when it is told to stop, or when it hears nothing from the
coordinator for its watchdog's time (10s), so that no agent outlives its coordinator.

It is not meant to be run by hand.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			skew, err := agentClockSkew()
			if err != nil {
				return err
			}
			return agent.Serve(cmd.Context(), os.Stdin, a.stdout, agent.ServeOptions{
				Version: toolVersion(), Family: builtins.FamilyNamed, ClockSkew: skew,
			})
		},
	}
}
