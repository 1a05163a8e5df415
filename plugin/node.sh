#!/bin/sh
# memory-engine plugin entry (Claude Code and Codex): find a Node.js 22 or newer without a
# login shell — agents start hooks with the PATH they were started with, which often lacks
# the Node of nvm, fnm, volta, asdf, mise or Homebrew — then run the launcher with it.
# Looked at in order: $MEMORY_NODE, the path recorded at the last success (run without a
# version check of its own: run.mjs checks), `node` on PATH, the version managers' folders
# (newest last wins), Homebrew and the usual system places.
# With none, memory is off: a session start says so (once a day), every hook still exits 0.
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd)
data="${CLAUDE_PLUGIN_DATA:-${PLUGIN_DATA:-}}"

node_ok() {
  [ -n "$1" ] && [ -x "$1" ] && "$1" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 22 ? 0 : 1)' >/dev/null 2>&1
}

# The Node.js found last time, taken as it is: checking its version is a Node.js start of its
# own (40–60 ms), on every hook. run.mjs checks the version first thing; one too old forgets
# this record and runs this search again.
if [ -z "${MEMORY_NODE:-}" ] && [ -n "$data" ] && [ -f "$data/node-path" ]; then
  recorded=""
  IFS= read -r recorded < "$data/node-path" || true
  if [ -n "$recorded" ] && [ -x "$recorded" ]; then
    MEMORY_ENGINE_NODE_RECORD="$data/node-path" exec "$recorded" "$here/run.mjs" "$@"
  fi
fi

NODE=""
seen=""
try() {
  for c in "$@"; do
    [ -n "$NODE" ] && return 0
    [ -x "$c" ] || continue
    seen="$seen $c"
    if node_ok "$c"; then NODE="$c"; fi
  done
}

try "${MEMORY_NODE:-}"
[ -n "$data" ] && [ -f "$data/node-path" ] && try "$(cat "$data/node-path" 2>/dev/null)"
try "$(command -v node 2>/dev/null)"
if [ -z "$NODE" ]; then
  # Version managers: every installed version, the last (newest by name) that is 22+ wins.
  best=""
  for c in "${NVM_DIR:-$HOME/.nvm}"/versions/node/*/bin/node \
           "${FNM_DIR:-$HOME/.local/share/fnm}"/node-versions/*/installation/bin/node \
           "$HOME/Library/Application Support/fnm/node-versions/"*/installation/bin/node \
           "$HOME/.asdf/installs/nodejs/"*/bin/node \
           "$HOME/.local/share/mise/installs/node/"*/bin/node; do
    [ -x "$c" ] || continue
    seen="$seen $c"
    node_ok "$c" && best="$c"
  done
  [ -n "$best" ] && NODE="$best"
fi
try "$HOME/.volta/bin/node" "$HOME/.asdf/shims/node" "$HOME/.local/share/mise/shims/node" \
    /opt/homebrew/bin/node /usr/local/bin/node \
    /opt/homebrew/opt/node@24/bin/node /opt/homebrew/opt/node@22/bin/node \
    /usr/local/opt/node@24/bin/node /usr/local/opt/node@22/bin/node /usr/bin/node

if [ -n "$NODE" ]; then
  if [ -n "$data" ]; then
    mkdir -p "$data" 2>/dev/null && printf '%s\n' "$NODE" > "$data/node-path" 2>/dev/null
  fi
  exec "$NODE" "$here/run.mjs" "$@"
fi

# No Node.js 22+: tell the person at session start, at most once a day; never break the agent.
if [ -n "${MEMORY_ENGINE_CLI:-}" ]; then
  echo "memory: memory-engine needs Node.js 22 or newer and found none (looked at:${seen:- none}); install one, or set MEMORY_NODE to its path" >&2
  exit 1
fi
case "$1" in
  session-start)
    today=$(date +%Y-%m-%d 2>/dev/null)
    mark=""
    [ -n "$data" ] && mark="$data/told-no-node"
    if [ -z "$mark" ] || [ "$(cat "$mark" 2>/dev/null)" != "$today" ]; then
      [ -n "$mark" ] && { mkdir -p "$data" 2>/dev/null; printf '%s\n' "$today" > "$mark" 2>/dev/null; }
      found=${seen:-" none"}
      printf '{"systemMessage":"memory-engine: memory is off — it needs Node.js 22 or newer and found none (looked at:%s). Install Node.js 22+ (for example `nvm install 22`), or set MEMORY_NODE to its path in the environment the agent starts with."}\n' "$(printf '%s' "$found" | sed 's/\\/\\\\/g; s/"/\\"/g')"
    fi
    ;;
esac
exit 0
