package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/builtins"
	"github.com/starbench/starbench/runner"
)

func (a *app) docCommand() *cobra.Command {
	var markdown bool
	cmd := &cobra.Command{
		Use:   "doc [MODULE]",
		Short: "Print the reference of the plan language and every builtin module",
		Long: `Doc prints the reference of what a plan can call, generated from the code: the language
builtins (params, param, main, load, print, ...) and each predeclared module. Give a module
name to see only that one; --markdown prints Markdown (as in the README).`,
		Example: `  starbench doc
  starbench doc db
  starbench doc --markdown > reference.md`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			docs := allDocs()
			if len(args) == 1 {
				for _, d := range docs {
					if d.Name == args[0] {
						writeDoc(a.stdout, d, markdown)
						return nil
					}
				}
				var names []string
				for _, d := range docs {
					names = append(names, d.Name)
				}
				return usagef("no module %q; modules: %s", args[0], strings.Join(names, ", "))
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
	return cmd
}

func allDocs() []runner.ModuleDoc {
	docs := []runner.ModuleDoc{runner.LanguageDoc}
	for _, e := range builtins.Modules {
		docs = append(docs, e.Doc)
	}
	return docs
}

func writeDoc(w io.Writer, d runner.ModuleDoc, markdown bool) {
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
