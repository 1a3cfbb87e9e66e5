package builtins_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/starbench/starbench/builtins"
)

// Every documented member of every module has a .star snippet test: a
// snippet in testdata/MODULE/ (the folder the module's TestSnippets runs)
// that calls it. The rule, for each Doc.Funcs name RECV.MEMBER:
//
//   - RECV is the module's name (db.connect, yaml.encode): a function of
//     the module, covered by a call `db.connect(`;
//   - any other RECV is the receiver word of a method of a value the
//     module returns (conn for db, host and group for ssh): covered by a
//     call `conn.exec(` in the module's folder, so snippets name their
//     handles after the receiver word the documentation uses.
//
// A member documented without parentheses (conn.dsn) is an attribute:
// covered by reading it, `conn.dsn` not followed by a name's character.
//
// A call counts when it is code, not a comment line, and RECV is a whole
// name (`myconn.exec(` does not count). Each module's folder must also be
// run by some test (a _test.go file naming testdata/MODULE/*.star).
func TestEveryMemberHasASnippet(t *testing.T) {
	root := filepath.Join("..", "testdata")
	testFiles := readTestFiles(t, "..")
	for _, e := range builtins.Modules {
		name := e.Module.Name
		paths, err := filepath.Glob(filepath.Join(root, name, "*.star"))
		if err != nil || len(paths) == 0 {
			t.Errorf("module %s: no snippets in testdata/%s/ (%v)", name, name, err)
			continue
		}
		if !strings.Contains(testFiles, "testdata/"+name+"/*.star") {
			t.Errorf("module %s: no test runs testdata/%s/*.star", name, name)
		}
		code := map[string]string{}
		for _, p := range paths {
			code[filepath.Base(p)] = withoutComments(t, p)
		}
		for _, f := range e.Doc.Funcs {
			recv, member, ok := strings.Cut(f.Name, ".")
			if !ok || recv == "" || member == "" {
				t.Errorf("module %s documents %q, not RECV.MEMBER", name, f.Name)
				continue
			}
			use := regexp.QuoteMeta(recv + "." + member + "(")
			if !strings.Contains(f.Signature, "(") {
				use = regexp.QuoteMeta(recv+"."+member) + `($|[^A-Za-z0-9_(])`
			}
			call := regexp.MustCompile(`(^|[^A-Za-z0-9_.])` + use)
			var in []string
			for file, src := range code {
				if call.MatchString(src) {
					in = append(in, file)
				}
			}
			sort.Strings(in)
			if len(in) == 0 {
				t.Errorf("%s has no snippet: no testdata/%s/*.star calls %s(...)", f.Name, name, f.Name)
			} else {
				t.Logf("%s: %s", f.Name, strings.Join(in, " "))
			}
		}
	}
}

// withoutComments is a snippet's text without its comment lines (the
// header, notes), so that naming a member there does not count as a call.
func withoutComments(t *testing.T, path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var code []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			code = append(code, line)
		}
	}
	return strings.Join(code, "\n")
}

// readTestFiles is the text of every _test.go file of the repository.
func readTestFiles(t *testing.T, root string) string {
	var all strings.Builder
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "results") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), "_test.go") {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			all.Write(data)
			all.WriteByte('\n')
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return all.String()
}
