// Tekton Pipelines' own code for toolkit's tests: tests/env/provision.sh builds this program against
// github.com/tektoncd/pipeline at the version whose CRDs the test environment installs, and
// tests/env/tekton_pipeline.ts runs it. Nothing here re-implements Tekton: each mode calls the
// functions Tekton's webhook and controller call.
//
//	tekton-pipeline validate       < {"items": [objects]}
//	    Each Task or Pipeline (tekton.dev/v1 or v1beta1) decoded as Tekton's admission webhook
//	    decodes it (unknown fields refused), defaulted (SetDefaults) and validated (Validate)
//	    within a create, with the default feature flags. Prints [{apiVersion, kind, name, error}]
//	    ("" when valid).
//	tekton-pipeline pipeline-taskrun < {"pipeline", "pipelineRun", "pipelineTask", "results"}
//	    The TaskRun the PipelineRun reconciler makes for one pipeline task: the pipeline's params
//	    and context variables applied from the PipelineRun (ApplyParameters, ApplyContexts), the
//	    results of earlier tasks ({task: {result: value}}) applied (ApplyReplacements), the
//	    service account and pod template of the run (GetTaskRunSpec), the run's workspaces bound
//	    through the pipeline task's. Prints the TaskRun (tekton.dev/v1).
//	tekton-pipeline taskrun-pod    < {"task", "taskRun"}
//	    The Pod the TaskRun reconciler makes: the Task (v1, or v1beta1 converted) with the
//	    TaskRun's params, contexts, results, workspaces and credentials path applied as the
//	    reconciler applies them, built by Tekton's pod builder (the run's ServiceAccount from a
//	    fake clientset; steps must name their command, so no image is looked up). Prints the Pod.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/tektoncd/pipeline/pkg/apis/config"
	"github.com/tektoncd/pipeline/pkg/apis/pipeline"
	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"github.com/tektoncd/pipeline/pkg/apis/pipeline/v1beta1"
	podconvert "github.com/tektoncd/pipeline/pkg/pod"
	prresources "github.com/tektoncd/pipeline/pkg/reconciler/pipelinerun/resources"
	"github.com/tektoncd/pipeline/pkg/reconciler/taskrun/resources"
	"github.com/tektoncd/pipeline/pkg/workspace"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"knative.dev/pkg/apis"
)

// The images Tekton's controller is configured with (their names only end up in the Pod).
var images = pipeline.Images{
	EntrypointImage:        "ghcr.io/tektoncd/pipeline/entrypoint:test",
	SidecarLogResultsImage: "ghcr.io/tektoncd/pipeline/sidecarlogresults:test",
	NopImage:               "ghcr.io/tektoncd/pipeline/nop:test",
	ShellImage:             "cgr.dev/chainguard/busybox:test",
	ShellImageWin:          "mcr.microsoft.com/powershell:test",
	WorkingDirInitImage:    "ghcr.io/tektoncd/pipeline/workingdirinit:test",
}

func main() {
	if len(os.Args) != 2 {
		fail(2, "usage: tekton-pipeline validate|pipeline-taskrun|taskrun-pod < input.json")
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(2, "cannot read stdin: %v", err)
	}
	ctx := config.ToContext(context.Background(), config.FromContextOrDefaults(context.Background()))
	var output interface{}
	switch os.Args[1] {
	case "validate":
		output, err = validate(ctx, input)
	case "pipeline-taskrun":
		output, err = pipelineTaskRun(ctx, input)
	case "taskrun-pod":
		output, err = taskRunPod(ctx, input)
	default:
		fail(2, "unknown mode %q", os.Args[1])
	}
	if err != nil {
		fail(1, "%v", err)
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(output); err != nil {
		fail(1, "%v", err)
	}
}

func fail(code int, format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "tekton-pipeline: "+format+"\n", args...)
	os.Exit(code)
}

// strict decodes as Tekton's webhook does: unknown fields are an error.
func strict(data []byte, into interface{}) error {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.DisallowUnknownFields()
	return decoder.Decode(into)
}

type resource interface {
	apis.Defaultable
	apis.Validatable
}

type verdict struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Error      string `json:"error"`
}

