package results

import (
	"encoding/json"
	"errors"
	"fmt"
)

// FormatVersion is the version of the results folder this build writes:
// manifest.json and every summary.json say it ("format": 5). Readers
// read every earlier version; a file of a later one is refused
// (NewerFormatError). The versions, with the commits that made them
// (testdata/results keeps a folder of each and lists the commits in its
// README):
//
//	1  manifest.json, journal.jsonl, output.log, sources/; steps/<id>-<label>/
//	   with summary.json, intervals.csv, latency.hlog (untagged interval
//	   histograms) and output.txt; a CLI run's folder is its step's folder
//	   with a manifest.json (0a9dfd1 .. 8098ae6^).
//	2  summaries' kinds and metrics (TPC-C), files/ and the manifest's
//	   files (save()) (8098ae6, 910a79f).
//	3  merged steps (bench.together, starbench merge): parts/<k>-<name>/
//	   and the summaries' interval_s, planned_s, segment and parts;
//	   latency.hlog adds tagged histograms, kind:NAME and service (9e905ca).
//	4  latency.hlog's timestamps count from its BaseTime, the whole second
//	   the step started in (340c228). Before, they counted from the step's
//	   start while BaseTime said the whole second: read as written they were
//	   up to 1 s early, and version 3's merges placed their intervals early
//	   by that much and lost their intervals.csv rows.
//	5  the format version in manifest.json and summary.json.
//
// Versions 1 to 4 carry no version and are read by what they contain: a
// missing field is zero, and a latency.hlog whose first interval begins at
// or before its timestamps' zero is one of versions 1 to 3, read so that
// its intervals land where they were (see hlogReader).
const FormatVersion = 5

// ErrNewerFormat marks a results folder written by a newer starbench, in a
// format version this build does not know (see NewerFormatError).
var ErrNewerFormat = errors.New("written by a newer starbench")

// NewerFormatError is a manifest or summary of a later format version
// than FormatVersion: this build cannot read it.
type NewerFormatError struct {
	Path   string // the file
	Tool   string // the starbench version that wrote it, when the file says
	Format int
}

func (e *NewerFormatError) Error() string {
	by := "a newer starbench"
	if e.Tool != "" {
		by = "starbench " + e.Tool
	}
	return fmt.Sprintf("%s was written by %s, format %d; this build reads up to format %d: update starbench",
		e.Path, by, e.Format, FormatVersion)
}

// Unwrap makes the error match ErrNewerFormat.
func (e *NewerFormatError) Unwrap() error { return ErrNewerFormat }

// formatHead is what a manifest or summary says of itself, read before
// the rest: a later version's fields may not fit this build's structs.
type formatHead struct {
	Format int `json:"format"`
	Tool   struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"tool"`
}

// headOf reads the format version (0: none, a folder of version 1 to 4)
// and the tool of a manifest or summary; fields of other types are left
// empty.
func headOf(data []byte) formatHead {
	var h formatHead
	_ = json.Unmarshal(data, &h) // a type mismatch leaves that field empty
	return h
}

// checkFormat refuses a file of a later format version.
func checkFormat(path string, h formatHead) error {
	if h.Format > FormatVersion {
		return &NewerFormatError{Path: path, Tool: h.Tool.Version, Format: h.Format}
	}
	return nil
}
