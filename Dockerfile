# toolkit's two images, built from the same source as the release binaries:
# - the admission webhook (the default target, the last stage below);
# - the CLI (`--target cli`, `cli/main.ts`), which the Tekton Task toolkit-image-sign runs.
# Both run as a non-root user on a read-only root filesystem (the webhook's pod and the Task's
# step set readOnlyRootFilesystem; nothing here writes outside the mounted volumes).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --loglevel=error
COPY deno.json mod.ts ./
COPY lib ./lib
COPY webhook ./webhook
COPY cli ./cli
RUN ./node_modules/.bin/deno compile --v8-flags=--max-semi-space-size=4 \
      --allow-net --allow-read --allow-env --allow-sys \
      --output /out/toolkit-webhook webhook/main.ts
# The permissions of the release binary (tools/compile.ts).
RUN ./node_modules/.bin/deno compile --allow-all --output /out/toolkit cli/main.ts

FROM gcr.io/distroless/cc-debian12:nonroot AS cli
COPY --from=build /out/toolkit /usr/local/bin/toolkit
USER 65532:65532
ENV NO_COLOR=1
ENTRYPOINT ["/usr/local/bin/toolkit"]

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/toolkit-webhook /usr/local/bin/toolkit-webhook
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/toolkit-webhook"]
CMD ["--port", "8443", "--tls-cert-file", "/etc/toolkit/tls/tls.crt", "--tls-key-file", "/etc/toolkit/tls/tls.key"]
