package runner

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
