// Package plantest runs plan snippets (testdata/<module>/*.star) in tests,
// against the embedded server, a private MariaDB and a private TiDB, and
// checks what each snippet's header expects:
//
//	# targets: embedded mariadb tidb (default: embedded mariadb)
//	# want-error: text the error message contains
//	# want-trace: text the backtrace contains
//
// A snippet without want-error must succeed; snippets assert with
// testdata/lib/assert.star.
package plantest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/sqltext"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/stdlib"
)

// Snippet is a plan file with its expectations.
type Snippet struct {
	Path      string
	Targets   []string
	WantError string
	WantTrace string
}

// ReadSnippet reads the header comments of a snippet.
func ReadSnippet(t testing.TB, path string) Snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := Snippet{Path: path, Targets: []string{"embedded", "mariadb"}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") {
			break
		}
		key, value, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "#")), ":")
		value = strings.TrimSpace(value)
		switch key {
		case "targets":
			s.Targets = strings.Fields(value)
		case "want-error":
			s.WantError = value
		case "want-trace":
			s.WantTrace = value
		}
	}
	return s
}

// MariaDBTarget makes a fresh database on the shared private MariaDB and
// returns a DSN for it and the password to redact.
func MariaDBTarget(t testing.TB, name string) (dsn, password string) {
	t.Helper()
	return freshDatabase(t, sandboxtest.Shared(t), name)
}

// TiDBTarget makes a fresh database on the shared private TiDB and
// returns a DSN for it and the password to redact.
func TiDBTarget(t testing.TB, name string) (dsn, password string) {
	t.Helper()
	return freshDatabase(t, sandboxtest.SharedTiDB(t), name)
}

func freshDatabase(t testing.TB, srv sandbox.Server, name string) (dsn, password string) {
	t.Helper()
	ctx := context.Background()
	admin, err := db.Open(ctx, srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	dbName := "s_" + strings.NewReplacer("-", "_", ".", "_", "/", "_").Replace(name)
	if len(dbName) > 64 {
		dbName = dbName[:64]
	}
	for _, q := range []string{"DROP DATABASE IF EXISTS " + sqltext.QuoteIdent(dbName), "CREATE DATABASE " + sqltext.QuoteIdent(dbName)} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cfg := srv.Config()
	cfg.DBName = dbName
	return cfg.FormatDSN(), srv.Password()
}

// Result is one evaluation.
type Result struct {
	Res    *runner.Result
	Err    error
	Stdout string
}

// Evaluate runs a plan against "embedded", "mariadb" or "tidb" (a fresh
// database on the shared server) or no target (""), with the given
// modules.
func Evaluate(t testing.TB, plan, target string, modules starlark.StringDict, opts runner.Options) Result {
	t.Helper()
	var out bytes.Buffer
	opts.PlanFile = plan
	opts.Predeclared = modules
	opts.Stdlib = stdlib.FS
	opts.Stdout, opts.Stderr = &out, &out
	if opts.OutDir == "" && !opts.DryRun {
		opts.OutDir = filepath.Join(t.TempDir(), "out")
	}
	switch target {
	case "embedded":
		opts.Targets = map[string]string{runner.DefaultTarget: "embedded"}
	case "mariadb", "tidb":
		fresh := MariaDBTarget
		if target == "tidb" {
			fresh = TiDBTarget
		}
		dsn, secret := fresh(t, t.Name())
		opts.Targets = map[string]string{runner.DefaultTarget: dsn}
		opts.Secrets = append(opts.Secrets, secret)
	}
	res, err := runner.Evaluate(context.Background(), opts)
	return Result{Res: res, Err: err, Stdout: out.String()}
}

// Backtrace formats an evaluation error with its Starlark frames.
func Backtrace(err error) string {
	var evalErr *starlark.EvalError
	if errors.As(err, &evalErr) {
		return evalErr.Backtrace()
	}
	return err.Error()
}

// RunSnippets evaluates every snippet matching glob on each of its targets.
func RunSnippets(t *testing.T, glob string, modules starlark.StringDict) {
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("no snippets match %s: %v", glob, err)
	}
	for _, path := range paths {
		s := ReadSnippet(t, path)
		for _, target := range s.Targets {
			t.Run(strings.TrimSuffix(filepath.Base(path), ".star")+"/"+target, func(t *testing.T) {
				r := Evaluate(t, path, target, modules, runner.Options{})
				Check(t, s, r)
			})
		}
	}
}

// Check fails the test when an evaluation does not meet the snippet's
// header: success, or the error and backtrace it wants.
func Check(t *testing.T, s Snippet, r Result) {
	t.Helper()
	if s.WantError == "" {
		if r.Err != nil {
			t.Fatalf("%s\noutput:\n%s", Backtrace(r.Err), r.Stdout)
		}
		return
	}
	if r.Err == nil {
		t.Fatalf("want error %q, the plan succeeded", s.WantError)
	}
	// Bad input a builtin refuses (exit 2) carries the plan position of
	// the call in its message instead of a backtrace.
	var usage *runner.UsageError
	if errors.As(r.Err, &usage) {
		if !strings.Contains(usage.Msg, s.WantError) || !strings.Contains(usage.Msg, s.WantTrace) {
			t.Errorf("usage error %q does not contain %q and %q", usage.Msg, s.WantError, s.WantTrace)
		}
		return
	}
	var evalErr *starlark.EvalError
	if !errors.As(r.Err, &evalErr) {
		t.Fatalf("want a Starlark error, got %T: %v", r.Err, r.Err)
	}
	if !strings.Contains(evalErr.Msg, s.WantError) {
		t.Errorf("error %q does not contain %q", evalErr.Msg, s.WantError)
	}
	if s.WantTrace != "" && !strings.Contains(evalErr.Backtrace(), s.WantTrace) {
		t.Errorf("backtrace lacks %q:\n%s", s.WantTrace, evalErr.Backtrace())
	}
}
