#!/usr/bin/env bash
# Fetches the real volume the Harris example is shown on: the ICBM 2009a nonlinear
# symmetric T1 MRI template (197×233×189 voxels at 1 mm, an average of 152 brains),
# which the `nilearn` package ships in its wheel (nilearn 0.14.1 on PyPI,
# nilearn/datasets/data/mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz).
#
#   bash examples/harris/fetch-mni.sh [DIR]     # writes DIR/mni_icbm152_t1.nii.gz
set -euo pipefail
dir=${1:-harris-data}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download nilearn==0.14.1 --no-deps -d "$tmp" -q
python3 - "$tmp" "$dir" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/nilearn-*.whl")[0]
name = "nilearn/datasets/data/mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"
data = zipfile.ZipFile(wheel).read(name)
out = sys.argv[2] + "/mni_icbm152_t1.nii.gz"
open(out, "wb").write(data)
print(out, len(data), "bytes")
PY
