package runner

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/starbench/starbench/internal/atomicfile"
	"github.com/starbench/starbench/runner/mods"
	"github.com/starbench/starbench/runner/results"
)

// A bundle is one file that holds a plan and everything it loads, to run
// it elsewhere, offline: a zip archive of bundle.json (what it holds, with
// every file's sha256) and the files under sources/, laid out as in a
// results folder. Names are relative to the plan's folder, so a bundle
// runs from any directory.

// BundleManifestName is the bundle's table of contents.
const BundleManifestName = "bundle.json"

// BundleFormat is the version of the bundle layout this build writes.
const BundleFormat = 1

// BundleManifest is bundle.json.
type BundleManifest struct {
	Format    int                     `json:"format"`
	Tool      results.ToolInfo        `json:"tool"`
	Created   time.Time               `json:"created"`
	Plan      string                  `json:"plan"`
	Overrides []string                `json:"overrides,omitempty"` // the -p values chosen when it was made
	Seed      *int64                  `json:"seed,omitempty"`      // the --seed chosen, for 'starbench rerun BUNDLE'
	Sources   []*results.SourceFile   `json:"sources"`
	Modules   []*results.ModuleRecord `json:"modules,omitempty"`
}

// SourceCopy is a file a run loaded, with its content.
type SourceCopy struct {
	results.SourceFile
	Data []byte
}

// WriteBundle writes a bundle of what res (an evaluation, usually a dry
// run) loaded, with the parameters chosen and, when given, a seed.
func WriteBundle(file string, res *Result, overrides []string, seed *int64, toolVersion string) error {
	if res.Plan == "" || len(res.Sources) == 0 {
		return fmt.Errorf("nothing to bundle: the plan was not read")
	}
	planDir := filepath.Dir(res.Plan)
	bm := BundleManifest{Format: BundleFormat, Tool: results.Tool(toolVersion), Created: time.Now().UTC(),
		Plan: relocate(planDir, res.Plan), Overrides: overrides, Seed: seed, Modules: res.Modules}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	seen := map[string]bool{}
	for _, src := range res.Sources {
		name := relocate(planDir, src.Name)
		if seen[name] {
			continue
		}
		seen[name] = true
		entry := src.SourceFile
		entry.Name, entry.Stored = name, storedName(".", name)
		bm.Sources = append(bm.Sources, &entry)
		w, err := zw.Create(entry.Stored)
		if err != nil {
			return err
		}
		if _, err := w.Write(src.Data); err != nil {
			return err
		}
	}
	w, err := zw.Create(BundleManifestName)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(bm); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return atomicfile.WriteFile(file, buf.Bytes())
}

// relocate names a plan-relative file by its path relative to the plan's
// folder; standard library and shared module names stay.
func relocate(planDir, name string) string {
	if strings.HasPrefix(name, StdlibPrefix) || mods.RepoOf(name) != "" {
		return name
	}
	if rel, err := filepath.Rel(planDir, name); err == nil {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(name)
}

// IsBundle says whether path is a bundle file (a zip archive).
func IsBundle(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4)
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == "PK\x03\x04"
}

// IsResultsFolder says whether path is a folder with a manifest.json.
func IsResultsFolder(path string) bool {
	_, err := os.Stat(filepath.Join(path, results.ManifestFile))
	return err == nil
}

