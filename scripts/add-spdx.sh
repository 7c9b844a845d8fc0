#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Adds the SPDX licence line to every source file that lacks it: .java, .h, .cpp and shell scripts
# (.sh, or any file starting with a bash/sh shebang). Idempotent: a file that already names its
# licence in its first five lines is left alone. Covers tracked files and new, not ignored ones,
# so run it after merging branches and commit the result. LicenseHeaderTest fails while any file
# still lacks the line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

spdx='SPDX-License-Identifier: Apache-2.0'
changed=0

has_spdx() { head -n 5 "$1" | grep -q 'SPDX-License-Identifier:'; }

while IFS= read -r -d '' f; do
    [[ -f "$f" ]] || continue
    case "$f" in
        *.java|*.h|*.cpp) kind=slash ;;
        *.sh) kind=hash ;;
        *) if head -n 1 "$f" | grep -Eq '^#!.*\b(ba)?sh\b'; then kind=hash; else continue; fi ;;
    esac
    has_spdx "$f" && continue
    tmp="$(mktemp)"
    if [[ $kind == slash ]]; then
        { printf '// %s\n' "$spdx"; cat "$f"; } > "$tmp"
    elif head -n 1 "$f" | grep -q '^#!'; then
        # The shebang must stay the first line.
        { head -n 1 "$f"; printf '# %s\n' "$spdx"; tail -n +2 "$f"; } > "$tmp"
    else
        { printf '# %s\n' "$spdx"; cat "$f"; } > "$tmp"
    fi
    cat "$tmp" > "$f" # keeps the file's mode (scripts stay executable)
    rm -f "$tmp"
    echo "added SPDX line: $f"
    changed=$((changed + 1))
done < <(git ls-files -z --cached --others --exclude-standard)

echo "add-spdx: $changed file(s) changed"
