package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/starbench/starbench/internal/sandbox"
	"github.com/starbench/starbench/internal/testutil/sandboxtest"
	"github.com/starbench/starbench/runner/results"
)

// decodeStrict reads a YAML document into a Kubernetes API type, refusing
// fields the type does not have.
func decodeStrict(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Fatalf("a rendered manifest does not decode strictly: %v\n%s", err, doc)
	}
}

// emptyRoot is a root directory holding only the static binary (as the
// image's /starbench) and the results volume's mount point.
func emptyRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Link(binary, filepath.Join(root, "starbench")); err != nil {
		data, rerr := os.ReadFile(binary)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err := os.WriteFile(filepath.Join(root, "starbench"), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// inRoot runs a container's command in root as its only file system
// (chroot; in a user namespace when not root), with env.
func inRoot(root string, env []string, command []string) *exec.Cmd {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Path = command[0] // a path in root: the child chroots, then runs it
	cmd.Dir = "/"
	cmd.Env = env
	attr := &syscall.SysProcAttr{Chroot: root}
	if os.Geteuid() != 0 {
		attr.Cloneflags = syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	return cmd
}

// freeAddr is a loopback address no one listens on, for a barrier.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// runPods runs the Job's three pods' container c here, as the pods
// would (JOB_COMPLETION_INDEX and the Secret's MYSQL_PWD in the
// environment), the third 1.5 s late (a pod scheduled late: the barrier
// waits for it), and reports whether all succeeded.
func runPods(t *testing.T, root string, c corev1.Container, password string) bool {
	t.Helper()
	var wg sync.WaitGroup
	outputs := make([]bytes.Buffer, 3)
	for i := range 3 {
		if i == 2 {
			time.Sleep(1500 * time.Millisecond)
		}
		cmd := inRoot(root, []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i), "MYSQL_PWD=" + password}, append(c.Command, c.Args...))
		cmd.Stdout, cmd.Stderr = &outputs[i], &outputs[i]
		if err := cmd.Start(); err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil {
				t.Errorf("pod %d: %v\n%s", i, err, outputs[i].String())
			}
		}()
	}
	wg.Wait()
	return !t.Failed()
}

