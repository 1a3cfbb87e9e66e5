package main

import (
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/runner"
	"github.com/starbench/starbench/stdlib"
)

func (a *app) docCommand() *cobra.Command {
	var markdown bool
	var dir string
	cmd := &cobra.Command{
		Use:   "doc [MODULE | FUNCTION | @stdlib | @stdlib//FILE.star | @NAME//FILE.star]",
		Short: "Print the reference of the plan language, the builtin modules, the standard library and shared modules",
		Long: `Doc prints the reference of what a plan can call, generated from the code: the language
builtins (params, param, main, load, print, ...) and each predeclared module. Give a module
name to see only that one (a standard library file's name, tidb, is @stdlib//tidb.star), or a
function's (tidb.set_global, conn.dsn, or its last part alone: set_global) to see it wherever
it is; --markdown prints Markdown (as in the README).

@stdlib lists the standard library's modules; @stdlib//FILE.star documents one, and
@NAME//FILE.star a shared module pinned in the starbench.mod of --dir (default: here), from
their docstrings: the module's, and each function's it exports with its parameters.`,
		Example: `  starbench doc
  starbench doc db
  starbench doc set_global
  starbench doc @stdlib//tidb.star
  starbench doc @team//matrix.star --dir plans/
  starbench doc --markdown > reference.md`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && strings.HasPrefix(args[0], "@") {
				return a.starlarkDoc(cmd, args[0], dir, markdown)
			}
			docs := allDocs()
			if len(args) == 1 {
				for _, d := range docs {
					if d.Name == args[0] {
						writeDoc(a.stdout, d, markdown)
						return nil
					}
				}
				if _, err := fs.Stat(stdlib.FS, args[0]+".star"); err == nil {
					return a.starlarkDoc(cmd, runner.StdlibPrefix+args[0]+".star", dir, markdown)
				}
				if found := findFuncs(append(docs, stdlibDocs()...), args[0]); len(found) > 0 {
					for i, d := range found {
						if i > 0 {
							fmt.Fprintln(a.stdout)
						}
						writeDoc(a.stdout, d, markdown)
					}
					return nil
				}
				var names []string
				for _, d := range docs {
					names = append(names, d.Name)
				}
				files, _ := fs.Glob(stdlib.FS, "*.star")
				return usagef("no module or function %q; modules: %s; standard library: %s (or @stdlib//FILE.star)",
					args[0], strings.Join(names, ", "), strings.Join(files, ", "))
			}
			for i, d := range docs {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				writeDoc(a.stdout, d, markdown)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print Markdown")
	cmd.Flags().StringVar(&dir, "dir", ".", "with @NAME//FILE.star: the folder whose starbench.mod pins NAME")
	return cmd
}

// starlarkDoc documents standard library modules (@stdlib, @stdlib//x.star)
// and pinned shared ones (@NAME//x.star) from their docstrings.
func (a *app) starlarkDoc(cmd *cobra.Command, module, dir string, markdown bool) error {
	var names []string
	read := func(name string) ([]byte, error) {
		return fs.ReadFile(stdlib.FS, strings.TrimPrefix(name, runner.StdlibPrefix))
	}
	switch {
	case module == "@stdlib":
		files, _ := fs.Glob(stdlib.FS, "*.star")
		for _, f := range files {
			names = append(names, runner.StdlibPrefix+f)
		}
	case strings.HasPrefix(module, runner.StdlibPrefix):
		names = []string{module}
	default:
		name, rel, ok := strings.Cut(strings.TrimPrefix(module, "@"), "//")
		if !ok {
			return usagef("doc %s: a shared module is named @NAME//path.star", module)
		}
		g := a.modGraph(cmd.Context(), dir)
		repo, err := g.Repo("", name)
		if err != nil {
			return usagef("%v", err)
		}
		read = func(string) ([]byte, error) { return g.Read(repo, rel) }
		names = []string{module}
	}
	for i, name := range names {
		src, err := read(name)
		if err != nil {
			if strings.HasPrefix(name, runner.StdlibPrefix) {
				files, _ := fs.Glob(stdlib.FS, "*.star")
				return usagef("no module %s in the standard library (it has %s)", name, strings.Join(files, ", "))
			}
			return usagef("%v", err)
		}
		d, err := runner.StarlarkDoc(name, src)
		if err != nil {
			return usagef("%v", err)
		}
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		writeDoc(a.stdout, d, markdown)
	}
	return nil
}

// stdlibDocs are the standard library's modules' docs (a file whose
// docstrings do not parse is left out: `doc @stdlib` reports it).
func stdlibDocs() []runner.ModuleDoc {
	var docs []runner.ModuleDoc
	files, _ := fs.Glob(stdlib.FS, "*.star")
	for _, f := range files {
		src, err := fs.ReadFile(stdlib.FS, f)
		if err != nil {
			continue
		}
		if d, err := runner.StarlarkDoc(runner.StdlibPrefix+f, src); err == nil {
			docs = append(docs, d)
		}
	}
	return docs
}

// findFuncs are the functions named name ("tidb.set_global", "conn.dsn")
// or whose last part is name ("set_global"), each under its module's name
// with the module's summary left out.
func findFuncs(docs []runner.ModuleDoc, name string) []runner.ModuleDoc {
	var out []runner.ModuleDoc
	for _, d := range docs {
		var funcs []runner.FuncDoc
		for _, f := range d.Funcs {
			called := f.Name
			if called == "" {
				called, _, _ = strings.Cut(f.Signature, "(")
			}
			if called == name || strings.HasSuffix(called, "."+name) {
				funcs = append(funcs, f)
			}
		}
		if len(funcs) > 0 {
			out = append(out, runner.ModuleDoc{Name: d.Name, Funcs: funcs, Verbatim: d.Verbatim})
		}
	}
	return out
}

func allDocs() []runner.ModuleDoc {
	docs := []runner.ModuleDoc{runner.LanguageDoc}
	for _, e := range builtins.Modules {
		docs = append(docs, e.Doc)
	}
	return docs
}

func writeDoc(w io.Writer, d runner.ModuleDoc, markdown bool) {
	if d.Verbatim {
		writeVerbatimDoc(w, d, markdown)
		return
	}
	if markdown {
		fmt.Fprintf(w, "### `%s`\n\n%s\n\n", d.Name, d.Summary)
		for _, f := range d.Funcs {
			fmt.Fprintf(w, "- `%s`: %s\n", f.Signature, f.Doc)
		}
		return
	}
	fmt.Fprintf(w, "%s\n%s\n%s\n", d.Name, strings.Repeat("=", len(d.Name)), wrap(d.Summary, 0))
	for _, f := range d.Funcs {
		fmt.Fprintf(w, "\n  %s\n%s\n", f.Signature, wrap(f.Doc, 6))
	}
}

// writeVerbatimDoc prints a .star module's docs as written.
func writeVerbatimDoc(w io.Writer, d runner.ModuleDoc, markdown bool) {
	if markdown {
		fmt.Fprintf(w, "### `%s`\n\n```\n%s\n```\n\n", d.Name, d.Summary)
		for _, f := range d.Funcs {
			fmt.Fprintf(w, "- `%s`\n\n```\n%s\n```\n\n", f.Signature, f.Doc)
		}
		return
	}
	fmt.Fprintf(w, "%s\n%s\n%s\n", d.Name, strings.Repeat("=", len(d.Name)), d.Summary)
	for _, f := range d.Funcs {
		fmt.Fprintf(w, "\n  %s\n", f.Signature)
		for _, line := range strings.Split(f.Doc, "\n") {
			fmt.Fprintln(w, strings.TrimRight("      "+line, " "))
		}
	}
}

// wrap breaks text into lines of at most 96 columns, indented.
func wrap(text string, indent int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && indent+len(line)+1+len(word) > 96 {
			lines = append(lines, strings.Repeat(" ", indent)+line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, strings.Repeat(" ", indent)+line)
	}
	return strings.Join(lines, "\n")
}
