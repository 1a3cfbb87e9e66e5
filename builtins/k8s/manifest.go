package k8s

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Job is a load to run as a Kubernetes Indexed Job: Parallelism pods,
// each running its segment of the command (a family's command line, run
// by the image's starbench), meeting at a barrier the first pod serves
// (or starting at StartAt), writing their folders into one volume.
type Job struct {
	Name        string   // the Job's name, its Service's and its label's
	Namespace   string   // "" for the one kubectl uses
	Image       string   // an image with starbench at /starbench (the repository's Dockerfile)
	Parallelism int      // pods, and segments of the load
	Command     []string // the family's command line: sysbench ... run
	// ResultsClaim is the PersistentVolumeClaim the pods write into
	// (ReadWriteMany when the pods run on several nodes), mounted at
	// ResultsPath.
	ResultsClaim string
	ResultsPath  string // "" for /results
	// StartAt (RFC 3339), when set, starts every segment at that time;
	// otherwise they meet at the barrier on BarrierPort of the first pod.
	StartAt     string
	Barrier     string // the barrier's address, "" for the first pod's NAME-0.NAME:PORT
	BarrierPort int    // 0 for 7077
	// PasswordSecret (NAME:KEY), when set, gives the pods MYSQL_PWD from
	// that Secret: the password stays out of the manifest.
	PasswordSecret string
	// Bundle, when set, is a plan's bundle (starbench bundle): the pods
	// run it (`starbench run`, every benchmark step sliced, the barrier
	// met once a step) from a ConfigMap, Command holding run's other
	// arguments (-p, --target), Seed the seed they share.
	Bundle []byte
	Seed   int64
}

// MaxBundle is the largest bundle a ConfigMap holds here (the API server
// takes objects of up to 1 MiB).
const MaxBundle = 900 << 10

// planPath is where the pods see the bundle.
const planPath = "/plan"

// BundleFile is the bundle's name in the ConfigMap and the pods' folder.
const BundleFile = "plan.bundle"

// DefaultBarrierPort is the port the first pod serves the barrier on.
const DefaultBarrierPort = 7077

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (j *Job) check() error {
	switch {
	case !dnsLabel.MatchString(j.Name) || len(j.Name) > 50:
		return fmt.Errorf("--name %q: a Kubernetes name is lower-case letters, digits and '-', at most 50 here", j.Name)
	case j.Image == "":
		return fmt.Errorf("--image is needed: an image with starbench at /starbench (build it with the repository's Dockerfile)")
	case j.Parallelism < 1:
		return fmt.Errorf("--parallelism must be at least 1, got %d", j.Parallelism)
	case len(j.Command) == 0 && j.Bundle == nil:
		return fmt.Errorf("no command: give the family's command line after --, e.g. -- sysbench oltp_point_select ... run")
	case len(j.Bundle) > MaxBundle:
		return fmt.Errorf("the plan's bundle is %d KiB: a ConfigMap holds %d KiB at most", len(j.Bundle)>>10, MaxBundle>>10)
	case j.Bundle != nil && j.StartAt != "":
		return fmt.Errorf("--start-at starts one load: a plan's segments meet at the barrier before each of its steps")
	case j.ResultsClaim == "":
		return fmt.Errorf("--results-claim is needed: the PersistentVolumeClaim the pods write their folders into")
	}
	return nil
}

func (j *Job) resultsPath() string {
	if j.ResultsPath != "" {
		return j.ResultsPath
	}
	return "/results"
}

func (j *Job) port() int {
	if j.BarrierPort > 0 {
		return j.BarrierPort
	}
	return DefaultBarrierPort
}

func (j *Job) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/name": "starbench", "starbench.io/job": j.Name}
}

// Folder is where the pods' segment folders go (seg-1 ... seg-N) in the
// results volume, and Merged where the merge Job writes.
func (j *Job) Folder() string { return j.resultsPath() + "/" + j.Name }

// Merged is the merged folder the merge Job writes.
func (j *Job) Merged() string { return j.resultsPath() + "/" + j.Name + "-merged" }

