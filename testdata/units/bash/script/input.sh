#!/bin/sh
# Deploys the site.
set -eu

. ./lib/common.sh
source "$HOME/.config/deploy.sh"

VERSION=1.2.3
target=${1:-prod}
export PATH="$PATH:/opt/bin"

# Prints a message to stderr.
# Usage: log MESSAGE
log() {
	echo "$*" >&2
}

function build {
	log "building $VERSION"
	make -C src all
}

deploy() (
	local host=$1
	rsync -a dist/ "$host:/srv/"
)

build
deploy "$target" || log "deploy failed"
