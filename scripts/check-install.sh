#!/usr/bin/env bash
# Runs the README's "Install" section as a newcomer would, in an empty home folder: the
# `cargo install --path .` line, then every line of the completions and man-page block
# (all but PowerShell's), and checks what they left: a binary whose --version names this
# commit, a bash completion that bash loads, zsh and fish scripts their shells accept
# (when those shells are installed), and man pages that `man` finds without configuration.
# Usage: scripts/check-install.sh (from the repository root; CI runs it after the tests, so
# `cargo install` reuses target/release and only copies the binary).
set -euo pipefail
cd "$(dirname "$0")/.."
# The toolchain and the registry cache stay where they are; only the install goes to the
# empty home.
export CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT

# The README's two sh blocks of the Install section: 1 = cargo install, 2 = completions.
block() {
  awk -v want="$1" '
    /^## Install/ { inside = 1; next }
    /^## / { inside = 0 }
    inside && /^```sh/ { n++; if (n == want) { on = 1; next } }
    on && /^```/ { on = 0 }
    on { print }' README.md
}
install_line=$(block 1 | grep -- '--path \.')
[[ -n "$install_line" ]] || { echo "check-install: no 'cargo install --path .' in README's Install section" >&2; exit 1; }

echo "check-install: $install_line (into an empty home)"
(export HOME="$home" CARGO_INSTALL_ROOT="$home/.cargo" && eval "$install_line")
export HOME="$home" PATH="$home/.cargo/bin:$PATH"
[[ "$(command -v fairaudit)" == "$home/.cargo/bin/fairaudit" ]] || { echo "check-install: not on PATH" >&2; exit 1; }

version=$(fairaudit --version)
if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  [[ -z "$(git status --porcelain --untracked-files=no -- src build.rs Cargo.toml Cargo.lock)" ]] || commit="$commit-dirty"
  [[ "$version" == "fairaudit $(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1) (rev $commit)" ]] ||
    { echo "check-install: --version says '$version', expected rev $commit" >&2; exit 1; }
fi
echo "check-install: $version"

mkdir -p "$home/.config/fish/completions"
while IFS= read -r line; do
  [[ -z "$line" || "$line" == *'$PROFILE'* ]] && continue
  echo "check-install: $line"
  eval "$line"
done < <(block 2)

bash_file="$home/.local/share/bash-completion/completions/fairaudit"
bash -c "source '$bash_file' && complete -p fairaudit" >/dev/null ||
  { echo "check-install: bash does not load $bash_file" >&2; exit 1; }
if command -v zsh >/dev/null; then zsh -n "$home/.zfunc/_fairaudit"; fi
if command -v fish >/dev/null; then fish --no-execute "$home/.config/fish/completions/fairaudit.fish"; fi
for page in fairaudit.1 fairaudit-audit.1 fairaudit-completions.1; do
  [[ -s "$home/.cargo/share/man/man1/$page" ]] || { echo "check-install: no man page $page" >&2; exit 1; }
done
if command -v manpath >/dev/null; then
  # man-db adds ../share/man of every PATH entry: ~/.cargo/bin gives ~/.cargo/share/man.
  manpath 2>/dev/null | tr ':' '\n' | grep -qx "$home/.cargo/share/man" ||
    { echo "check-install: man does not look in ~/.cargo/share/man" >&2; exit 1; }
fi
echo "check-install: the README's Install section works"
