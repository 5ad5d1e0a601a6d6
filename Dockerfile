# Multi-stage build of a static operator binary on a distroless, non-root base.
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
COPY --from=build /out/broker-operator /broker-operator
USER 65532:65532
ENTRYPOINT ["/broker-operator"]
