# starbench as a container image: the static binary alone, no shell, no libc
# (the image 'starbench k8s job' renders its pods with).
#
#   CGO_ENABLED=0 go build -trimpath -o starbench ./cmd/starbench
#   docker build -t registry.example.com/starbench:v1 .
#
# The binary needs nothing else: TestKubernetesJob runs it in an empty root directory.
FROM scratch
COPY starbench /starbench
ENTRYPOINT ["/starbench"]