// SegmentArgs are a pod's arguments to starbench: the command, its
// segment (job/N: the pod's index), its start and its folder.
func (j *Job) SegmentArgs() []string {
	var args []string
	if j.Bundle != nil {
		args = append([]string{"run", planPath + "/" + BundleFile}, j.Command...)
		args = append(args, "--seed", strconv.FormatInt(j.Seed, 10))
	} else {
		args = append(args, j.Command...)
	}
	args = append(args, "--segment", "job/"+strconv.Itoa(j.Parallelism), "--out", j.Folder())
	if j.StartAt != "" {
		return append(args, "--start-at", j.StartAt)
	}
	barrier := j.Barrier
	if barrier == "" {
		barrier = fmt.Sprintf("%s-0.%s:%d", j.Name, j.Name, j.port())
	}
	return append(args, "--start-barrier", barrier)
}

func (j *Job) meta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: j.Namespace, Labels: j.labels()}
}

func (j *Job) volume() ([]corev1.Volume, []corev1.VolumeMount) {
	return []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: j.ResultsClaim}}}},
		[]corev1.VolumeMount{{Name: "results", MountPath: j.resultsPath()}}
}

func (j *Job) env() ([]corev1.EnvVar, error) {
	if j.PasswordSecret == "" {
		return nil, nil
	}
	name, key, ok := bytes.Cut([]byte(j.PasswordSecret), []byte(":"))
	if !ok || len(name) == 0 || len(key) == 0 {
		return nil, fmt.Errorf("--password-secret %q: want SECRET:KEY", j.PasswordSecret)
	}
	return []corev1.EnvVar{{Name: "MYSQL_PWD", ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: string(name)}, Key: string(key)}}}}, nil
}

// Render writes the load's manifests as YAML documents: a headless
// Service that names the first pod for the barrier (none with StartAt),
// and the Indexed Job.
func Render(j Job) ([]byte, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	env, err := j.env()
	if err != nil {
		return nil, err
	}
	volumes, mounts := j.volume()
	n := int32(j.Parallelism)
	indexed := batchv1.IndexedCompletion
	backoff := int32(0) // a segment run again would run late: the merge refuses it
	container := corev1.Container{Name: "starbench", Image: j.Image, Command: []string{"/starbench"}, Args: j.SegmentArgs(),
		Env: env, VolumeMounts: mounts}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: j.meta(j.Name),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &n,
			Parallelism:    &n,
			BackoffLimit:   &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: j.labels()},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{container},
					Volumes:       volumes,
				},
			},
		},
	}
	var docs [][]byte
	if j.Bundle != nil {
		cm := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: j.meta(j.Name + "-plan"),
			BinaryData: map[string][]byte{BundleFile: j.Bundle},
		}
		doc, err := yaml.Marshal(cm)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
		pod := &job.Spec.Template.Spec
		pod.Volumes = append(pod.Volumes, corev1.Volume{Name: "plan", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: j.Name + "-plan"}}}})
		pod.Containers[0].VolumeMounts = append(pod.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "plan", MountPath: planPath, ReadOnly: true})
	}
	if j.StartAt == "" {
		job.Spec.Template.Spec.Subdomain = j.Name
		job.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "barrier", ContainerPort: int32(j.port())}}
		svc := &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: j.meta(j.Name),
			Spec: corev1.ServiceSpec{
				ClusterIP: corev1.ClusterIPNone,
				Selector:  j.labels(),
				Ports:     []corev1.ServicePort{{Name: "barrier", Port: int32(j.port())}},
				// The barrier is met before the pods are ready: their
				// names must resolve at once.
				PublishNotReadyAddresses: true,
			},
		}
		doc, err := yaml.Marshal(svc)
		if err != nil {
			return nil, err
		}
		docs = append(docs, doc)
	}
	doc, err := yaml.Marshal(job)
	if err != nil {
		return nil, err
	}
	docs = append(docs, doc)
	return bytes.Join(docs, []byte("---\n")), nil
}

// RenderMerge writes the Job that merges the pods' folders, to apply once
// the load's Job completed.
func RenderMerge(j Job) ([]byte, error) {
	if err := j.check(); err != nil {
		return nil, err
	}
	volumes, mounts := j.volume()
	one, backoff := int32(1), int32(0)
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: j.meta(j.Name + "-merge"),
		Spec: batchv1.JobSpec{
			Completions:  &one,
			BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app.kubernetes.io/name": "starbench", "starbench.io/merge": j.Name}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "merge", Image: j.Image, Command: []string{"/starbench"},
						Args: []string{"merge", j.Folder(), "-o", j.Merged()}, VolumeMounts: mounts}},
					Volumes: volumes,
				},
			},
		},
	}
	return yaml.Marshal(job)
}
