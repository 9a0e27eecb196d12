/**
 * Template pipelines and Tasks like the Cloud-Native Toolkit's (ibm-garage-tekton-tasks), at
 * `tekton.dev/v1`, for the `pipeline` end-to-end tests: one per runtime (with the
 * `app.openshift.io/runtime` and `builder` annotations), Tasks they share, one Task no pipeline
 * uses, and an Argo CD instance label that copies must drop.
 *
 * @module
 */

function task(namespace: string, name: string, labels: Record<string, string> = {}) {
  return {
    apiVersion: "tekton.dev/v1",
    kind: "Task",
    metadata: { name, namespace, labels },
    spec: {
      params: [{ name: "git-url", type: "string" }],
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
      tasks: tasks.map((t) => ({
        name: t,
        taskRef: { name: t },
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
    task(namespace, "ibm-build"),
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
