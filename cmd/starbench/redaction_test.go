package main

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins/db"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
)

// With the password sbtest (sysbench's user, database and table prefix),
// the password is masked where it stands as a value, in everything printed
// and stored, and names that hold it (sbtest1, other_db.sbtest1) stay
// readable in messages.
func TestRedactionKeepsNamesReadable(t *testing.T) {
	m := sandboxtest.Shared(t)
	ctx := context.Background()
	admin, err := db.Open(ctx, m.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{
		"DROP DATABASE IF EXISTS redaction", "CREATE DATABASE redaction",
		"DROP USER IF EXISTS 'bench'@'%'", "CREATE USER 'bench'@'%' IDENTIFIED BY 'sbtest'",
		"GRANT ALL ON redaction.* TO 'bench'@'%'", "GRANT SELECT, INSERT ON other_db.* TO 'bench'@'%'",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	out := outDir(t)
	dsn := "bench@tcp(" + m.Config().Addr + ")/redaction"
	r := starbench(t, []string{"MYSQL_PWD=sbtest"}, "run", "testdata/plans/redaction.star", "--out", out, "--target", dsn)
	expect(t, r, 1, "connected as bench:***@tcp(",
		"ANALYZE TABLE other_db.sbtest1", "Table 'other_db.sbtest1' doesn't exist")

	texts := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			texts[path] = string(data)
		}
		return nil
	})
	for _, f := range []string{"output.log", "journal.jsonl", "manifest.json"} {
		if _, ok := texts[filepath.Join(out, f)]; !ok {
			t.Errorf("results folder lacks %s", f)
		}
	}
	for name, text := range texts {
		// The only sbtest left is the table prefix.
		if rest := strings.ReplaceAll(text, "sbtest1", ""); strings.Contains(rest, "sbtest") {
			i := strings.Index(rest, "sbtest")
			t.Errorf("%s holds the password: ...%s...", name, rest[max(0, i-60):min(len(rest), i+60)])
		}
		if strings.Contains(text, "***1") {
			t.Errorf("%s garbles a table name: %s", name, text)
		}
	}
	if log := texts[filepath.Join(out, "output.log")]; !strings.Contains(log, "MYSQL_PWD=***") || !strings.Contains(log, "mysql -uroot -p***") {
		t.Errorf("output.log:\n%s", log)
	}
}
