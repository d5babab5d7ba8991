# syntax=docker/dockerfile:1
ARG GO_VERSION=1.19

FROM golang:${GO_VERSION} AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOOS=linux
COPY . .
RUN go build -o /out/server \
    ./cmd/server

FROM gcr.io/distroless/static AS runtime
COPY --from=build /out/server /server
EXPOSE 8080
ENTRYPOINT ["/server"]
