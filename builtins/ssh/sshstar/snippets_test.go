package sshstar_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/local/localstar"
	"github.com/starbench/starbench/builtins/ssh/sshstar"
	"github.com/starbench/starbench/internal/testutil/plantest"
	"github.com/starbench/starbench/internal/testutil/sshtest"
	"github.com/starbench/starbench/runner"
)

// TestSnippets runs testdata/ssh/*.star with the ssh and local modules.
// Their headers are plantest's (targets, want-error, want-trace) and one
// more:
//
//	# hosts: N
//
// gives the snippet N private sshd servers of its own (sshtest.Start), as
// the parameters hosts (user@127.0.0.1:port), key_files and known_hosts,
// lists in the same order; a snippet with that header declares the three
// with params().
func TestSnippets(t *testing.T) {
	paths, err := filepath.Glob("../../../testdata/ssh/*.star")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no snippets in testdata/ssh: %v", err)
	}
	modules := starlark.StringDict{"ssh": sshstar.Module, "local": localstar.Module}
	for _, path := range paths {
		s := plantest.ReadSnippet(t, path)
		n := hostsWanted(t, path)
		for _, target := range s.Targets {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".star")+"/"+target, func(t *testing.T) {
				var opts runner.Options
				if n > 0 {
					var addrs, keys, known []string
					for i := 0; i < n; i++ {
						srv := sshtest.Start(t)
						addrs = append(addrs, srv.User+"@"+srv.Addr)
						keys = append(keys, srv.KeyFile)
						known = append(known, srv.KnownHosts)
					}
					opts.Params = []string{"hosts=" + strings.Join(addrs, ","), "key_files=" + strings.Join(keys, ","), "known_hosts=" + strings.Join(known, ",")}
				}
				plantest.Check(t, s, plantest.Evaluate(t, path, target, modules, opts))
			})
		}
	}
}

// hostsWanted reads the "# hosts: N" header line (0 without one).
func hostsWanted(t *testing.T, path string) int {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && strings.HasPrefix(sc.Text(), "#") {
		key, value, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(sc.Text(), "#")), ":")
		if key == "hosts" {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 1 {
				t.Fatalf("%s: header hosts: %q is not a number of hosts", path, value)
			}
			return n
		}
	}
	return 0
}