// The rendered Indexed Job decodes strictly with the Kubernetes API
// types; its pods' commands, run here as the pods would run them (the
// static binary alone in an empty root directory, JOB_COMPLETION_INDEX
// and the Secret's MYSQL_PWD in the environment, the volume at /results),
// meet at the first one's barrier, start together and write their
// segments; the merge Job's command merges them exactly.
func TestKubernetesJob(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	target := fmt.Sprintf("root@tcp(127.0.0.1:%d)/%s", m.Port, m.Database)
	expect(t, starbench(t, []string{"MYSQL_PWD=" + m.Password()}, "sysbench", "oltp_point_select", "--tables=1", "--table-size=1000", "--target", target, "prepare"), 0)
	barrier := freeAddr(t)

	flags := []string{"k8s", "job", "--name", "sb", "--image", "registry.example.com/starbench:test", "--parallelism", "3",
		"--results-claim", "bench-results", "--password-secret", "tidb:password", "--barrier", barrier, "--"}
	command := []string{"sysbench", "oltp_point_select", "--tables=1", "--table-size=1000", "--threads=6", "--time=3", "--report-interval=1",
		"--target", target, "run"}
	r := starbench(t, nil, append(flags, command...)...)
	expect(t, r, 0, "the segments share --rand-seed=")
	docs := strings.Split(r.stdout, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want a Service and a Job:\n%s", len(docs), r.stdout)
	}
	var svc corev1.Service
	var job batchv1.Job
	decodeStrict(t, docs[0], &svc)
	decodeStrict(t, docs[1], &job)
	spec := job.Spec
	pod := spec.Template.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" || spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion ||
		*spec.Completions != 3 || *spec.Parallelism != 3 || *spec.BackoffLimit != 0 || pod.RestartPolicy != corev1.RestartPolicyNever ||
		pod.Subdomain != "sb" || svc.Spec.ClusterIP != corev1.ClusterIPNone || svc.Name != "sb" || !svc.Spec.PublishNotReadyAddresses {
		t.Errorf("the Job or its Service:\n%s", r.stdout)
	}
	for k, v := range svc.Spec.Selector {
		if spec.Template.Labels[k] != v {
			t.Errorf("the Service selects %s=%s, the pods are %v", k, v, spec.Template.Labels)
		}
	}
	c := pod.Containers[0]
	if c.Image != "registry.example.com/starbench:test" || strings.Join(c.Command, " ") != "/starbench" || len(c.Env) != 1 ||
		c.Env[0].Name != "MYSQL_PWD" || c.Env[0].ValueFrom.SecretKeyRef.Name != "tidb" || c.Env[0].ValueFrom.SecretKeyRef.Key != "password" ||
		pod.Volumes[0].PersistentVolumeClaim.ClaimName != "bench-results" || c.VolumeMounts[0].MountPath != "/results" {
		t.Errorf("the pods' container: %+v", c)
	}
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--segment job/3 --out /results/sb --start-barrier "+barrier) || strings.Contains(args, m.Password()) {
		t.Errorf("the pods' arguments: %s", args)
	}
	r = starbench(t, nil, append(append(flags[:2], append([]string{"--merge"}, flags[2:]...)...), command...)...)
	expect(t, r, 0)
	var mergeJob batchv1.Job
	decodeStrict(t, r.stdout, &mergeJob)
	mergeArgs := mergeJob.Spec.Template.Spec.Containers[0].Args
	if strings.Join(mergeArgs, " ") != "merge /results/sb -o /results/sb-merged" || mergeJob.Name != "sb-merge" {
		t.Errorf("the merge Job: %s %v", mergeJob.Name, mergeArgs)
	}

	// The pods, here.
	root := emptyRoot(t)
	if !runPods(t, root, c, m.Password()) {
		return
	}
	merge := inRoot(root, nil, append(mergeJob.Spec.Template.Spec.Containers[0].Command, mergeArgs...))
	if out, err := merge.CombinedOutput(); err != nil || !strings.Contains(string(out), "merged 3 parts: 6 threads") {
		t.Fatalf("the merge Job's command: %v\n%s", err, out)
	}
	merged := readSummary(t, filepath.Join(root, "results", "sb-merged"))
	var events int64
	var starts []time.Time
	for i, p := range merged.Parts {
		s := readSummary(t, filepath.Join(root, "results", "sb-merged", p.Dir))
		events += s.Events
		starts = append(starts, s.Started)
		if s.Segment != fmt.Sprintf("%d/3", i+1) || s.Threads != 2 || p.Name != fmt.Sprintf("seg-%d", i+1) {
			t.Errorf("part %d: %s, segment %s, %d threads", i+1, p.Name, s.Segment, s.Threads)
		}
	}
	if len(merged.Parts) != 3 || merged.Events != events || events == 0 || merged.Status != results.StatusCompleted {
		t.Errorf("merged: %d parts, %d events (the parts' %d), %s", len(merged.Parts), merged.Events, events, merged.Status)
	}
	for _, s := range starts[1:] {
		if d := s.Sub(starts[0]).Abs(); d > 100*time.Millisecond {
			t.Errorf("the segments started %v apart: %v", d, starts)
		}
	}

	// Bad input: a password in the manifest, the Job's own options, no run.
	expect(t, starbench(t, nil, append(flags, "sysbench", "oltp_point_select", "--mysql-password=x", "run")...), 2, "--mysql-password puts the password in the manifest")
	expect(t, starbench(t, nil, append(flags, "sysbench", "oltp_point_select", "--target", "root:pw@tcp(db:4000)/sbtest", "run")...), 2, "holds a password", "root:***@")
	expect(t, starbench(t, nil, append(flags, "sysbench", "oltp_point_select", "--segment=1/2", "run")...), 2, "--segment is the Job's to set")
	expect(t, starbench(t, nil, append(flags, "sysbench", "oltp_point_select", "prepare")...), 2, "must end in run")
	expect(t, starbench(t, nil, append(flags, "nope", "run")...), 2, `"nope" is not a workload family's command`)
	// go-ycsb's command line has no segments: refused, naming the mix
	// family's command that runs YCSB's workloads from the pods, which
	// renders.
	expect(t, starbench(t, nil, append(flags, "ycsb", "run", "mysql", "-P", "workloadb", "run")...), 2, "'starbench ycsb' runs in one process", "-- mix @stdlib//ycsb.star --mix b")
	expect(t, starbench(t, nil, append(flags, "mix", "@stdlib//ycsb.star", "--mix", "b", "--threads", "6", "--time", "5m", "--target", "root@tcp(tidb:4000)/test", "run")...), 0, "@stdlib//ycsb.star", "--seed=")
	expect(t, starbench(t, nil, "sysbench", "oltp_point_select", "--rand-seed=1", "--segment=job/3", "run"), 2, "JOB_COMPLETION_INDEX, which a Kubernetes Indexed Job sets")
}

