/**
 * Template pipelines and Tasks like the Cloud-Native Toolkit's (ibm-garage-tekton-tasks), at
 * `tekton.dev/v1`, for the `pipeline` end-to-end tests: one per runtime (with the
 * `app.openshift.io/runtime` and `builder` annotations), Tasks they share (`ibm-build` reports the
 * image it pushed, `IMAGE_URL` and `IMAGE_DIGEST`), one Task no pipeline uses, and an Argo CD
 * instance label that copies must drop.
 *
 * @module
 */

function task(
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
  results: string[] = [],
) {
  return {
    apiVersion: "tekton.dev/v1",
    kind: "Task",
    metadata: { name, namespace, labels },
    spec: {
      params: [{ name: "git-url", type: "string" }],
      ...(results.length > 0
        ? { results: results.map((r) => ({ name: r, type: "string", description: r })) }
        : {}),
      steps: [{ name: "run", image: "alpine:3", script: `echo ${name} $(params.git-url)` }],
    },
  };
}

function pipeline(
  namespace: string,
  name: string,
  annotations: Record<string, string>,
  tasks: string[],
) {
  return {
    apiVersion: "tekton.dev/v1",
    kind: "Pipeline",
    metadata: {
      name,
      namespace,
      annotations,
      labels: { "app.kubernetes.io/instance": "tools-pipelines" },
    },
    spec: {
      params: [
        { name: "git-url", type: "string" },
        { name: "git-revision", type: "string", default: "main" },
        { name: "scan-image", type: "string", default: "true", description: "Scan the image" },
        { name: "image-server", type: "string", default: "icr.io", description: "The registry" },
      ],
      // One after the other, as the Cloud-Native Toolkit's pipelines run them.
      tasks: tasks.map((t, i) => ({
        name: t,
        taskRef: { name: t },
        ...(i > 0 ? { runAfter: [tasks[i - 1]!] } : {}),
        params: [{ name: "git-url", value: "$(params.git-url)" }],
      })),
    },
  };
}

/** The template objects of namespace `namespace`. */
export function templateObjects(namespace: string): unknown[] {
  const runtime = (r: string, builder?: string) => ({
    "app.openshift.io/runtime": r,
    ...(builder ? { "app.openshift.io/builder": builder } : {}),
  });
  return [
    task(namespace, "ibm-setup", { "argocd.argoproj.io/instance": "tools" }),
    // The image it pushes, as Tekton's convention (and Chains) reads it.
    task(namespace, "ibm-build", {}, ["IMAGE_URL", "IMAGE_DIGEST"]),
    task(namespace, "ibm-maven-build"),
    task(namespace, "ibm-go-test"),
    task(namespace, "unused-task"),
    pipeline(namespace, "ibm-nodejs", runtime("nodejs"), ["ibm-setup", "ibm-build"]),
    pipeline(namespace, "ibm-java-maven", runtime("openjdk", "maven"), [
      "ibm-setup",
      "ibm-maven-build",
    ]),
    pipeline(namespace, "ibm-golang", runtime("golang"), ["ibm-setup", "ibm-go-test"]),
  ];
}
