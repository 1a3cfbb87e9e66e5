package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/runner/results"
)

// version is set at build time: -ldflags "-X main.version=v1.2.3".
var version = ""

// toolVersion is the release version, or the module version and VCS
// revision the binary was built from.
func toolVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := info.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	rev, dirty := results.VCS()
	modified := ""
	if dirty {
		modified = "+dirty"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && !strings.Contains(v, rev) { // Go's pseudo-versions hold it already
		v += "-" + rev + modified
	}
	return v
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print starbench's version, the commit it was built from and the binary's sha256 (manifests record them too)",
		Example: "  starbench version",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(a.stdout, "starbench %s (%s %s/%s)\n", toolVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			b := results.ThisBuild()
			switch {
			case b.Revision != "" && b.Modified:
				fmt.Fprintf(a.stdout, "commit:  %s, with changes not committed\n", b.Revision)
			case b.Revision != "":
				fmt.Fprintf(a.stdout, "commit:  %s\n", b.Revision)
			default:
				fmt.Fprintf(a.stdout, "commit:  not recorded (built by 'go run' or with -buildvcs=false; 'go build -buildvcs=true ./cmd/starbench' in a git checkout records it)\n")
			}
			if b.BinarySHA256 != "" {
				fmt.Fprintf(a.stdout, "binary:  sha256 %s\n", b.BinarySHA256)
			}
			return nil
		},
	}
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments\nRun '%s --help' for usage.", cmd.Name(), cmd.CommandPath())
	}
	return nil
}