func validate(ctx context.Context, input []byte) ([]verdict, error) {
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(input, &list); err != nil {
		return nil, fmt.Errorf("the input is not {\"items\": [...]}: %w", err)
	}
	verdicts := []verdict{}
	for _, raw := range list.Items {
		var head struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Metadata   metav1.ObjectMeta `json:"metadata"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, err
		}
		v := verdict{APIVersion: head.APIVersion, Kind: head.Kind, Name: head.Metadata.Name}
		var object resource
		switch head.APIVersion + "/" + head.Kind {
		case "tekton.dev/v1/Task":
			object = &v1.Task{}
		case "tekton.dev/v1/Pipeline":
			object = &v1.Pipeline{}
		case "tekton.dev/v1beta1/Task":
			object = &v1beta1.Task{}
		case "tekton.dev/v1beta1/Pipeline":
			object = &v1beta1.Pipeline{}
		default:
			v.Error = "not a Task or Pipeline of tekton.dev/v1 or v1beta1"
			verdicts = append(verdicts, v)
			continue
		}
		if err := strict(raw, object); err != nil {
			v.Error = fmt.Sprintf("cannot decode: %v", err)
		} else {
			within := apis.WithinCreate(ctx)
			object.SetDefaults(within)
			if ferr := object.Validate(within); ferr != nil {
				v.Error = ferr.Error()
			}
		}
		verdicts = append(verdicts, v)
	}
	return verdicts, nil
}

func pipelineTaskRun(ctx context.Context, input []byte) (*v1.TaskRun, error) {
	var in struct {
		Pipeline     v1.Pipeline                  `json:"pipeline"`
		PipelineRun  v1.PipelineRun               `json:"pipelineRun"`
		PipelineTask string                       `json:"pipelineTask"`
		Results      map[string]map[string]string `json:"results"`
	}
	if err := strict(input, &in); err != nil {
		return nil, err
	}
	pr := &in.PipelineRun
	pr.SetDefaults(ctx)
	spec := in.Pipeline.Spec.DeepCopy()
	spec.SetDefaults(ctx)
	// As the PipelineRun reconciler: params, then context variables, then the results of the
	// tasks that ran.
	spec = prresources.ApplyParameters(ctx, spec, pr)
	spec = prresources.ApplyContexts(spec, in.Pipeline.Name, pr)
	replacements := map[string]string{}
	for task, results := range in.Results {
		for name, value := range results {
			replacements[fmt.Sprintf("tasks.%s.results.%s", task, name)] = value
		}
	}
	spec = prresources.ApplyReplacements(spec, replacements, map[string][]string{}, map[string]map[string]string{})
	var pt *v1.PipelineTask
	for i := range spec.Tasks {
		if spec.Tasks[i].Name == in.PipelineTask {
			pt = &spec.Tasks[i]
		}
	}
	if pt == nil {
		return nil, fmt.Errorf("the pipeline has no task %q", in.PipelineTask)
	}
	runSpec := pr.GetTaskRunSpec(pt.Name)
	// The run's workspaces, bound through the pipeline task's.
	bound := map[string]v1.WorkspaceBinding{}
	for _, w := range pr.Spec.Workspaces {
		bound[w.Name] = w
	}
	var workspaces []v1.WorkspaceBinding
	for _, w := range pt.Workspaces {
		from := w.Workspace
		if from == "" {
			from = w.Name
		}
		if binding, ok := bound[from]; ok {
			binding.Name = w.Name
			binding.SubPath = w.SubPath
			workspaces = append(workspaces, binding)
		}
	}
	tr := &v1.TaskRun{
		TypeMeta: metav1.TypeMeta{APIVersion: "tekton.dev/v1", Kind: "TaskRun"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      pr.Name + "-" + pt.Name,
			Namespace: pr.Namespace,
			Labels: map[string]string{
				pipeline.PipelineLabelKey:     in.Pipeline.Name,
				pipeline.PipelineRunLabelKey:  pr.Name,
				pipeline.PipelineTaskLabelKey: pt.Name,
			},
		},
		Spec: v1.TaskRunSpec{
			Params:             pt.Params,
			TaskRef:            pt.TaskRef,
			ServiceAccountName: runSpec.ServiceAccountName,
			PodTemplate:        runSpec.PodTemplate,
			Workspaces:         workspaces,
		},
	}
	return tr, nil
}

func taskRunPod(ctx context.Context, input []byte) (*corev1.Pod, error) {
	var in struct {
		Task    json.RawMessage `json:"task"`
		TaskRun v1.TaskRun      `json:"taskRun"`
	}
	if err := strict(input, &in); err != nil {
		return nil, err
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(in.Task, &head); err != nil {
		return nil, err
	}
	task := &v1.Task{}
	switch head.APIVersion {
	case "tekton.dev/v1":
		if err := strict(in.Task, task); err != nil {
			return nil, err
		}
	case "tekton.dev/v1beta1":
		old := &v1beta1.Task{}
		if err := strict(in.Task, old); err != nil {
			return nil, err
		}
		if err := old.ConvertTo(ctx, task); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("the task is not tekton.dev/v1 or v1beta1")
	}
	task.SetDefaults(ctx)
	tr := &in.TaskRun
	tr.SetDefaults(ctx)
	if ferr := tr.Validate(apis.WithinCreate(ctx)); ferr != nil {
		return nil, fmt.Errorf("the TaskRun is not valid: %v", ferr)
	}
	if ferr := resources.ValidateParamArrayIndex(&task.Spec, tr.Spec.Params); ferr != nil {
		return nil, ferr
	}

	// As the TaskRun reconciler (applyParamsContextsResultsAndWorkspaces, then createPod).
	ts := task.Spec.DeepCopy()
	ts = resources.ApplyParameters(ts, tr, ts.Params...)
	ts = resources.ApplyContexts(ts, task.Name, tr)
	ts = resources.ApplyResults(ts)
	ts = resources.ApplyArtifacts(ts)
	ts = resources.ApplyStepExitCodePath(ts)
	volumes := workspace.CreateVolumes(tr.Spec.Workspaces)
	ts = resources.ApplyWorkspaces(ctx, ts, ts.Workspaces, tr.Spec.Workspaces, volumes)
	ts, err := workspace.Apply(ctx, *ts, tr.Spec.Workspaces, volumes)
	if err != nil {
		return nil, err
	}
	ts = resources.ApplyCredentialsPath(ts, pipeline.CredsDir)

	account := tr.Spec.ServiceAccountName
	if account == "" {
		account = config.DefaultServiceAccountValue
	}
	client := fake.NewSimpleClientset(&corev1.ServiceAccount{
		ObjectMeta: metav1.ObjectMeta{Name: account, Namespace: tr.Namespace},
	})
	builder := podconvert.Builder{Images: images, KubeClient: client}
	return builder.Build(ctx, tr, *ts)
}