// A plan as a Job: its bundle in a ConfigMap, each pod running its
// segment of every benchmark step, meeting the others before each step;
// the merge Job's command merges the pods' results folders step by step.
func TestKubernetesJobPlan(t *testing.T) {
	m := sandboxtest.Fresh(t, sandbox.MariaDBOptions{})
	target := fmt.Sprintf("root@tcp(127.0.0.1:%d)/%s", m.Port, m.Database)
	expect(t, starbench(t, []string{"MYSQL_PWD=" + m.Password()}, "sysbench", "oltp_point_select", "--tables=1", "--table-size=1000", "--target", target, "prepare"), 0)
	plan := filepath.Join(t.TempDir(), "load.star")
	os.WriteFile(plan, []byte(`
params(threads = 3)
def main(p):
    conn = db.connect()
    sysbench.run(conn, "oltp_point_select", tables = 1, table_size = 1000, threads = p.threads, time = 2, report_interval = 1)
    bench.together([sysbench.part(conn, w, tables = 1, table_size = 1000, threads = 3, time = 2, report_interval = 1)
                    for w in ["oltp_read_only", "oltp_point_select"]])
`), 0o644)
	barrier := freeAddr(t)
	flags := []string{"k8s", "job", "--name", "pl", "--image", "img", "--parallelism", "3", "--results-claim", "r", "--barrier", barrier,
		"--password-secret", "tidb:password", "--"}
	r := starbench(t, nil, append(flags, plan, "-p", "threads=6", "--target", target)...)
	expect(t, r, 0, "the segments share --seed")
	docs := strings.Split(r.stdout, "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("%d documents, want a ConfigMap, a Service and a Job:\n%s", len(docs), r.stdout)
	}
	var cm corev1.ConfigMap
	var svc corev1.Service
	var job batchv1.Job
	decodeStrict(t, docs[0], &cm)
	decodeStrict(t, docs[1], &svc)
	decodeStrict(t, docs[2], &job)
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	args := strings.Join(c.Args, " ")
	if cm.Name != "pl-plan" || len(cm.BinaryData["plan.bundle"]) == 0 || pod.Volumes[1].ConfigMap.Name != "pl-plan" || c.VolumeMounts[1].MountPath != "/plan" ||
		!strings.HasPrefix(args, "run /plan/plan.bundle --target "+target+" --seed ") || !strings.Contains(args, "--segment job/3 --out /results/pl --start-barrier "+barrier) {
		t.Fatalf("the plan's ConfigMap or the pods' arguments: %s\n%s", args, r.stdout)
	}
	r = starbench(t, nil, append(append(flags[:2], append([]string{"--merge"}, flags[2:]...)...), plan)...)
	var mergeJob batchv1.Job
	decodeStrict(t, r.stdout, &mergeJob)

	root := emptyRoot(t)
	if err := os.Mkdir(filepath.Join(root, "plan"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "plan", "plan.bundle"), cm.BinaryData["plan.bundle"], 0o644); err != nil {
		t.Fatal(err)
	}
	if !runPods(t, root, c, m.Password()) {
		return
	}
	mc := mergeJob.Spec.Template.Spec.Containers[0]
	if out, err := inRoot(root, nil, append(mc.Command, mc.Args...)).CombinedOutput(); err != nil {
		t.Fatalf("the merge Job's command: %v\n%s", err, out)
	}
	merged := filepath.Join(root, "results", "pl-merged")
	steps := results.StepDirs(merged)
	if len(steps) != 2 {
		t.Fatalf("merged steps: %v", steps)
	}
	for k, dir := range steps {
		s := readSummary(t, dir)
		var events int64
		var starts []time.Time
		for i, p := range s.Parts {
			ps := readSummary(t, filepath.Join(dir, p.Dir))
			events += ps.Events
			starts = append(starts, ps.Started)
			if ps.Segment != fmt.Sprintf("%d/3", i+1) && k == 0 {
				t.Errorf("step %d, part %d: segment %q", k+1, i+1, ps.Segment)
			}
		}
		if len(s.Parts) != 3 || s.Threads != 6 || s.Events != events || events == 0 {
			t.Errorf("step %d (%s): %d parts, %d threads, %d events (the parts' %d)", k+1, filepath.Base(dir), len(s.Parts), s.Threads, s.Events, events)
		}
		for _, st := range starts[1:] {
			if d := st.Sub(starts[0]).Abs(); d > 100*time.Millisecond {
				t.Errorf("step %d: the segments started %v apart", k+1, d)
			}
		}
	}
}
