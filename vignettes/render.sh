#!/usr/bin/env bash
# Render the vignettes to HTML with their figures: each jupytext "percent" script is
# executed as a notebook (jupytext + nbclient) and converted by nbconvert.
#
#   pip install -e ".[docs]"
#   vignettes/render.sh                  # every vignette, full size -> vignettes/_build/*.html
#   vignettes/render.sh --quick tour.py  # quick mode (STREAMREG_VIGNETTE_QUICK=1), named ones
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/_build"
if [ "${1:-}" = "--quick" ]; then
    export STREAMREG_VIGNETTE_QUICK=1
    shift
fi
if [ $# -eq 0 ]; then
    set -- "$here"/*.py
fi
mkdir -p "$out"
# the notebook kernel ("python3" runs `python`) must be the interpreter that has streamreg
PYTHON="${PYTHON:-python}"
PATH="$(dirname "$("$PYTHON" -c 'import sys; print(sys.executable)')"):$PATH"
export PATH
for f in "$@"; do
    [ -f "$f" ] || f="$here/$f"
    name="$(basename "$f" .py)"
    echo "== $name"
    start=$SECONDS
    python -m jupytext --to ipynb --set-kernel python3 --execute --run-path "$out" -o "$out/$name.ipynb" "$f"
    python -m nbconvert --to html --output-dir "$out" "$out/$name.ipynb"
    echo "== $name: $((SECONDS - start)) s -> $out/$name.html"
done