// ReadBundle reads a bundle, checking every file against its sha256 in
// bundle.json: an edited bundle is a *UsageError.
func ReadBundle(file string) (*Recorded, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, usageErrorf("%s is not a starbench bundle: %v", file, err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, usageErrorf("%s: %s: %v", file, f.Name, err)
		}
		content, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, usageErrorf("%s: %s: %v", file, f.Name, err)
		}
		files[f.Name] = content
	}
	var bm BundleManifest
	if err := json.Unmarshal(files[BundleManifestName], &bm); err != nil || bm.Plan == "" {
		return nil, usageErrorf("%s is not a starbench bundle (no readable %s)", file, BundleManifestName)
	}
	if bm.Format > BundleFormat {
		return nil, usageErrorf("%s is a bundle of format %d, made by starbench %s; this starbench reads format %d and older: use a newer starbench",
			file, bm.Format, bm.Tool.Version, BundleFormat)
	}
	for _, src := range bm.Sources {
		if src == nil || src.Name == "" || src.Stored == "" {
			return nil, usageErrorf("%s: %s lists a source without a name: the bundle was changed after it was made; make it again with 'starbench bundle'",
				file, BundleManifestName)
		}
	}
	for _, m := range bm.Modules {
		if m == nil {
			return nil, usageErrorf("%s: %s lists an empty module: the bundle was changed after it was made; make it again with 'starbench bundle'",
				file, BundleManifestName)
		}
	}
	sum := sha256.Sum256(data)
	rec := &Recorded{Dir: file, sources: map[string][]byte{}, sealed: true, bundleSHA256: hex.EncodeToString(sum[:]), bundleSeeded: bm.Seed != nil}
	rec.Manifest = results.Manifest{Tool: bm.Tool, Plan: bm.Plan, Sources: bm.Sources, Modules: bm.Modules, Overrides: bm.Overrides, Started: bm.Created}
	if bm.Seed != nil {
		rec.Manifest.Seed = *bm.Seed
	}
	listed := map[string]bool{BundleManifestName: true}
	for _, src := range bm.Sources {
		content, ok := files[src.Stored]
		listed[src.Stored] = true
		if !ok {
			return nil, usageErrorf("%s: %s (%s) is listed in %s but missing: the bundle was changed after it was made; make it again with 'starbench bundle'",
				file, src.Stored, src.Name, BundleManifestName)
		}
		got := sha256.Sum256(content)
		if hex.EncodeToString(got[:]) != src.SHA256 {
			return nil, usageErrorf("%s: %s does not match its sha256 in %s: the bundle was changed after it was made; make it again with 'starbench bundle'",
				file, src.Stored, BundleManifestName)
		}
		rec.sources[src.Name] = content
	}
	for name := range files {
		if !listed[name] {
			return nil, usageErrorf("%s: %s is not listed in %s: the bundle was changed after it was made; make it again with 'starbench bundle'",
				file, name, BundleManifestName)
		}
	}
	if _, ok := rec.sources[bm.Plan]; !ok {
		return nil, usageErrorf("%s: %s lists no copy of the plan %s", file, BundleManifestName, bm.Plan)
	}
	return rec, nil
}

// AsBundle makes a results folder's recorded plan runnable afresh as a
// bundle: names relative to the plan's folder, nothing read from disk.
func (rec *Recorded) AsBundle() *Recorded {
	planDir := filepath.Dir(rec.Manifest.Plan)
	out := *rec
	out.sources, out.sealed, out.Journal = map[string][]byte{}, true, nil
	out.Manifest.Plan = relocate(planDir, rec.Manifest.Plan)
	out.Manifest.Sources = nil
	for _, src := range rec.Manifest.Sources {
		s := *src
		s.Name = relocate(planDir, src.Name)
		if _, dup := out.sources[s.Name]; dup {
			continue
		}
		out.sources[s.Name] = rec.sources[src.Name]
		out.Manifest.Sources = append(out.Manifest.Sources, &s)
	}
	return &out
}

// notInBundle is the error for a plan file a sealed recording lacks; it
// is an fs.ErrNotExist, so an absent mod or sum file reads as none.
func notInBundle(rec string, name string) error { return &notInBundleError{name: name, bundle: rec} }

type notInBundleError struct{ name, bundle string }

func (e *notInBundleError) Error() string {
	name := e.name
	if mods.RepoOf(name) == "" && !strings.HasPrefix(name, StdlibPrefix) {
		name = path.Clean(filepath.ToSlash(name))
	}
	return fmt.Sprintf("%s is not in %s (it holds what a dry run of the plan read; a file read only on another path of the plan is missing): make the bundle with the parameters that take that path",
		name, e.bundle)
}

func (e *notInBundleError) Is(target error) bool { return target == fs.ErrNotExist }
