package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// save() writes into files/ of the results folder, masks passwords, lists
// each file in the manifest (a second save of a name replaces it), and in
// a dry run only lists the step.
func TestSave(t *testing.T) {
	plan := map[string]string{"plan.star": `
def main(p):
    print(save("tidb/topology.yaml", "global:\n  user: tidb\n"))
    save("tidb/show-config.txt", "password: hunter2-secret\n")
    save("tidb/show-config.txt", "password: hunter2-secret\nsecond: 2\n")
`}
	r := evalPlan(t, plan, Options{Secrets: []string{"hunter2-secret"}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !strings.Contains(r.stdout, "files/tidb/topology.yaml\n") {
		t.Errorf("save returned: %s", r.stdout)
	}
	dir := r.res.Dir
	got, err := os.ReadFile(filepath.Join(dir, "files", "tidb", "show-config.txt"))
	if err != nil || string(got) != "password: ***\nsecond: 2\n" {
		t.Errorf("saved file: %q %v", got, err)
	}
	m := readManifest(t, dir)
	if len(m.Files) != 2 || m.Files[0].Stored != "files/tidb/topology.yaml" || m.Files[1].Step != "3" || m.Files[1].Bytes != len(got) || len(m.Files[1].SHA256) != 64 {
		t.Errorf("manifest files: %+v %+v", m.Files[0], m.Files[len(m.Files)-1])
	}

	dry := evalPlan(t, plan, Options{DryRun: true})
	if dry.err != nil {
		t.Fatal(dry.err)
	}
	if len(dry.res.Steps) != 3 || dry.res.Steps[0].Text != "files/tidb/topology.yaml" || dry.res.Dir != "" {
		t.Errorf("dry run: %+v, dir %q", dry.res.Steps, dry.res.Dir)
	}

	for _, bad := range []string{`"../x"`, `"/etc/x"`, `"a//b"`, `""`} {
		r := evalPlan(t, map[string]string{"plan.star": "def main(p):\n    save(" + bad + ", \"x\")\n"}, Options{})
		if r.err == nil || !strings.Contains(r.err.Error(), "save: name") {
			t.Errorf("save(%s): %v", bad, r.err)
		}
	}
}
