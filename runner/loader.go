package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/starbench/starbench/runner/mods"
	"github.com/starbench/starbench/runner/results"
)

// StdlibPrefix names modules served from the embedded standard library:
// load("@stdlib//tidb.star", "tidb").
const StdlibPrefix = "@stdlib//"

// fileOptions are the Starlark dialect plans are written in: while loops,
// recursion, sets and top-level if/for are allowed.
var fileOptions = &syntax.FileOptions{
	Set: true, While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true,
}

// loadedSource is a plan or module the run loaded: the manifest's entry
// and the content to copy into the results folder.
type loadedSource struct {
	*results.SourceFile
	data []byte
}

// loader serves load() with a cache; a module being loaded is marked in
// progress so that a cycle is an error instead of a hang.
type loader struct {
	stdlib  fs.FS
	planDir string
	cache   map[string]*loadEntry
	stack   []string // modules being loaded, outermost first
	sources []loadedSource
	predecl starlark.StringDict
	// stdlibPredecl is predecl and what only the standard library's
	// modules have (dry_run).
	stdlibPredecl starlark.StringDict
	onSource      func(loadedSource) error
	recorded      map[string][]byte // a recorded run's copies, by name: read instead of the files
	mods          *mods.Graph       // pinned shared modules (@NAME//path)
	// sealed, when set, names the bundle the run's files come from: a
	// plan file it lacks is an error, not read from disk.
	sealed string
}

type loadEntry struct {
	globals    starlark.StringDict
	err        error
	inProgress bool
}

// readSource reads a module by its canonical name.
func (l *loader) readSource(name string) ([]byte, error) {
	if data, ok := l.recorded[name]; ok {
		return data, nil
	}
	if rest, ok := strings.CutPrefix(name, StdlibPrefix); ok {
		if l.stdlib == nil {
			return nil, fmt.Errorf("no standard library is available")
		}
		data, err := fs.ReadFile(l.stdlib, rest)
		if err != nil {
			return nil, fmt.Errorf("%s: no such module in the standard library%s", name, l.stdlibList())
		}
		return data, nil
	}
	if l.sealed != "" {
		return nil, notInBundle(l.sealed, name)
	}
	if repo := mods.RepoOf(name); repo != "" {
		return l.mods.Read(repo, strings.TrimPrefix(name, repo+"//"))
	}
	return os.ReadFile(name)
}

// readRecording reads a file the run depends on without executing it
// (a starbench.mod or starbench.sum) and records it once, so that a rerun
// resolves modules as this run did.
func (l *loader) readRecording(name string) ([]byte, error) {
	data, err := l.readSource(name)
	if err != nil {
		return nil, err
	}
	for _, src := range l.sources {
		if src.Name == name {
			return data, nil
		}
	}
	return data, l.record(name, data)
}

func (l *loader) stdlibList() string {
	if l.stdlib == nil {
		return ""
	}
	names, _ := fs.Glob(l.stdlib, "*.star")
	if len(names) == 0 {
		return ""
	}
	return " (it has " + strings.Join(names, ", ") + ")"
}

// resolve turns a load() argument into a canonical module name: stdlib
// names stay as they are; @NAME//path becomes @REPO//path, REPO the
// repository NAME is pinned to in the loading file's scope; other names
// are paths relative to the loading file (inside its repository for a
// module's file).
func (l *loader) resolve(from, module string) (string, error) {
	if strings.HasPrefix(module, StdlibPrefix) {
		clean := path.Clean(strings.TrimPrefix(module, StdlibPrefix))
		if clean == "." || strings.HasPrefix(clean, "..") || path.IsAbs(clean) {
			return "", fmt.Errorf("invalid standard library module %q", module)
		}
		return StdlibPrefix + clean, nil
	}
	scope := mods.RepoOf(from)
	if rest, ok := strings.CutPrefix(module, "@"); ok {
		name, rel, ok := strings.Cut(rest, "//")
		if !ok || name == "" {
			return "", fmt.Errorf("%q: a shared module is named @NAME//path.star", module)
		}
		repo, err := l.mods.Repo(scope, name)
		if err != nil {
			return "", err
		}
		clean, err := mods.CleanPath("@"+name, rel)
		if err != nil {
			return "", err
		}
		return repo + "//" + clean, nil
	}
	if strings.HasPrefix(from, StdlibPrefix) {
		// Standard library modules load their siblings.
		return l.resolve("", StdlibPrefix+path.Join(path.Dir(strings.TrimPrefix(from, StdlibPrefix)), module))
	}
	if scope != "" {
		// A module's files load their siblings, inside the repository.
		dir := path.Dir(strings.TrimPrefix(from, scope+"//"))
		clean, err := mods.CleanPath(scope, path.Join(dir, module))
		if err != nil {
			return "", err
		}
		return scope + "//" + clean, nil
	}
	if filepath.IsAbs(module) {
		return filepath.Clean(module), nil
	}
	return filepath.Join(filepath.Dir(from), module), nil
}

