#!/usr/bin/env bash
# Proves the package is consumable as released: copies the checkout (HEAD plus any
# uncommitted changes to tracked files) into a temporary git repository, tags it 0.1.0
# (the version the consumer's manifest asks for), and builds and runs Tests/Consumer
# against it through `.package(url: "file://…", from: "0.1.0")` with a plain
# `swift build`, as a client would (no -Xcc flags: a version dependency must build with
# the package's own settings).
# Prints the consumer's checks and closes with `N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
tag=0.1.0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
say() { echo "consumer: $*" >&2; }
give_up() { say "$*"; echo "0 passed, 1 failed"; exit 1; }

# The working tree as a commit, without touching the checkout (git stash create, when
# tracked files changed). A fresh CI clone has no git identity: give one here.
git_id=(-c user.name=circadify-ci -c user.email=ci@circadify.invalid)
if git diff --quiet HEAD --; then
    rev=$(git rev-parse HEAD)
else
    rev=$(git "${git_id[@]}" stash create "consumer check") && [[ -n $rev ]] || give_up "git stash create failed"
fi
# Named circadify.git so the package's identity is `circadify`, as the consumer's manifest says.
remote="$work/circadify.git"
git init -q --bare "$remote" &&
    git push -q "$remote" "$rev:refs/heads/main" &&
    git -C "$remote" "${git_id[@]}" tag -a "$tag" -m "Circadify $tag" main ||
    give_up "could not make a tagged copy of $rev"
say "package: $(git log -1 --format='%h %s' "$rev"), tagged $tag at file://$remote"

# The consumer outside the repository, with its own caches: no stale clone or recorded
# fingerprint of an earlier run's $tag can stand in for this one.
cp -R Tests/Consumer "$work/consumer" && rm -rf "$work/consumer/.build" "$work/consumer/Package.resolved"
swiftpm=(--package-path "$work/consumer" --scratch-path "$work/consumer/.build"
    --cache-path "$work/cache" --config-path "$work/config" --security-path "$work/security")
export CIRCADIFY_PACKAGE_URL="file://$remote"
# SwiftPM's lock files for these paths go to $TMPDIR: keep them in $work too.
mkdir -p "$work/tmp" && export TMPDIR="$work/tmp"

start=$SECONDS
swift package "${swiftpm[@]}" resolve >"$work/resolve.log" 2>&1 || { cat "$work/resolve.log" >&2; give_up "resolve failed"; }
swift package "${swiftpm[@]}" show-dependencies >"$work/deps.txt" 2>&1 || {
    cat "$work/deps.txt" >&2
    give_up "the package graph does not load"
}
# The tree's line for it reads `circadify<file:///…/circadify.git@0.1.0>`.
resolved=$(sed -nE 's/.*circadify<[^>]*@([^>@]+)>.*/\1/p' "$work/deps.txt" | head -1)
[[ $resolved == "$tag" ]] || give_up "resolved circadify $resolved, expected the tag $tag"
checked_out=$(git -C "$work/consumer/.build/checkouts/circadify" rev-parse HEAD 2>/dev/null)
[[ $checked_out == "$(git rev-parse "$rev^{commit}")" ]] || give_up "checked out $checked_out, not $rev"
say "resolved circadify $resolved by version ($((SECONDS - start)) s)"

start=$SECONDS
swift build "${swiftpm[@]}" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; give_up "swift build failed"; }
say "built ($((SECONDS - start)) s): $(tail -1 "$work/build.log")"
"$(swift build "${swiftpm[@]}" --show-bin-path)/consumer"
