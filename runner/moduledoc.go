package runner

import (
	"strings"

	"go.starlark.net/syntax"
)

// FuncDoc documents one builtin function or method for `starbench doc`.
type FuncDoc struct {
	Name      string // as called: "db.connect", "conn.exec"
	Signature string // "db.connect(dsn=None, database=None)"
	Doc       string // what it does, what it returns, its errors
}

// ModuleDoc documents a predeclared module.
type ModuleDoc struct {
	Name    string
	Summary string
	Funcs   []FuncDoc
	// Verbatim docs (a .star module's docstrings) keep their line breaks
	// and examples; the others are wrapped.
	Verbatim bool
}

// LanguageDoc documents what the runner itself gives every plan.
var LanguageDoc = ModuleDoc{
	Name: "plan",
	Summary: "What every plan has: params/param to declare parameters, main(p) as the entry point, load() for " +
		"shared modules, print(), and the predeclared builtin modules. Durations are strings with a unit " +
		"(\"300s\", \"5m\") or numbers of seconds everywhere.",
	Funcs: []FuncDoc{
		{Name: "params", Signature: "params(name=default, name=param(...), ...)",
			Doc: "Declares the plan's parameters, once, at the top level of the plan file. The type of each comes from its default " +
				"(int, float, bool, string, duration for strings like \"300s\", or a list of one of those) or from param(type=...). " +
				"`starbench run plan.star -p name=value` overrides a default; lists are given comma-separated (-p threads=1,2,4). " +
				"An unknown name or a value of the wrong type stops the run with exit code 2 and lists the valid parameters. " +
				"Returns the resolved parameters as a struct (the same value main receives)."},
		{Name: "param", Signature: "param(default=None, help=\"\", type=None)",
			Doc: "A parameter default with help text, for params(). type is one of int, float, bool, string, duration or list[...] " +
				"of them; it is needed when the default is None or an empty list."},
		{Name: "main", Signature: "def main(p): ...",
			Doc: "The plan's entry point, called once with the resolved parameters as a struct (p.threads, p.time, ...)."},
		{Name: "load", Signature: "load(\"@stdlib//helpers.star\", \"helpers\") / load(\"@team//matrix.star\", \"x\") / load(\"lib/common.star\", \"x\")",
			Doc: "Loads a module: @stdlib// names are served from the standard library built into starbench; @NAME// names " +
				"are shared modules, pinned to a git repository and commit in starbench.mod beside the plan ('starbench mod add " +
				"NAME URL[@REF]'), fetched into a per-user cache and checked against starbench.sum on every use; other names are " +
				"paths relative to the loading file (inside its repository for a shared module's file). A shared module's own " +
				"@NAME loads follow its repository's starbench.mod, except that the plan's pin of a repository wins. Each module " +
				"runs once per run; a load cycle is an error. Every loaded file is copied into the results folder and listed " +
				"with its sha256 in manifest.json, a shared module's with the repository, commit and tree hash it came from."},
		{Name: "struct", Signature: "struct(**fields)",
			Doc: "Makes an immutable value with the given attributes, e.g. to group a module's functions."},
		{Name: "json", Signature: "json.encode(x) / json.decode(s) / json.indent(s)",
			Doc: "The Starlark json module."},
		{Name: "math", Signature: "math.sqrt(x), math.floor(x), ...",
			Doc: "The Starlark math module."},
		{Name: "print", Signature: "print(*values, sep=\" \")",
			Doc: "Prints a line to standard output and to output.log in the results folder."},
		{Name: "save", Signature: "save(name, content)",
			Doc: "Writes content into the results folder as files/NAME (NAME a relative path such as \"tidb/topology.yaml\"; " +
				"passwords masked) and lists it in manifest.json's files with its step and sha256, so that a rerun can compare " +
				"what the plan recorded: topologies, server configurations. A step: a dry run lists it and writes nothing. " +
				"Returns the stored path."},
	},
}

