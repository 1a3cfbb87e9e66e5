package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/starbench/starbench/internal/atomicfile"
	"github.com/starbench/starbench/runner/mods"
)

const modLong = `Mod manages the shared modules a folder's plans load with load("@NAME//path.star", ...).

starbench.mod, beside the plan, pins each NAME to a git repository and a commit; a tag or
branch given to 'mod add' is resolved to its commit once and written down with it. starbench.sum
holds the content hash of every pinned tree (the modules' own pins included). Trees are fetched
with git into a per-user cache ($STARBENCH_CACHE, default ~/.cache/starbench) and checked against
starbench.sum on every use; every results folder keeps a copy of each file a run loaded and says
in its manifest which repository, commit and hash it came from.

Nothing moves a pin but 'mod add' and 'mod update': a new commit in the repository changes
nothing until then. git runs with your own credentials (ssh agent, credential helper,
GIT_SSH_COMMAND); starbench stores none, and refuses a URL that carries one. Symbolic links
in a module's repository are not followed.

Exit codes: 0 ok, 2 bad input: an undeclared name, a repository git cannot reach, a commit that
does not exist, a tag that moved, a tree whose hash does not match, git missing.`

func (a *app) modCommand() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "mod add|update|verify|download",
		Short: "Pin, update and verify the shared modules plans load as @NAME//path.star",
		Long:  modLong,
		Example: `  starbench mod add team https://git.example.com/perf/shared.git@v1.2
  starbench mod add team ssh://git@git.example.com/perf/shared.git@main
  starbench mod update team
  starbench mod verify
  starbench mod download --dir plans/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown mod command %q (want add, update, verify or download)\nRun 'starbench mod --help' for usage.", args[0])
			}
			return usagef("mod needs a command: add, update, verify or download\nRun 'starbench mod --help' for usage.")
		},
		RunE: func(*cobra.Command, []string) error { return nil },
	}
	cmd.PersistentFlags().StringVar(&dir, "dir", ".", "the folder of the plans, where starbench.mod and starbench.sum are")
	cmd.AddCommand(
		&cobra.Command{
			Use:   "add NAME URL[@REF]",
			Short: "Pin a git repository as @NAME at a tag, branch or commit (default: its default branch)",
			Long: `Add resolves REF (a tag, a branch or a full commit id; default the repository's default
branch) to a commit, fetches that tree with its own pinned modules, and writes the pin to
starbench.mod and the trees' hashes to starbench.sum. Adding a name again replaces its pin.`,
			Args: cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error { return a.modAdd(cmd.Context(), dir, args[0], args[1]) },
		},
		&cobra.Command{
			Use:   "update [NAME]...",
			Short: "Move pins to the commit their tag or branch names now (all, or the NAMEs given)",
			RunE:  func(cmd *cobra.Command, args []string) error { return a.modUpdate(cmd.Context(), dir, args) },
		},
		&cobra.Command{
			Use:   "verify",
			Short: "Check every pinned tree (fetched if missing) against starbench.sum, and that no pinned tag moved",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return a.modVerify(cmd.Context(), dir) },
		},
		&cobra.Command{
			Use:   "download",
			Short: "Fetch every pinned tree into the cache (to run offline later), recording hashes starbench.sum lacks",
			Args:  cobra.NoArgs,
			RunE:  func(cmd *cobra.Command, args []string) error { return a.modDownload(cmd.Context(), dir) },
		},
	)
	return cmd
}

// modGraph is the resolver of the plans in dir, reading their
// starbench.mod and starbench.sum from disk.
func (a *app) modGraph(ctx context.Context, dir string) *mods.Graph {
	var g *mods.Graph
	read := func(name string) ([]byte, error) {
		if repo := mods.RepoOf(name); repo != "" {
			return g.Read(repo, strings.TrimPrefix(name, repo+"//"))
		}
		return os.ReadFile(name)
	}
	g = mods.NewGraph(ctx, dir, nil, read)
	g.Notify = func(note string) { fmt.Fprintln(a.stderr, "note: "+note) }
	return g
}

// readModFile reads dir's starbench.mod; a missing one is empty unless
// required.
func readModFile(dir string, required bool) (*mods.ModFile, error) {
	name := filepath.Join(dir, mods.ModFileName)
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) && !required {
		return &mods.ModFile{}, nil
	}
	if err != nil {
		return nil, usagef("%v (pin a module first: starbench mod add NAME URL[@REF])", err)
	}
	m, err := mods.ParseMod(name, data)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return m, nil
}

// splitURLRef splits URL@REF; an '@' before the URL's last '/' or ':' is
// the URL's own (user@host).
func splitURLRef(spec string) (url, ref string) {
	at := strings.LastIndex(spec, "@")
	if at > 0 && at > strings.LastIndexAny(spec, "/:") {
		return spec[:at], spec[at+1:]
	}
	return spec, ""
}

func (a *app) modAdd(ctx context.Context, dir, name, spec string) error {
	if err := mods.CheckName(name); err != nil {
		return usagef("%v", err)
	}
	url, ref := splitURLRef(spec)
	if url == "" {
		return usagef("mod add: no URL in %q", spec)
	}
	if err := mods.CheckURL(url); err != nil {
		return usagef("@%s: %v", name, err)
	}
	root, err := readModFile(dir, false)
	if err != nil {
		return err
	}
	commit, refName, err := mods.Resolve(ctx, url, ref)
	if err != nil {
		return usagef("%v", mods.ExplainFetch("@"+name, "the command line", err))
	}
	pin := mods.Pin{Name: name, URL: url, Commit: commit, Ref: refName}
	old, replaced := root.Lookup(name)
	root.Set(pin)
	if err := a.pinAll(ctx, dir, root); err != nil {
		return err
	}
	if replaced && old != pin {
		fmt.Fprintf(a.stdout, "@%s: was %s at %s (%s)\n", name, old.URL, old.RefLabel(), mods.ShortCommit(old.Commit))
	}
	fmt.Fprintf(a.stdout, "@%s: pinned %s at %s (commit %s) in %s\n", name, url, pin.RefLabel(), commit, filepath.Join(dir, mods.ModFileName))
	return nil
}

