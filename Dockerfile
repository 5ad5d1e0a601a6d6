# Multi-stage build of a static operator binary on a distroless, non-root base, for users with a
# registry. `make image` (hack/image) builds an equivalent image with no container engine and no
# pull: the same static binary at /broker-operator, USER 65532:65532, the same entrypoint, the
# nonroot passwd/group entries, Debian's CA bundle, and the labels below plus the git revision.
# It lacks what else distroless/static has: tzdata, /etc/nsswitch.conf, /etc/services and
# /etc/os-release, none of which the operator reads (it logs in UTC and resolves names with Go's
# own resolver).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY cmd/ cmd/
COPY internal/ internal/
COPY pkg/ pkg/
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X github.com/broker-operator/broker-operator/internal/version.Version=${VERSION}" \
      -o /out/broker-operator ./cmd/broker-operator

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="broker-operator" \
      org.opencontainers.image.description="Kubernetes operator that scales Redpanda broker clusters safely" \
      org.opencontainers.image.source="https://github.com/broker-operator/broker-operator" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=build /out/broker-operator /broker-operator
USER 65532:65532
ENTRYPOINT ["/broker-operator"]