// StarlarkDoc documents a .star module from its source, for `starbench
// doc @stdlib//x.star` and shared modules: the module's docstring and
// every function it exports with its parameters and docstring. A module
// exports its top-level functions whose names do not start with '_' and
// the members of a top-level NAME = struct(member = function, ...).
func StarlarkDoc(name string, src []byte) (ModuleDoc, error) {
	f, err := fileOptions.Parse(name, src, syntax.RetainComments)
	if err != nil {
		return ModuleDoc{}, err
	}
	doc := ModuleDoc{Name: name, Verbatim: true}
	if len(f.Stmts) > 0 {
		doc.Summary = docstring(f.Stmts[0])
	}
	defs := map[string]*syntax.DefStmt{}
	for _, st := range f.Stmts {
		if def, ok := st.(*syntax.DefStmt); ok {
			defs[def.Name.Name] = def
		}
	}
	lines := strings.Split(string(src), "\n")
	for _, st := range f.Stmts {
		switch st := st.(type) {
		case *syntax.DefStmt:
			if !strings.HasPrefix(st.Name.Name, "_") {
				doc.Funcs = append(doc.Funcs, defDoc(st.Name.Name, st, lines))
			}
		case *syntax.AssignStmt:
			doc.Funcs = append(doc.Funcs, structDocs(st, defs, lines)...)
		}
	}
	return doc, nil
}

// structDocs documents NAME = struct(member = function, ...).
func structDocs(st *syntax.AssignStmt, defs map[string]*syntax.DefStmt, lines []string) []FuncDoc {
	target, ok := st.LHS.(*syntax.Ident)
	call, isCall := st.RHS.(*syntax.CallExpr)
	if !ok || !isCall {
		return nil
	}
	if fn, ok := call.Fn.(*syntax.Ident); !ok || fn.Name != "struct" {
		return nil
	}
	var out []FuncDoc
	for _, arg := range call.Args {
		kw, ok := arg.(*syntax.BinaryExpr)
		if !ok || kw.Op != syntax.EQ {
			continue
		}
		member, _ := kw.X.(*syntax.Ident)
		value, _ := kw.Y.(*syntax.Ident)
		if member == nil || value == nil || defs[value.Name] == nil {
			continue
		}
		out = append(out, defDoc(target.Name+"."+member.Name, defs[value.Name], lines))
	}
	return out
}

// defDoc is a function's signature (its parameters as written) and
// docstring.
func defDoc(name string, def *syntax.DefStmt, lines []string) FuncDoc {
	params := make([]string, len(def.Params))
	for i, p := range def.Params {
		params[i] = sourceText(lines, p)
	}
	d := FuncDoc{Name: name, Signature: name + "(" + strings.Join(params, ", ") + ")"}
	if len(def.Body) > 0 {
		d.Doc = docstring(def.Body[0])
	}
	return d
}

// docstring is the string a module or function starts with, dedented.
func docstring(st syntax.Stmt) string {
	es, ok := st.(*syntax.ExprStmt)
	if !ok {
		return ""
	}
	lit, ok := es.X.(*syntax.Literal)
	if !ok || lit.Token != syntax.STRING {
		return ""
	}
	s, _ := lit.Value.(string)
	return dedent(s)
}

// dedent removes the indentation the lines after the first share.
func dedent(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	common := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if common < 0 || n < common {
			common = n
		}
	}
	for i := 1; i < len(lines) && common > 0; i++ {
		if len(lines[i]) >= common {
			lines[i] = lines[i][common:]
		} else {
			lines[i] = strings.TrimLeft(lines[i], " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// sourceText is the source of a one-line node (a parameter with its
// default), collapsed to one line when it spans several.
func sourceText(lines []string, n syntax.Node) string {
	start, end := n.Span()
	if int(start.Line) < 1 || int(end.Line) > len(lines) {
		return ""
	}
	var parts []string
	for l := start.Line; l <= end.Line; l++ {
		text := []rune(lines[l-1]) // columns count characters
		from, to := 0, len(text)
		if l == start.Line {
			from = min(int(start.Col)-1, len(text))
		}
		if l == end.Line {
			to = min(int(end.Col)-1, len(text))
		}
		if from < to {
			parts = append(parts, strings.TrimSpace(string(text[from:to])))
		}
	}
	return strings.Join(parts, " ")
}
