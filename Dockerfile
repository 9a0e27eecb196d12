# The toolkit admission webhook, built from the same source as the release binaries.
# Runs as a non-root user on a read-only root filesystem (the pod sets readOnlyRootFilesystem;
# nothing here writes outside /tmp).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --loglevel=error
COPY deno.json mod.ts ./
COPY lib ./lib
COPY webhook ./webhook
RUN ./node_modules/.bin/deno compile --v8-flags=--max-semi-space-size=4 \
      --allow-net --allow-read --allow-env --allow-sys \
      --output /out/toolkit-webhook webhook/main.ts

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/toolkit-webhook /usr/local/bin/toolkit-webhook
USER 65532:65532
EXPOSE 8443
ENTRYPOINT ["/usr/local/bin/toolkit-webhook"]
CMD ["--port", "8443", "--tls-cert-file", "/etc/toolkit/tls/tls.crt", "--tls-key-file", "/etc/toolkit/tls/tls.key"]