// pinAll fetches and verifies every pin of root (recording hashes the sum
// file lacks) and, when all is well, writes starbench.mod and
// starbench.sum.
func (a *app) pinAll(ctx context.Context, dir string, root *mods.ModFile) error {
	if err := root.Check(); err != nil {
		return usagef("%v", err)
	}
	g := a.modGraph(ctx, dir)
	g.SetRoot(root)
	g.AddMissingSums = true
	if err := g.LoadAll(); err != nil {
		return usagef("%v", err)
	}
	sum, err := g.Sum()
	if err != nil {
		return usagef("%v", err)
	}
	if err := writeFileAtomic(filepath.Join(dir, mods.ModFileName), root.Format()); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, mods.SumFileName), sum.Format()); err != nil {
		return err
	}
	for _, added := range g.Added {
		fmt.Fprintf(a.stdout, "%s: recorded %s\n", mods.SumFileName, added)
	}
	return nil
}

func (a *app) modUpdate(ctx context.Context, dir string, names []string) error {
	root, err := readModFile(dir, true)
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, ok := root.Lookup(strings.TrimPrefix(n, "@")); !ok {
			return usagef("mod update: @%s is not pinned in %s (it pins %s)", strings.TrimPrefix(n, "@"),
				filepath.Join(dir, mods.ModFileName), strings.Join(root.Names(), ", "))
		}
	}
	var report []string
	for _, pin := range root.Pins {
		if len(names) > 0 && !slices.Contains(names, pin.Name) && !slices.Contains(names, "@"+pin.Name) {
			continue
		}
		if pin.Ref == "" {
			report = append(report, fmt.Sprintf("@%s: pinned to commit %s, not to a tag or branch: nothing to follow ('starbench mod add %s %s@REF' pins another)",
				pin.Name, mods.ShortCommit(pin.Commit), pin.Name, pin.URL))
			continue
		}
		commit, _, err := mods.Resolve(ctx, pin.URL, pin.Ref)
		if err != nil {
			return usagef("%v", mods.ExplainFetch("@"+pin.Name, mods.ModFileName, err))
		}
		if commit == pin.Commit {
			report = append(report, fmt.Sprintf("@%s: %s is still at %s", pin.Name, pin.RefLabel(), mods.ShortCommit(commit)))
			continue
		}
		report = append(report, fmt.Sprintf("@%s: %s moved from %s to %s", pin.Name, pin.RefLabel(), mods.ShortCommit(pin.Commit), mods.ShortCommit(commit)))
		pin.Commit = commit
		root.Set(pin)
	}
	if err := a.pinAll(ctx, dir, root); err != nil {
		return err
	}
	for _, line := range report {
		fmt.Fprintln(a.stdout, line)
	}
	return nil
}

func (a *app) modVerify(ctx context.Context, dir string) error {
	if _, err := readModFile(dir, true); err != nil {
		return err
	}
	g := a.modGraph(ctx, dir)
	if err := g.LoadAll(); err != nil {
		return usagef("%v", err)
	}
	for _, r := range g.Used() {
		status := "ok"
		if err := g.CheckTag(r.Display); errors.Is(err, mods.ErrTagMoved) {
			return usagef("%v", err)
		} else if err != nil {
			status = "ok (whether the tag moved was not checked: " + err.Error() + ")"
		}
		fmt.Fprintf(a.stdout, "%s  %s at %s (%s)  %s  %s\n", r.Display, r.Pin.URL, r.Pin.RefLabel(), mods.ShortCommit(r.Pin.Commit), r.Hash, status)
	}
	if len(g.Used()) == 0 {
		fmt.Fprintf(a.stdout, "%s pins no modules\n", filepath.Join(dir, mods.ModFileName))
	}
	return nil
}

func (a *app) modDownload(ctx context.Context, dir string) error {
	if _, err := readModFile(dir, true); err != nil {
		return err
	}
	g := a.modGraph(ctx, dir)
	g.AddMissingSums = true
	if err := g.LoadAll(); err != nil {
		return usagef("%v", err)
	}
	if len(g.Added) > 0 {
		sum, err := g.Sum()
		if err != nil {
			return usagef("%v", err)
		}
		if err := writeFileAtomic(filepath.Join(dir, mods.SumFileName), sum.Format()); err != nil {
			return err
		}
		for _, added := range g.Added {
			fmt.Fprintf(a.stdout, "%s: recorded %s\n", mods.SumFileName, added)
		}
	}
	for _, r := range g.Used() {
		fmt.Fprintf(a.stdout, "%s  %s at %s (%s)  cached\n", r.Display, r.Pin.URL, r.Pin.RefLabel(), mods.ShortCommit(r.Pin.Commit))
	}
	return nil
}

// writeFileAtomic replaces name with data in one step; the mod and sum
// files are plain files a team commits beside its plans (0644).
func writeFileAtomic(name string, data []byte) error {
	if err := atomicfile.WriteFile(name, data); err != nil {
		return err
	}
	return os.Chmod(name, 0o644)
}
