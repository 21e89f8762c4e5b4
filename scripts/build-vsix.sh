#!/usr/bin/env bash
# Builds the VS Code extension package (.vsix) from editors/vscode, with the
# grammar synced from grammar/textmate. Run by .ci/run, so a change that
# breaks packaging fails CI (docs/decisions/1060-packaging.md). Output:
# editors/vscode/resc-resource.vsix (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../editors/vscode"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent sync-grammar
# No repository field: the extension is installed from a .vsix, not published
# from a known repository URL.
node ../../node_modules/@vscode/vsce/vsce package --allow-missing-repository --out resc-resource.vsix
test -s resc-resource.vsix
echo "built editors/vscode/resc-resource.vsix"