// load executes a module (once) and returns its globals.
func (l *loader) load(thread *starlark.Thread, name string) (starlark.StringDict, error) {
	if e, ok := l.cache[name]; ok {
		if e.inProgress {
			return nil, fmt.Errorf("load cycle: %s -> %s", strings.Join(l.stack, " -> "), name)
		}
		return e.globals, e.err
	}
	e := &loadEntry{inProgress: true}
	l.cache[name] = e
	l.stack = append(l.stack, name)
	defer func() {
		l.stack = l.stack[:len(l.stack)-1]
		e.inProgress = false
	}()
	data, err := l.readSource(name)
	if err != nil {
		e.err = err
		return nil, err
	}
	if err := l.record(name, data); err != nil {
		e.err = err
		return nil, err
	}
	predecl := l.predecl
	if strings.HasPrefix(name, StdlibPrefix) && l.stdlibPredecl != nil {
		predecl = l.stdlibPredecl
	}
	_, prog, err := starlark.SourceProgramOptions(fileOptions, name, data, predecl.Has)
	if err != nil {
		e.err = err
		return nil, err
	}
	e.globals, e.err = prog.Init(thread, predecl)
	if e.globals != nil {
		e.globals.Freeze()
	}
	return e.globals, e.err
}

// record keeps a loaded file for the manifest and the results directory.
func (l *loader) record(name string, data []byte) error {
	sum := sha256.Sum256(data)
	src := loadedSource{&results.SourceFile{Name: name, Stored: l.storedName(name), SHA256: hex.EncodeToString(sum[:]), Bytes: len(data),
		Module: mods.RepoOf(name)}, data}
	l.sources = append(l.sources, src)
	if l.onSource != nil {
		return l.onSource(src)
	}
	return nil
}

// storedName is where a source's copy lives inside the results directory:
// sources/<path relative to the plan's folder>, sources/@stdlib/<name>,
// sources/@team/<path> for a pinned module's file.
func (l *loader) storedName(name string) string { return storedName(l.planDir, name) }

func storedName(planDir, name string) string {
	if rest, ok := strings.CutPrefix(name, StdlibPrefix); ok {
		return path.Join("sources", "@stdlib", rest)
	}
	if repo := mods.RepoOf(name); repo != "" {
		return path.Join("sources", repo, strings.TrimPrefix(name, repo+"//"))
	}
	rel, err := filepath.Rel(planDir, name)
	if err != nil {
		rel = filepath.Base(name)
	}
	rel = filepath.ToSlash(rel)
	rel = strings.ReplaceAll(rel, "../", "__up__/")
	return path.Join("sources", rel)
}

// loadFunc is the thread's Load hook: it resolves the module against the
// file whose load statement is executing.
func (l *loader) loadFunc(thread *starlark.Thread, module string) (starlark.StringDict, error) {
	from := ""
	if thread.CallStackDepth() > 0 {
		from = thread.CallFrame(0).Pos.Filename()
	}
	name, err := l.resolve(from, module)
	if err != nil {
		return nil, &PlanError{Err: err}
	}
	globals, err := l.load(thread, name)
	if err != nil {
		var planErr *PlanError
		if !errors.As(err, &planErr) {
			err = &PlanError{Err: err}
		}
		return nil, err
	}
	return globals, nil
}
